package approval

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/durable"
)

// TestOpenRemovesLeftoverTemps: temporary files of a write killed before
// its rename are removed by the next Open once they are old enough.
func TestOpenRemovesLeftoverTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "approvals.json")
	stale := filepath.Join(dir, ".approvals.json.99.tmp")
	fresh := filepath.Join(dir, ".approvals.json.98.tmp")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("["), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * durable.StaleAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, dir, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temporary file removed: %v", err)
	}
}
