package shell

import (
	"path"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/secrets"
)

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

// secretLocation reports whether the clean absolute path p (which may
// hold glob characters) is, lies below, or as a glob may match a
// credential location of the shared list, under any home folder it may
// be in.
func (c *classifier) secretLocation(p string) (string, bool) {
	if w := path.Clean(c.opts.WispHome); c.opts.WispHome != "" && path.IsAbs(w) && within(p, w) {
		return "wisp's own configuration and audit log", true
	}
	idx := secretIdx()
	if why, ok := idx.match(idx.absBy, idx.abs, strings.TrimPrefix(p, "/")); ok {
		return why, true
	}
	for _, rel := range c.homeRels(p) {
		if why, ok := idx.match(idx.homeBy, idx.home, rel); ok {
			return why, true
		}
	}
	return "", false
}

// match matches the relative path rel against the entries; by holds
// them by their first element, which is never a glob, so that most paths
// are turned away by one map look-up.
func (idx *secretIndex) match(by map[string][]secretEntry, all []secretEntry, rel string) (string, bool) {
	first, _, _ := strings.Cut(rel, "/")
	cands := by[first]
	if hasMeta(first) {
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
// given home, the unknown one ("~" when no home was given, "~user"), and
// the usual places of other users' homes.
func (c *classifier) homeRels(p string) []string {
	var out []string
	if c.home != "" && strings.HasPrefix(p, c.home+"/") {
		out = append(out, p[len(c.home)+1:])
	}
	rest := strings.TrimPrefix(p, "/")
	first, after, ok := strings.Cut(rest, "/")
	if !ok {
		return out
	}
	switch first {
	case "\x00home":
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
		if hasMeta(e) {
			return true
		}
	}
	return false
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// elemMatch matches one element of a location against one of a path,
// either of which may be a glob. Two globs are taken to overlap; a glob
// in the path matches a dot file only when it starts with a dot itself,
// as bash's globs do.
func elemMatch(ent, el string) bool {
	em, pm := hasMeta(ent), hasMeta(el)
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

// mentionsSecret reports whether text (a word as written, quotes and
// backslashes taken out) names something of the credential list, for
// words whose value is only known at run time.
func mentionsSecret(text string) bool {
	return secretIdx().hasMark(strings.ToLower(unquoter.Replace(text)))
}

// outsideHome says why reading p is reading the user's private files: p
// lies in a home folder (the user's, or any other) outside the
// workspace, or holds home folders. It returns "" otherwise.
func (c *classifier) outsideHome(p string) string {
	if within(p, c.root) {
		return ""
	}
	homes := []string{"/\x00home", "/home", "/root", "/Users"}
	if c.home != "" {
		homes = append(homes, c.home)
	}
	for _, h := range homes {
		if within(p, h) {
			return "reads outside the workspace, in a home folder: "
		}
	}
	for _, h := range homes {
		if within(h, p) {
			return "reads a folder that holds home folders: "
		}
	}
	return ""
}
