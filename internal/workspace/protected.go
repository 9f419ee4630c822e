package workspace

import (
	"path"
	"path/filepath"
	"strings"
)

// DefaultProtected returns the secrets no file tool may read or write, in
// any folder, whether they exist or not, and the files other programs
// would run outside the sandbox.
func DefaultProtected() []string {
	return []string{
		".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx",
		"id_rsa", "id_ed25519", "id_dsa", "id_ecdsa",
		"credentials.json", ".netrc", ".pgpass",
		// Everything git runs from (config, hooks, commondir, modules)
		// lives under .git, and a file named .git can point git at a
		// directory the model wrote: git would run it outside the sandbox.
		".git",
		// Credentials of common tools, wherever they are.
		".npmrc", ".pypirc", ".git-credentials", ".docker/config.json",
		".aws/credentials", ".kube/config", ".config/gh/hosts.yml",
		"~/.ssh", "~/.aws", "~/.kube", "~/.docker", "~/.gnupg", "~/.config/gh",
	}
}

// Protection matches protected paths. Patterns are matched without
// regard to case (a case-insensitive file system would otherwise open
// .ENV for .env):
//   - a pattern without a slash matches a file or folder name at any
//     depth (`*.pem`, `.env.*`), and everything under such a folder;
//   - a pattern with a slash matches that run of trailing path elements
//     anywhere (`.git/config`), `**` standing for any number of elements;
//   - an absolute pattern, or one starting with `~/`, matches that path
//     and everything under it.
type Protection struct {
	names    []namePat // no slash
	suffixes [][]string
	trees    []string // absolute, lower-cased, cleaned
}

// NewProtection builds a matcher of the defaults, the user's extra
// patterns and the folders that are protected whole (wisp's home).
func NewProtection(home string, extra []string, trees ...string) *Protection {
	p := &Protection{}
	for _, pat := range append(DefaultProtected(), extra...) {
		pat = strings.TrimSpace(pat)
		switch {
		case pat == "":
		case strings.HasPrefix(pat, "~/") && home != "":
			p.trees = append(p.trees, lowerClean(filepath.Join(home, pat[2:])))
		case filepath.IsAbs(pat):
			p.trees = append(p.trees, lowerClean(pat))
		case !strings.Contains(pat, "/"):
			p.names = append(p.names, compileName(strings.ToLower(pat)))
		default:
			p.suffixes = append(p.suffixes, strings.Split(strings.ToLower(strings.Trim(pat, "/")), "/"))
		}
	}
	for _, t := range trees {
		if t == "" {
			continue
		}
		p.trees = append(p.trees, lowerClean(t))
		if real, err := filepath.EvalSymlinks(t); err == nil {
			p.trees = append(p.trees, lowerClean(real))
		}
	}
	return p
}

func lowerClean(s string) string { return strings.ToLower(filepath.Clean(s)) }

// Match reports whether the absolute path abs is protected.
func (p *Protection) Match(abs string) bool {
	if p == nil {
		return false
	}
	low := lowerClean(abs)
	for _, t := range p.trees {
		if low == t || strings.HasPrefix(low, t+"/") {
			return true
		}
	}
	elems := strings.Split(strings.TrimPrefix(filepath.ToSlash(low), "/"), "/")
	for _, e := range elems {
		if p.matchName(e) {
			return true
		}
	}
	for _, suf := range p.suffixes {
		for start := range elems {
			if matchElems(suf, elems[start:]) {
				return true
			}
		}
	}
	return false
}

// MatchEntry is Match for a walk that has already matched the folders
// above: elems are the lower-cased path elements from the walk's root
// to the entry, and only patterns that end at the entry are tried. A
// walk over a large workspace spends its time here, once per entry.
func (p *Protection) MatchEntry(elems []string) bool {
	if p == nil || len(elems) == 0 {
		return false
	}
	if p.matchName(elems[len(elems)-1]) {
		return true
	}
	for _, suf := range p.suffixes {
		if len(suf) <= len(elems) && matchElems(suf, elems[len(elems)-len(suf):]) {
			return true
		}
	}
	return false
}

func (p *Protection) matchName(e string) bool {
	for _, n := range p.names {
		if n.match(e) {
			return true
		}
	}
	return false
}

// namePat is a name pattern compiled to the cheapest test that decides
// it as path.Match does: most are a plain name, "*SUFFIX" or "PREFIX*".
type namePat struct{ exact, prefix, suffix, glob string }

func compileName(n string) namePat {
	const meta = "*?[\\"
	switch {
	case n == "*" || n == "":
		return namePat{glob: n}
	case !strings.ContainsAny(n, meta):
		return namePat{exact: n}
	case strings.HasPrefix(n, "*") && !strings.ContainsAny(n[1:], meta):
		return namePat{suffix: n[1:]}
	case strings.HasSuffix(n, "*") && !strings.ContainsAny(n[:len(n)-1], meta):
		return namePat{prefix: n[:len(n)-1]}
	}
	return namePat{glob: n}
}

func (m namePat) match(e string) bool {
	switch {
	case m.glob != "" || strings.Contains(e, "/") && m.exact == "":
		if m.glob == "" {
			// A star does not match a slash (never in a path element).
			return false
		}
		ok, _ := path.Match(m.glob, e)
		return ok
	case m.suffix != "":
		return strings.HasSuffix(e, m.suffix)
	case m.prefix != "":
		return strings.HasPrefix(e, m.prefix)
	}
	return e == m.exact
}

// matchElems matches pattern elements against the whole of path
// elements, or a prefix of them (everything under a matched folder is
// protected too); "**" matches any run.
func matchElems(pat, elems []string) bool {
	if len(pat) == 0 {
		return true
	}
	if pat[0] == "**" {
		for i := 0; i <= len(elems); i++ {
			if matchElems(pat[1:], elems[i:]) {
				return true
			}
		}
		return false
	}
	if len(elems) == 0 {
		return false
	}
	if ok, _ := path.Match(pat[0], elems[0]); !ok {
		return false
	}
	return matchElems(pat[1:], elems[1:])
}
