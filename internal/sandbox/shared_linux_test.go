//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// sharedWorld is a world whose wisp home has its shared volume and an
// approvals file, with no extra writable paths: only the shared folder
// of the wisp home may be granted.
func sharedWorld(t *testing.T) (world, string) {
	t.Helper()
	if _, ok := Available(); !ok && os.Getenv("CI") == "true" {
		t.Fatal("Landlock is unavailable, and CI must prove the shared volume's confinement")
	}
	w := newWorld(t)
	w.cfg.WritablePaths = nil
	shared := filepath.Join(w.wispHome, SharedDirName)
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.wispHome, "approvals.json"), `{"approvals":[]}`)
	return w, shared
}

// TestSharedVolumeRoots: the shared folder is a writable root of an
// approved command, never of an auto-run one, and never when it is a
// link (to the wisp home or out of it); the rest of the wisp home stays
// refused.
func TestSharedVolumeRoots(t *testing.T) {
	w, shared := sharedWorld(t)
	r, err := WritableRoots(w.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Shared != shared || !slices.Contains(r.Writable, shared) {
		t.Fatalf("roots %s: the shared volume is not writable", r)
	}
	for p, want := range map[string]bool{
		filepath.Join(shared, "out.json"):             true,
		filepath.Join(shared, "deep", "x"):            true,
		filepath.Join(w.wispHome, "approvals.json"):   false,
		filepath.Join(w.wispHome, "config.json"):      false,
		filepath.Join(w.wispHome, "sharedx", "a"):     false,
		filepath.Join(w.wispHome, "audit", "log"):     false,
		filepath.Join(shared, "..", "approvals.json"): false,
	} {
		if got := r.allows(resolve(p)); got != want {
			t.Errorf("allows(%s) = %v, want %v", p, got, want)
		}
	}
	auto := w.cfg
	auto.AutoRun = true
	if r, _ := WritableRoots(auto); r.Shared != "" || slices.Contains(r.Writable, shared) {
		t.Errorf("auto-run roots %s hold the shared volume", r)
	}
	for name, target := range map[string]string{"to the wisp home": w.wispHome, "out of it": w.outside} {
		t.Run("a link "+name, func(t *testing.T) {
			if err := os.RemoveAll(shared); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, shared); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Remove(shared); os.Mkdir(shared, 0o700) })
			r, _ := WritableRoots(w.cfg)
			if r.Shared != "" || slices.Contains(r.Writable, target) {
				t.Errorf("roots %s grant a linked shared volume", r)
			}
		})
	}
}

// TestSharedVolumeEscapes runs real commands in the approved profile:
// they write the shared volume, and every way out of it to the rest of
// the wisp home (the approvals, the config) is refused by the kernel.
func TestSharedVolumeEscapes(t *testing.T) {
	w, shared := sharedWorld(t)
	approvals := filepath.Join(w.wispHome, "approvals.json")
	if r := run(t, w.cfg, "echo data > "+shared+"/out.txt && mkdir -p "+shared+"/d && echo more > "+shared+"/d/f"); r.code != 0 {
		t.Fatalf("writing the shared volume failed (exit %d): %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(shared, "d", "f")); string(b) != "more\n" {
		t.Fatalf("shared/d/f holds %q", b)
	}
	if err := os.Symlink(approvals, filepath.Join(shared, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.wispHome, filepath.Join(shared, "home")); err != nil {
		t.Fatal(err)
	}
	escapes := []struct{ name, line string }{
		{"write approvals.json", "echo x > " + approvals},
		{"dot-dot out of shared", "echo x > " + shared + "/../approvals.json"},
		{"a link in shared to approvals.json", "echo x > " + shared + "/link"},
		{"a link in shared to the wisp home", "echo x > " + shared + "/home/approvals.json"},
		{"config through the link", "echo x > " + shared + "/home/config.json"},
		{"a hard link into shared", "ln " + approvals + " " + shared + "/hard && echo x > " + shared + "/hard"},
		{"move approvals into shared", "mv " + approvals + " " + shared + "/moved"},
		{"move shared away", "mv " + shared + " " + w.wispHome + "/gone"},
		{"remove approvals.json", "rm -f " + approvals},
		{"a new file in the wisp home", "echo x > " + w.wispHome + "/new.json"},
		{"a link in the wisp home", "ln -s /tmp " + w.wispHome + "/shared2"},
	}
	for _, e := range escapes {
		t.Run(e.name, func(t *testing.T) {
			r := run(t, w.cfg, e.line)
			if r.code == 0 {
				t.Errorf("escaped (exit 0): %s", r.stdout)
			}
			if b, err := os.ReadFile(approvals); err != nil || string(b) != `{"approvals":[]}` {
				t.Fatalf("approvals.json changed: %q %v", b, err)
			}
			if b, _ := os.ReadFile(filepath.Join(w.wispHome, "config.json")); string(b) != "{}" {
				t.Fatalf("config.json changed: %q", b)
			}
			for _, p := range []string{filepath.Join(w.wispHome, "new.json"), filepath.Join(w.wispHome, "gone"), filepath.Join(w.wispHome, "shared2"), filepath.Join(shared, "hard"), filepath.Join(shared, "moved")} {
				if exists(p) {
					t.Fatalf("%s was made", p)
				}
			}
		})
	}
	t.Run("auto-run may not write it", func(t *testing.T) {
		auto := w.cfg
		auto.AutoRun = true
		if r := run(t, auto, "echo x > "+shared+"/auto.txt"); r.code == 0 || exists(filepath.Join(shared, "auto.txt")) {
			t.Errorf("an auto-run command wrote the shared volume (exit %d)", r.code)
		}
	})
	t.Run("a refusal names the wisp home path", func(t *testing.T) {
		if p, ok := Refusal(w.cfg, "bash: "+approvals+": Permission denied\n"); !ok || p != approvals {
			t.Errorf("Refusal = %q %v", p, ok)
		}
		if _, ok := Refusal(w.cfg, "bash: "+shared+"/x: Permission denied\n"); ok {
			t.Error("a write the sandbox allows was reported as its refusal")
		}
	})
}
