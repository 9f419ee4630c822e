package history

import (
	"os"
	"path/filepath"
	"testing"
)

// A prompt is kept once (not twice in a row, never blank), survives a
// reload from the file, and ↑/↓ walk back and forth to the draft.
func TestHistory(t *testing.T) {
	path := Path(t.TempDir(), "/some/project")
	h := Load(path)
	for _, p := range []string{"first", "  ", "second\nline", "second\nline"} {
		if err := h.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	h = Load(path)
	steps := []struct {
		up   bool
		want string
		ok   bool
	}{
		{true, "second\nline", true}, {true, "first", true}, {true, "", false},
		{false, "second\nline", true}, {false, "draft", true}, {false, "", false},
	}
	for i, s := range steps {
		var got string
		var ok bool
		if s.up {
			got, ok = h.Prev("draft")
		} else {
			got, ok = h.Next()
		}
		if got != s.want || ok != s.ok {
			t.Fatalf("step %d: %q %v, want %q %v", i, got, ok, s.want, s.ok)
		}
	}
	if err := os.WriteFile(path, []byte("not json\n\"kept\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := Load(path).Prev(""); got != "kept" {
		t.Errorf("a damaged line is not skipped: %q", got)
	}
	if filepath.Dir(Path("/h", "/a")) != filepath.Join("/h", "history") || Path("/h", "/a") == Path("/h", "/b") {
		t.Error("projects do not get files of their own under history/")
	}
}
