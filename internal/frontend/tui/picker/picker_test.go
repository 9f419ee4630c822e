package picker

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Files leaves out what .gitignore files (at any depth) ignore, and
// Rank puts the file whose name matches best first.
func TestFilesAndRank(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		".gitignore":            "build/\n*.log\n",
		"main.go":               "",
		"internal/tui/model.go": "",
		"build/out.bin":         "",
		"debug.log":             "",
		"sub/.gitignore":        "secret.txt\n",
		"sub/secret.txt":        "",
		"sub/open.txt":          "",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := Files(root)
	slices.Sort(files)
	want := []string{".gitignore", "internal/tui/model.go", "main.go", "sub/.gitignore", "sub/open.txt"}
	if !slices.Equal(files, want) {
		t.Fatalf("files %q, want %q", files, want)
	}
	if got := Rank(files, "tuimod", 3); len(got) == 0 || got[0] != "internal/tui/model.go" {
		t.Fatalf("fuzzy %q", got)
	}
}
