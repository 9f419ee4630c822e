package workspace

import (
	"path"
	"regexp"
	"strings"
)

// This is a small .gitignore matcher written here rather than taken from a
// library: github.com/sabhiram/go-gitignore has been unmaintained since 2021
// and knows a single file, not nested ones; go-git's plumbing/format/gitignore
// is maintained but brings go-billy, gcfg and go-context into the build for
// what is a page of code. Each pattern becomes a plain string test where it
// can (most real patterns are a name or "*.ext") and an RE2 regexp
// otherwise, so matching a walked entry costs little.

// Ignore is a stack of .gitignore rule sets: each level holds the rules of
// one file and the folder it sits in. A nil *Ignore ignores nothing.
type Ignore struct {
	parent *Ignore
	base   string // folder of the file, slash-separated, "" for the root
	rules  []ignoreRule
}

type matchKind uint8

const (
	matchExact matchKind = iota
	matchSuffix
	matchPrefix
	matchRegexp
)

type ignoreRule struct {
	negate   bool // "!pattern": re-include
	dirOnly  bool // "pattern/": folders only
	anchored bool // holds a slash: matched against the path below base
	kind     matchKind
	text     string
	re       *regexp.Regexp
}

// Add returns a new level holding the rules of a .gitignore file found in
// folder base (slash-separated, relative to the workspace root, "" for the
// root). A file with no rules returns ig itself. Lines that cannot be
// understood are skipped, as git does.
func (ig *Ignore) Add(base string, data []byte) *Ignore {
	var rules []ignoreRule
	for line := range strings.SplitSeq(string(data), "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return ig
	}
	return &Ignore{parent: ig, base: strings.Trim(base, "/"), rules: rules}
}

// Match reports whether the entry at rel (slash-separated, relative to the
// workspace root) is ignored. The innermost file that has a matching rule
// decides, and within a file the last matching rule does, as in git.
func (ig *Ignore) Match(rel string, isDir bool) bool {
	name := path.Base(rel)
	for l := ig; l != nil; l = l.parent {
		sub := rel
		if l.base != "" {
			if !strings.HasPrefix(rel, l.base+"/") {
				continue
			}
			sub = rel[len(l.base)+1:]
		}
		for i := len(l.rules) - 1; i >= 0; i-- {
			r := &l.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			target := name
			if r.anchored {
				target = sub
			}
			if r.match(target) {
				return !r.negate
			}
		}
	}
	return false
}

func (r *ignoreRule) match(s string) bool {
	switch r.kind {
	case matchExact:
		return s == r.text
	case matchSuffix:
		return strings.HasSuffix(s, r.text) && !strings.Contains(s[:len(s)-len(r.text)], "/")
	case matchPrefix:
		return strings.HasPrefix(s, r.text) && !strings.Contains(s[len(r.text):], "/")
	default:
		return r.re.MatchString(s)
	}
}

func parseIgnoreLine(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces go unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return r, false
	}
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimLeft(line, "/")
	}
	if line == "" {
		return r, false
	}
	if !r.anchored && !strings.Contains(line, "**") {
		if !strings.ContainsAny(line, `*?[\`) {
			r.kind, r.text = matchExact, line
			return r, true
		}
		if rest := line[1:]; line[0] == '*' && !strings.ContainsAny(rest, `*?[\`) {
			r.kind, r.text = matchSuffix, rest
			return r, true
		}
		if i := len(line) - 1; line[i] == '*' && !strings.ContainsAny(line[:i], `*?[\`) {
			r.kind, r.text = matchPrefix, line[:i]
			return r, true
		}
	}
	re, err := regexp.Compile(globRegexp(line, r.anchored))
	if err != nil {
		return r, false
	}
	r.kind, r.re = matchRegexp, re
	return r, true
}

// globRegexp turns a gitignore glob into an anchored RE2 expression. A
// "**" segment spans any number of folders; anywhere else it is a plain
// "*". Without a slash the glob is matched against a name alone.
func globRegexp(glob string, anchored bool) string {
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString(segmentRegexp(glob))
		b.WriteString("$")
		return b.String()
	}
	segs := strings.Split(glob, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case seg == "**" && last:
			b.WriteString(".*")
		case seg == "**":
			b.WriteString("(?:.*/)?")
		default:
			b.WriteString(segmentRegexp(seg))
			if !last {
				b.WriteString("/")
			}
		}
	}
	b.WriteString("$")
	return b.String()
}

// segmentRegexp converts one path segment of a glob: * and ? never match
// a slash, [...] is a class ([!...] negates), a backslash quotes.
func segmentRegexp(seg string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
			} else {
				b.WriteString(`\\`)
			}
		case '*':
			for i+1 < len(seg) && seg[i+1] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			if class, n := classRegexp(seg[i:]); n > 0 {
				b.WriteString(class)
				i += n - 1
			} else {
				b.WriteString(`\[`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
		}
	}
	return b.String()
}

// classRegexp converts a bracket expression at the start of s and returns
// it with the number of bytes used, or 0 if s holds no closed class.
func classRegexp(s string) (string, int) {
	var b strings.Builder
	i := 1
	negate := false
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		negate = true
		i++
	}
	if negate {
		b.WriteString("[^/")
	} else {
		b.WriteString("[")
	}
	first := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == ']' && !first:
			b.WriteString("]")
			return b.String(), i + 1
		case c == '[' && strings.HasPrefix(s[i:], "[:"):
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				b.WriteString(`\[`)
				i++
				break
			}
			b.WriteString(s[i : i+2+end+2])
			i += 2 + end + 2
		case c == '\\' && i+1 < len(s):
			if isAlnum(s[i+1]) {
				// "\a" in RE2 is an escape of its own; the glob means "a".
				b.WriteByte(s[i+1])
			} else {
				b.WriteString(`\` + s[i+1:i+2])
			}
			i += 2
		case c == '-' && !first && i+1 < len(s) && s[i+1] != ']':
			b.WriteString("-")
			i++
		case isAlnum(c) || c >= 0x80:
			b.WriteByte(c)
			i++
		default:
			b.WriteString(`\` + s[i:i+1])
			i++
		}
		first = false
	}
	return "", 0
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
