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
	names    []string // no slash
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
			p.names = append(p.names, strings.ToLower(pat))
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
		for _, n := range p.names {
			if ok, _ := path.Match(n, e); ok {
				return true
			}
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
