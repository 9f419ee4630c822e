// Package testbin builds the wisp binary for tests that must run the real
// thing: wisp re-executes itself as the sandbox helper, so a test binary
// cannot stand in for it. Only tests import it.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Wisp is one test package's build of cmd/wisp, made on first use.
type Wisp struct {
	once sync.Once
	path string
	err  error
}

// Path builds cmd/wisp once and returns where it is.
func (w *Wisp) Path(t testing.TB) string {
	t.Helper()
	w.once.Do(func() {
		dir, err := os.MkdirTemp("", "wisp-test-bin-")
		if err != nil {
			w.err = err
			return
		}
		w.path = filepath.Join(dir, "wisp")
		if out, err := exec.Command("go", "build", "-o", w.path, "github.com/wisp-agent/wisp/cmd/wisp").CombinedOutput(); err != nil {
			w.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if w.err != nil {
		t.Fatal(w.err)
	}
	return w.path
}

// Remove deletes the build; TestMain calls it once the tests are done.
func (w *Wisp) Remove() {
	if w.path != "" {
		_ = os.RemoveAll(filepath.Dir(w.path))
	}
}
