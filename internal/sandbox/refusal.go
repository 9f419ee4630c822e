package sandbox

import (
	"path/filepath"
	"strings"
)

// deniedMarks are the texts (lower case) tools print for EACCES, EPERM and
// EROFS, which is what Landlock's refusals look like to a command.
// "invalid cross-device link" is EXDEV, Landlock's answer to a rename or
// link that would carry a file out of its rights.
var deniedMarks = []string{"permission denied", "operation not permitted", "read-only file system", "invalid cross-device link", "eacces", "eperm", "erofs", "exdev"}

// quotePairs are the quotes tools put around paths: coreutils in the C
// locale ('x') and in UTF-8 locales (‘x’), older GNU (`x'), and others.
var quotePairs = [][2]string{{"'", "'"}, {"\"", "\""}, {"‘", "’"}, {"“", "”"}, {"`", "'"}}

// Refusal looks through a failed command's stderr for a permission error
// naming a path the sandbox does not let cfg's commands write, and returns
// the first such path (made absolute against cfg.Workdir), so the caller
// can tell the model "the sandbox refused writing PATH". It is a reading
// of text, not a proof: a path the sandbox does allow is never returned,
// but a refusal by file permissions outside the roots looks the same.
func Refusal(cfg Config, stderr string) (path string, ok bool) {
	var roots *Roots
	for line := range strings.Lines(stderr) {
		lower := asciiLower(line)
		at := -1
		for _, m := range deniedMarks {
			if i := strings.Index(lower, m); i >= 0 && (at < 0 || i < at) {
				at = i
			}
		}
		if at < 0 {
			continue
		}
		if roots == nil {
			r, err := WritableRoots(cfg)
			if err != nil {
				return "", false
			}
			roots = &r
		}
		for _, c := range pathsIn(line, at) {
			if !filepath.IsAbs(c) {
				if cfg.Workdir == "" {
					continue
				}
				c = filepath.Join(cfg.Workdir, c)
			}
			c = filepath.Clean(c)
			if !roots.allows(resolve(c)) {
				return c, true
			}
		}
	}
	return "", false
}

// pathsIn lists the strings in line that may be the denied path: quoted
// text anywhere, then unquoted paths in the text before the error mark at
// index at (as in "sh: 1: cannot create /x/y: Permission denied" or Go's
// "open /x/y: permission denied").
func pathsIn(line string, at int) []string {
	var out []string
	for i := 0; i < len(line); {
		open, closing, ok := quoteAt(line, i)
		if !ok {
			i++
			continue
		}
		start := i + len(open)
		end := strings.Index(line[start:], closing)
		if end < 0 {
			break
		}
		if q := line[start : start+end]; q != "" {
			out = append(out, q)
		}
		i = start + end + len(closing)
	}

	before := strings.TrimRight(line[:at], " \t")
	before = strings.TrimSuffix(before, ":")
	before = strings.TrimRight(before, " \t")
	for i := 0; i < len(before); i++ {
		if before[i] != '/' || (i > 0 && before[i-1] != ' ' && before[i-1] != '\t') {
			continue
		}
		p := before[i:]
		// A quote or ": " means this is a prefix such as "/bin/sh: 1:
		// cannot create /x", not the path itself.
		if strings.ContainsAny(p, "'\"`‘’“”") || strings.Contains(p, ": ") {
			continue
		}
		out = append(out, p)
	}
	// Relative paths unquoted: dash's "cannot create out/x" and bash's
	// "bash: line 1: out/x".
	if _, p, ok := strings.Cut(before, "cannot create "); ok && !strings.Contains(p, ": ") {
		out = append(out, p)
	}
	if i := strings.LastIndex(before, ": "); i >= 0 {
		if p := before[i+2:]; p != "" && !strings.ContainsAny(p, " \t'\"`") {
			out = append(out, p)
		}
	}
	return out
}

// quoteAt reports whether an opening quote starts at line[i].
func quoteAt(line string, i int) (open, closing string, ok bool) {
	for _, q := range quotePairs {
		if strings.HasPrefix(line[i:], q[0]) {
			return q[0], q[1], true
		}
	}
	return "", "", false
}

// asciiLower lowers ASCII letters only, so that byte offsets in the result
// are offsets in s (strings.ToLower may change the length of other text).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
