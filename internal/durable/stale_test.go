package durable

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRemoveStaleTemps(t *testing.T) {
	old := time.Now().Add(-2 * StaleAge)
	tests := []struct {
		name    string
		file    string
		old     bool
		symlink bool
		removed bool
	}{
		{name: "old temp of the store", file: ".trust.json.123456.tmp", old: true, removed: true},
		{name: "fresh temp (a write in progress)", file: ".trust.json.123456.tmp"},
		{name: "the store itself", file: "trust.json", old: true},
		{name: "temp of another file", file: ".approvals.json.1.tmp", old: true},
		{name: "not a WriteFile name", file: ".trust.json.abc.tmp", old: true},
		{name: "symlink with a temp name", file: ".trust.json.9.tmp", old: true, symlink: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, tc.file)
			target := filepath.Join(dir, "target")
			if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.symlink {
				if err := os.Symlink(target, p); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
			if tc.old {
				_ = os.Chtimes(p, old, old)
				_ = os.Chtimes(target, old, old)
			}
			n, err := RemoveStaleTemps(filepath.Join(dir, "trust.json"), StaleAge)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Lstat(p)
			if gone := os.IsNotExist(statErr); gone != tc.removed || (n == 1) != tc.removed {
				t.Fatalf("removed %d, file gone %v; want removed %v", n, gone, tc.removed)
			}
			if _, err := os.Stat(target); err != nil {
				t.Fatalf("unrelated file touched: %v", err)
			}
		})
	}
}

func TestWriteFileTempIsRecognised(t *testing.T) {
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, tempPattern(filepath.Join(dir, "s.json")))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !isTempOf(filepath.Base(f.Name()), "s.json") {
		t.Fatalf("%s is not taken for a temp of s.json", f.Name())
	}
}

func TestScratch(t *testing.T) {
	parent := t.TempDir()
	old := time.Now().Add(-2 * StaleAge)

	// A folder left by a dead process: lock file present, nobody holds it.
	dead := filepath.Join(parent, "wisp-run-1-dead")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dead, scratchLock), nil, 0o600)
	_ = os.WriteFile(filepath.Join(dead, "wisp-stdout-1.log"), []byte("out"), 0o600)
	// A folder of a live process: its lock is held.
	live, err := OpenScratch(parent, "wisp-run-")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(live.Dir(), old, old)
	// A folder being set up right now, one whose setup was killed long
	// ago, one without any lock file, and one with another prefix.
	fresh := filepath.Join(parent, ".wisp-run-2-fresh.new")
	killed := filepath.Join(parent, ".wisp-run-3-killed.new")
	nolock := filepath.Join(parent, "wisp-run-4-nolock")
	other := filepath.Join(parent, "other-1")
	for _, d := range []string{fresh, killed, nolock, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chtimes(other, old, old)
	_ = os.Chtimes(killed, old, old)

	s, err := OpenScratch(parent, "wisp-run-")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{{dead, false}, {live.Dir(), true}, {fresh, true}, {killed, false}, {nolock, false}, {other, true}, {s.Dir(), true}} {
		if _, err := os.Stat(c.dir); (err == nil) != c.want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(c.dir), err == nil, c.want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("closed scratch folder still there: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	live.Close()
}
