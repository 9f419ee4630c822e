package workspace

import (
	"path"
	"testing"
)

// FuzzNamePat checks the compiled name test against path.Match, which
// it stands in for.
func FuzzNamePat(f *testing.F) {
	for _, pat := range append(DefaultProtected(), "*", "", "a*b", "[ab]*", "*.tar.*", `\*x`) {
		f.Add(pat, ".env.local")
		f.Add(pat, "key.pem")
	}
	f.Fuzz(func(t *testing.T, pat, name string) {
		want, err := path.Match(pat, name)
		if err != nil {
			return
		}
		if got := compileName(pat).match(name); got != want {
			t.Fatalf("pattern %q, name %q: compiled %v, path.Match %v", pat, name, got, want)
		}
	})
}
