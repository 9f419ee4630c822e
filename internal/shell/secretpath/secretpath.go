package secretpath

import (
	"path"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/secrets"
)

// UnknownHome is the folder a path stands in when it lies in a home
// folder the classifier does not know ("~" with no home given, "~user").
const UnknownHome = "/\x00home"

// Location reports whether the clean absolute path p (which may hold glob
// characters) is, lies below, or as a glob may match a credential
// location of the shared list, under any home folder it may be in (home,
// when not "", is the user's), and why the location is secret.
func Location(p, home string) (string, bool) {
	idx := secretIdx()
	if why, ok := idx.match(idx.absBy, idx.abs, strings.TrimPrefix(p, "/")); ok {
		return why, true
	}
	for _, rel := range homeRels(p, home) {
		if why, ok := idx.match(idx.homeBy, idx.home, rel); ok {
			return why, true
		}
	}
	return "", false
}

// Clean cleans an absolute path as path.Clean does, but refuses (ok
// false) a ".." that follows a link the kernel makes in /proc or /dev:
// /proc/self/cwd/.. is the parent of the working directory and
// /dev/fd/.. is /proc/self, where lexical cleaning sees /proc/self and
// /dev.
func Clean(p string) (string, bool) {
	if !strings.Contains(p, "..") {
		return path.Clean(p), true
	}
	var kept []string
	for _, el := range strings.Split(p, "/") {
		switch el {
		case "", ".":
		case "..":
			if len(kept) >= 2 && (kept[0] == "proc" || kept[0] == "dev") {
				return "", false
			}
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			}
		default:
			kept = append(kept, el)
		}
	}
	return path.Clean("/" + strings.Join(kept, "/")), true
}

// Holds reports whether the clean absolute path p is a folder that holds
// a credential location of the shared list outside any home folder
// (/etc holds /etc/shadow, /proc/self holds /proc/self/environ): a
// recursive reader given it reads them without naming them.
func Holds(p string) bool {
	rel := strings.Trim(p, "/")
	if rel == "" {
		return true
	}
	pe := strings.Split(rel, "/")
	for _, e := range secretIdx().abs {
		if len(pe) >= len(e.elems) {
			continue
		}
		held := true
		for i := range pe {
			if !elemMatch(e.elems[i], pe[i]) {
				held = false
				break
			}
		}
		if held {
			return true
		}
	}
	return false
}

// Mentions reports whether text (a word as written, quotes and
// backslashes taken out) names something of the credential list, for
// words whose value is only known at run time.
func Mentions(text string) bool {
	return secretIdx().hasMark(strings.ToLower(unquoter.Replace(text)))
}

// MaybeSecret is a quick filter before Location: whether s holds one of
// the marks of secretMarks or of the shared credential list.
func MaybeSecret(s string) bool {
	low := s
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			low = strings.ToLower(s)
			break
		}
	}
	return secretIdx().hasMark(low)
}

// secretMarks are substrings every credential path has one of; checking
// for them first keeps the full test off ordinary arguments.
var secretMarks = []string{
	"env", "netrc", "credential", "pgpass", "npmrc", "pypirc", "id_", "shadow", "master.key",
	"htpasswd", "authorized_keys", ".pem", ".key", ".p12", ".pfx", "keystore", ".jks", ".kdbx",
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", "/gh", "gcloud", ".wisp",
}

// secretIndex is the shared list of credential locations (package
// secrets), split into path elements once so that matching a path costs
// a few string comparisons.
type secretIndex struct {
	home   []secretEntry // relative to a home folder
	abs    []secretEntry // absolute
	homeBy map[string][]secretEntry
	absBy  map[string][]secretEntry
	marks  []string // text every path that can name one of them holds
	// byFirst buckets marks by their first byte, so that looking for
	// all of them costs one pass over a word.
	byFirst [256][]string
}

type secretEntry struct {
	elems []string
	why   string
}

