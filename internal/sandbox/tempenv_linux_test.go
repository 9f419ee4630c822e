//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrivateTempFolder runs commands whose temp folder lies in a folder
// that holds the wisp home, as /tmp does when WISP_HOME is under /tmp:
// the shared folder stays read-only, the private one is theirs in both
// profiles, and go finds a build cache it can write in a fresh HOME.
func TestPrivateTempFolder(t *testing.T) {
	for _, autoRun := range []bool{false, true} {
		name := "approved"
		if autoRun {
			name = "auto-run"
		}
		t.Run(name, func(t *testing.T) {
			var w world
			if autoRun {
				w = autoRunWorld(t)
			} else {
				_, ok := Available()
				needFeature(t, ok, "Landlock is unavailable here")
				w = newWorld(t)
			}
			private := filepath.Join(w.parent, "wisp-run-1-ab", "tmp")
			if err := os.MkdirAll(private, 0o700); err != nil {
				t.Fatal(err)
			}
			cfg := w.cfg
			cfg.AutoRun = autoRun
			cfg.TempDir = private
			r := run(t, cfg, `printf '%s|%s|%s|%s|%s\n' "$TMPDIR" "$GOTMPDIR" "$TMP" "$TEMP" "$GOCACHE"; `+
				`echo x > "$TMPDIR/f" && mkdir -p "$GOCACHE" && echo ok; echo y > "$TMPDIR/../lock" || echo refused`)
			want := strings.Repeat(private+"|", 4) + filepath.Join(private, "go-build") + "\nok\nrefused\n"
			if r.stdout != want {
				t.Errorf("stdout = %q, want %q (stderr %q)", r.stdout, want, r.stderr)
			}
			if !exists(filepath.Join(private, "f")) || !exists(filepath.Join(private, "go-build")) {
				t.Error("the command could not write its temp folder")
			}
			if exists(filepath.Join(private, "..", "lock")) {
				t.Error("the command wrote beside its temp folder, in a folder that holds the wisp home")
			}
		})
	}
}
