package project

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/trust"
)

// BenchmarkStartup measures what a run pays before its first request:
// the project root, the decision from the store, and the context files
// of a three-level project.
func BenchmarkStartup(b *testing.B) {
	base := b.TempDir()
	wispHome := filepath.Join(base, ".wisp")
	repo := filepath.Join(base, "repo")
	cwd := filepath.Join(repo, "a", "b")
	for _, p := range []string{filepath.Join(wispHome, "AGENTS.md"), filepath.Join(repo, ".git", "HEAD"), filepath.Join(repo, "AGENTS.md"), filepath.Join(repo, "a", "CLAUDE.md"), filepath.Join(cwd, "AGENTS.md")} {
		write(b, p, strings.Repeat("rule\n", 400))
	}
	s, err := trust.Open(filepath.Join(wispHome, trust.FileName))
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Set(repo, true); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		root := trust.ProjectRoot(cwd)
		d, _ := trust.Decide("", s, root)
		c := LoadContext(ContextOptions{WispHome: wispHome, Root: root, Cwd: cwd, Trusted: d.Trusted})
		if len(c.Files) != 4 {
			b.Fatal(len(c.Files))
		}
		_ = c.Render()
	}
}