var secretIdx = sync.OnceValue(func() *secretIndex {
	idx := &secretIndex{homeBy: map[string][]secretEntry{}, absBy: map[string][]secretEntry{}}
	seen := map[string]bool{}
	mark := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			idx.marks = append(idx.marks, m)
		}
	}
	for _, l := range secrets.List() {
		elems := strings.Split(strings.Trim(l.Path, "/"), "/")
		e := secretEntry{elems: elems, why: l.Why}
		if l.Home {
			idx.home = append(idx.home, e)
			idx.homeBy[elems[0]] = append(idx.homeBy[elems[0]], e)
			mark(literalPart(elems[0]))
			continue
		}
		idx.abs = append(idx.abs, e)
		idx.absBy[elems[0]] = append(idx.absBy[elems[0]], e)
		for _, el := range elems[1:] {
			mark(literalPart(el))
		}
	}
	for _, m := range secretMarks {
		mark(m)
	}
	for _, m := range idx.marks {
		m = strings.ToLower(m)
		idx.byFirst[m[0]] = append(idx.byFirst[m[0]], m)
	}
	return idx
})

// hasMark reports whether low (lower case) holds a mark.
func (idx *secretIndex) hasMark(low string) bool {
	for i := 0; i < len(low); i++ {
		for _, m := range idx.byFirst[low[i]] {
			if strings.HasPrefix(low[i:], m) {
				return true
			}
		}
	}
	return false
}

// literalPart is the longest run of an element without glob characters
// ("_key" of "*_key").
func literalPart(el string) string {
	best := ""
	for _, f := range strings.FieldsFunc(el, func(r rune) bool { return r == '*' || r == '?' || r == '[' || r == ']' }) {
		if len(f) > len(best) {
			best = f
		}
	}
	return best
}

// match matches the relative path rel against the entries; by holds
// them by their first element, which is never a glob, so that most paths
// are turned away by one map look-up.
func (idx *secretIndex) match(by map[string][]secretEntry, all []secretEntry, rel string) (string, bool) {
	first, _, _ := strings.Cut(rel, "/")
	cands := by[first]
	if HasMeta(first) {
		cands = all
	}
	if len(cands) == 0 {
		return "", false
	}
	pe := strings.Split(rel, "/")
	for _, e := range cands {
		if elemsMatch(e.elems, pe) {
			return e.why, true
		}
	}
	return "", false
}

// homeRels returns p relative to each home folder that may hold it: the
// given home, the unknown one (UnknownHome: "~" when no home was given,
// "~user"), and the usual places of other users' homes.
func homeRels(p, home string) []string {
	var out []string
	if home != "" && strings.HasPrefix(p, home+"/") {
		out = append(out, p[len(home)+1:])
	}
	rest := strings.TrimPrefix(p, "/")
	first, after, ok := strings.Cut(rest, "/")
	if !ok {
		return out
	}
	switch first {
	case UnknownHome[1:]:
		out = append(out, after)
		if _, r, ok := strings.Cut(after, "/"); ok {
			out = append(out, r)
		}
	case "home", "Users":
		if _, r, ok := strings.Cut(after, "/"); ok {
			out = append(out, r)
		}
	case "root":
		out = append(out, after)
	case "var":
		// Service accounts' homes (/var/lib/NAME).
		if r, ok := strings.CutPrefix(after, "lib/"); ok {
			if _, r, ok := strings.Cut(r, "/"); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// elemsMatch reports whether path elements pe name the location ents (or
// a place below it), or, when pe holds glob characters, whether the glob
// can match it or a folder holding it.
func elemsMatch(ents, pe []string) bool {
	n := min(len(ents), len(pe))
	if len(pe) < len(ents) && !globby(pe) {
		return false
	}
	for i := 0; i < n; i++ {
		if !elemMatch(ents[i], pe[i]) {
			return false
		}
	}
	return true
}

func globby(pe []string) bool {
	for _, e := range pe {
		if HasMeta(e) {
			return true
		}
	}
	return false
}

// HasMeta reports whether s holds a glob character.
func HasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// elemMatch matches one element of a location against one of a path,
// either of which may be a glob. Two globs are taken to overlap; a glob
// in the path matches a dot file only when it starts with a dot itself,
// as bash's globs do.
func elemMatch(ent, el string) bool {
	em, pm := HasMeta(ent), HasMeta(el)
	switch {
	case !em && !pm:
		return ent == el
	case em && pm:
		return true
	case em:
		ok, _ := path.Match(ent, el)
		return ok
	}
	if strings.HasPrefix(ent, ".") && !strings.HasPrefix(el, ".") {
		return false
	}
	ok, _ := path.Match(el, ent)
	return ok
}

// unquoter takes quotes and backslashes out of a word as written
// (~/.ss”h is ~/.ssh); a Replacer is safe for concurrent use.
var unquoter = strings.NewReplacer("'", "", `"`, "", `\`, "")
