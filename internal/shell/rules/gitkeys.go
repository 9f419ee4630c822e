package rules

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// GitKeys is the loaded gitkeys.rules: which keys of git's configuration
// only change how git shows things and which can make it run a program
// or send data. Read-only once loaded and safe for concurrent use.
type GitKeys struct {
	shows, runs []string
}

// What setting a git configuration key does, as GitKeys.Judge says.
const (
	GitKeyShows   = "shows"   // only how git shows things
	GitKeyRuns    = "runs"    // can make git run a program or send data
	GitKeyChanges = "changes" // anything else: changes how git behaves
)

//go:embed gitkeys.rules
var gitKeysText string

// DefaultGitKeys returns the built-in gitkeys.rules, loaded once. The
// package's tests parse it, so failing here means a broken build.
var DefaultGitKeys = sync.OnceValue(func() *GitKeys {
	g, err := ParseGitKeys(gitKeysText)
	if err != nil {
		panic(err)
	}
	return g
})

// ParseGitKeys reads gitkeys.rules text and checks its examples.
func ParseGitKeys(text string) (*GitKeys, error) {
	g := &GitKeys{}
	type example struct {
		line      int
		want, key string
	}
	var examples []example
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		switch {
		case f[0] == "shows" && len(f) > 1:
			g.shows = append(g.shows, f[1:]...)
		case f[0] == "runs" && len(f) > 1:
			g.runs = append(g.runs, f[1:]...)
		case f[0] == "example" && len(f) == 3:
			examples = append(examples, example{line: i + 1, want: f[1], key: f[2]})
		default:
			return nil, fmt.Errorf("gitkeys.rules line %d: want shows KEY..., runs KEY... or example LEVEL KEY", i+1)
		}
	}
	if len(examples) == 0 {
		return nil, fmt.Errorf("gitkeys.rules: no examples")
	}
	for _, ex := range examples {
		if got := g.Judge(ex.key); got != ex.want {
			return nil, fmt.Errorf("gitkeys.rules line %d: %s %s, want %s", ex.line, ex.key, got, ex.want)
		}
	}
	return g, nil
}

// Judge says what setting key (in lower case) does: GitKeyShows,
// GitKeyRuns or GitKeyChanges.
func (g *GitKeys) Judge(key string) string {
	for _, p := range g.shows {
		if keyMatch(p, key) {
			return GitKeyShows
		}
	}
	for _, p := range g.runs {
		if keyMatch(p, key) {
			return GitKeyRuns
		}
	}
	return GitKeyChanges
}

// keyMatch matches a key against a pattern of gitkeys.rules: exact, a
// prefix ending in ".", or section.*.name with any subsection or none
// (diff.textconv is read as diff.*.textconv: git would not, but a key
// that might run a program is better counted as one that does).
func keyMatch(pattern, key string) bool {
	if before, after, ok := strings.Cut(pattern, ".*."); ok {
		return strings.HasPrefix(key, before+".") && strings.HasSuffix(key, "."+after)
	}
	return key == pattern || strings.HasSuffix(pattern, ".") && strings.HasPrefix(key, pattern)
}
