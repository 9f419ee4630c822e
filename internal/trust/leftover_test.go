package trust

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/durable"
)

// TestOpenRemovesLeftoverTemps: a write killed between creating its
// temporary file and renaming it leaves .trust.json.*.tmp behind; the next
// Open removes it once it is old enough, and keeps a fresh one (a write in
// progress elsewhere) and the store itself.
func TestOpenRemovesLeftoverTemps(t *testing.T) {
	home := isolate(t)
	dir := mkdir(t, home)
	store := filepath.Join(dir, FileName)
	if err := os.WriteFile(store, []byte(`{"version":1,"projects":{}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "."+FileName+".4711.tmp")
	fresh := filepath.Join(dir, "."+FileName+".4712.tmp")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * durable.StaleAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(store); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want bool
	}{{stale, false}, {fresh, true}, {store, true}} {
		if _, err := os.Stat(c.path); (err == nil) != c.want {
			t.Errorf("%s exists %v, want %v", filepath.Base(c.path), err == nil, c.want)
		}
	}
}
