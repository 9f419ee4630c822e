package runtemp

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFallback: the commands' folder goes in the first parent
// where the sandbox would let commands write it; a parent inside the wisp
// home is passed over, and with none left commands get no folder and
// stderr says why.
func TestOpenFallback(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", filepath.Join(base, "home"))
	wispHome := filepath.Join(base, "home", ".wisp")
	inside, outside := filepath.Join(wispHome, "tmp"), filepath.Join(base, "tmp")
	for _, d := range []string{inside, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(base, "missing")
	tests := []struct {
		name        string
		parents     []string
		wantSpillIn string // the parent the spill folder is made in ("": none made)
		wantCmdIn   string // the parent of the commands' folder ("": none)
		wantStderr  string
	}{
		{"first parent will do", []string{outside, inside}, outside, outside, ""},
		{"one in the wisp home is passed over", []string{inside, outside}, outside, outside, ""},
		{"none for commands: spill folder kept", []string{inside}, inside, "", ""},
		{"none at all", []string{missing}, "", "", "spilled command output goes to " + missing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			got, remove := Open(tc.parents, Refused(wispHome, filepath.Join(base, "ws")), &stderr)
			in := func(dir, parent string) bool {
				return parent != "" && strings.HasPrefix(filepath.Base(dir), Prefix) && filepath.Dir(dir) == parent
			}
			switch {
			case tc.wantSpillIn == "" && got.Spill != tc.parents[0]:
				t.Errorf("spill = %q, want the first parent", got.Spill)
			case tc.wantSpillIn != "" && !in(got.Spill, tc.wantSpillIn):
				t.Errorf("spill = %q, want a %s folder in %s", got.Spill, Prefix, tc.wantSpillIn)
			}
			switch {
			case tc.wantCmdIn == "" && (got.Commands != "" || got.Why == ""):
				t.Errorf("commands = %q (why %q), want none and a reason", got.Commands, got.Why)
			case tc.wantCmdIn != "" && (got.Commands != filepath.Join(got.Spill, CommandsName) || !in(got.Spill, tc.wantCmdIn)):
				t.Errorf("commands = %q, want %s inside the spill folder in %s", got.Commands, CommandsName, tc.wantCmdIn)
			}
			if fi, err := os.Stat(got.Commands); got.Commands != "" && (err != nil || fi.Mode().Perm() != 0o700) {
				t.Errorf("the commands' folder is not private: %v %v", fi, err)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) || tc.wantStderr == "" && stderr.Len() > 0 {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.wantStderr)
			}
			remove()
			if got.Spill != tc.parents[0] {
				if _, err := os.Lstat(got.Spill); err == nil {
					t.Errorf("%s outlived the run", got.Spill)
				}
			}
			// Folders passed over are gone at once.
			for _, p := range tc.parents {
				left, _ := filepath.Glob(filepath.Join(p, Prefix+"*"))
				if len(left) > 0 {
					t.Errorf("left in %s: %q", p, left)
				}
			}
		})
	}
}

func TestTempFix(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, root string
		temp       Temp
		want       string
		tell       bool
	}{
		{"not a temporary folder", filepath.Join(base, "ws"), Temp{Commands: "/tmp/wisp-run-1-a/tmp"}, "", true},
		{"TMPDIR, with a folder of their own", base, Temp{Commands: "/tmp/wisp-run-1-a/tmp"}, "", false},
		{"/tmp, with none", "/tmp", Temp{}, "; commands have no writable temporary folder: set TMPDIR to a folder outside the wisp home", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, tell := Fix(tc.root, base, tc.temp); got != tc.want || tell != tc.tell {
				t.Errorf("Fix = %q, %v; want %q, %v", got, tell, tc.want, tc.tell)
			}
		})
	}
}
