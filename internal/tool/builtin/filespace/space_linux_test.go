//go:build linux

package filespace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// openModes are the two ways space_linux.go opens a path: openat2, and
// the one-name-at-a-time openat walk used where openat2 is missing.
var openModes = []struct {
	name   string
	byName bool
}{
	{"openat2", false},
	{"by name", true},
}

func spaceFor(t *testing.T, env *tool.Env, byName bool) *Space {
	t.Helper()
	s, err := Open(env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.at.byName = byName
	return s
}

// TestSpaceOpenRefusesSymlinks calls the confined opens with paths that
// hold a symlink, as a path resolved before a swap would: every one must
// fail with ErrSwapped and change nothing.
func TestSpaceOpenRefusesSymlinks(t *testing.T) {
	files := map[string]string{
		"safe/hooks/pre-commit": "safe\n",
		".git/hooks/pre-commit": "SECRET\n",
		"lnk":                   "->.git",
		"out":                   "->../outside",
		"alias":                 "->safe/hooks/pre-commit",
	}
	tests := []struct {
		name string
		run  func(s *Space) error
	}{
		{"stat through a folder link", func(s *Space) error { _, err := s.Stat("lnk/hooks/pre-commit"); return err }},
		{"stat of a link", func(s *Space) error { _, err := s.Stat("alias"); return err }},
		{"stat of a folder link", func(s *Space) error { _, err := s.Stat("lnk"); return err }},
		{"read through a folder link", func(s *Space) error { _, err := s.OpenRegular("lnk/hooks/pre-commit"); return err }},
		{"read through a link out", func(s *Space) error { _, err := s.OpenRegular("out/secret.txt"); return err }},
		{"read a link", func(s *Space) error { _, err := s.OpenRegular("alias"); return err }},
		{"list through a link", func(s *Space) error { _, err := s.OpenDir("lnk/hooks"); return err }},
		{"walk from a link", func(s *Space) error { _, err := s.openWalkDir("lnk"); return err }},
		{"ignore file through a link", func(s *Space) error { _, err := s.ReadFile("lnk/hooks/pre-commit", 100); return err }},
		{"write through a folder link", func(s *Space) error {
			_, err := s.ReplaceFile("lnk/hooks/pre-commit", []byte("pwned"), nil)
			return err
		}},
		{"write a new file through a link out", func(s *Space) error { _, err := s.ReplaceFile("out/new.txt", []byte("pwned"), nil); return err }},
		{"write over a link", func(s *Space) error { _, err := s.ReplaceFile("alias", []byte("pwned"), nil); return err }},
		{"make folders through a link", func(s *Space) error { _, err := s.ReplaceFile("lnk/hooks/x/y/z", []byte("pwned"), nil); return err }},
		{"make folders one by one through a link", func(s *Space) error { return mkdirAllErr(s, "lnk/hooks/new") }},
		{"make folders one by one up dot-dot", func(s *Space) error { return mkdirAllErr(s, "safe/../.git/hooks/new") }},
	}
	for _, mode := range openModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				root, env := fileWorkspace(t, files)
				before := treeSnapshot(t, filepath.Dir(root))
				err := tc.run(spaceFor(t, env, mode.byName))
				if !errors.Is(err, ErrSwapped) {
					t.Fatalf("err = %v, want errSwapped", err)
				}
				if after := treeSnapshot(t, filepath.Dir(root)); !slices.Equal(before, after) {
					t.Fatalf("the tree changed:\nbefore %q\nafter  %q", before, after)
				}
			})
		}
	}
}

func mkdirAllErr(s *Space, rel string) error {
	fd, err := s.at.mkdirAll(rel)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// TestSpaceOpenPlainPaths checks the same opens on ordinary paths, in
// both modes.
func TestSpaceOpenPlainPaths(t *testing.T) {
	for _, mode := range openModes {
		t.Run(mode.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{"d/f.txt": "hello\n", "e/": ""})
			s := spaceFor(t, env, mode.byName)
			if fi, err := s.Stat("."); err != nil || !fi.IsDir() {
				t.Fatalf("stat .: %v %v", fi, err)
			}
			if fi, err := s.Stat("d/f.txt"); err != nil || fi.Size() != 6 || fi.Name() != "f.txt" {
				t.Fatalf("stat d/f.txt: %v %v", fi, err)
			}
			if _, err := s.Stat("d/missing"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("stat d/missing: %v", err)
			}
			if data, err := s.ReadFile("d/f.txt", 100); err != nil || string(data) != "hello\n" {
				t.Fatalf("readFile: %q %v", data, err)
			}
			if _, err := s.ReadFile("d/f.txt", 3); !errors.Is(err, ErrTooBig) {
				t.Fatalf("readFile over max: %v", err)
			}
			if _, err := s.OpenRegular("d"); !errors.Is(err, ErrNotRegular) {
				t.Fatalf("openRegular of a folder: %v", err)
			}
			created, err := s.ReplaceFile("e/x/y/new.txt", []byte("new"), nil)
			if err != nil || !created {
				t.Fatalf("write new: %v %v", created, err)
			}
			created, err = s.ReplaceFile("d/f.txt", []byte("over"), nil)
			if err != nil || created {
				t.Fatalf("overwrite: %v %v", created, err)
			}
			if got := readBack(t, root, "e/x/y/new.txt") + readBack(t, root, "d/f.txt"); got != "newover" {
				t.Fatalf("files hold %q", got)
			}
			if _, err := s.ReplaceFile("d/f.txt/g", []byte("x"), nil); err == nil {
				t.Fatal("wrote below a file")
			}
			f, err := s.OpenDir("d")
			if err != nil {
				t.Fatal(err)
			}
			names, err := f.Readdirnames(-1)
			f.Close()
			if err != nil || !slices.Equal(names, []string{"f.txt"}) {
				t.Fatalf("folder d holds %v (%v)", names, err)
			}
		})
	}
}

// TestSpaceSwapRace runs the space's calls, opening by name (the openat
// fallback), on safe/hooks/pre-commit while
// a goroutine keeps exchanging the folder safe with a symlink into a
// protected or outside folder (renameat2 RENAME_EXCHANGE), as a command
// running in the background could. No call may write into the target,
// show its contents or leave a temporary file behind; calls that meet the
// link fail.
func TestSpaceSwapRace(t *testing.T) {
	tests := []struct {
		name   string
		target string // the link's target, relative to the workspace
	}{
		{name: "into .git, by name", target: ".git"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{
				"safe/hooks/pre-commit": "safe\n",
				"lnk":                   "->" + tc.target,
			})
			env.Protected = workspace.NewProtection("", nil).Match
			base := filepath.Dir(root)
			target := filepath.Join(root, tc.target)
			for name, content := range map[string]string{"hooks/pre-commit": "SECRET\n", "hooks/only-in-target": "SECRET\n"} {
				p := filepath.Join(target, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := treeSnapshot(t, target)

			ops := spaceOps(t, env)
			var (
				stop, leaked atomic.Bool
				swaps        atomic.Int64
				swapper      sync.WaitGroup
			)
			swapper.Go(func() {
				for !stop.Load() {
					if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "safe"), unix.AT_FDCWD, filepath.Join(root, "lnk"), unix.RENAME_EXCHANGE); err == nil {
						swaps.Add(1)
					}
				}
			})
			// Bounded both ways: a few hundred calls per worker, and not
			// past the deadline on a slow machine.
			deadline := time.Now().Add(400 * time.Millisecond)
			var workers sync.WaitGroup
			var refused atomic.Int64
			for w := range 3 {
				workers.Go(func() {
					for i := 0; i < 300 && time.Now().Before(deadline); i++ {
						out := ops[(i+w)%len(ops)](i*3 + w)
						if strings.Contains(out, "SECRET") || strings.Contains(out, "only-in-target") {
							leaked.Store(true)
							t.Errorf("a call showed the target: %q", out)
						}
						if strings.Contains(out, ErrSwapped.Error()) {
							refused.Add(1)
						}
					}
				})
			}
			workers.Wait()
			stop.Store(true)
			swapper.Wait()
			if fi, err := os.Lstat(filepath.Join(root, "safe")); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(root, "safe"), unix.AT_FDCWD, filepath.Join(root, "lnk"), unix.RENAME_EXCHANGE); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%d swaps, %d calls refused a swapped path", swaps.Load(), refused.Load())
			if swaps.Load() == 0 {
				t.Fatal("the folder was never swapped")
			}
			if after := treeSnapshot(t, target); !slices.Equal(before, after) {
				t.Fatalf("the target changed:\nbefore %q\nafter  %q", before, after)
			}
			for _, e := range treeSnapshot(t, base) {
				if strings.Contains(e, ".wisp-") {
					t.Fatalf("temporary file left behind: %s", e)
				}
			}
		})
	}
}

// spaceOps are the race test's calls on a Space walking by name.
func spaceOps(t *testing.T, env *tool.Env) []func(i int) string {
	with := func(p string, f func(s *Space, rel string) string) string {
		s := spaceFor(t, env, true)
		rel, msg := s.Resolve(p)
		if msg != "" {
			return msg
		}
		return f(s, rel)
	}
	errText := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return ""
	}
	return []func(i int) string{
		func(int) string {
			return with("safe/hooks/pre-commit", func(s *Space, rel string) string {
				_, err := s.ReplaceFile(rel, []byte("pwned\n"), nil)
				return errText(err)
			})
		},
		func(i int) string {
			return with(fmt.Sprintf("safe/hooks/n%d/m/new.txt", i), func(s *Space, rel string) string {
				_, err := s.ReplaceFile(rel, []byte("pwned\n"), nil)
				return errText(err)
			})
		},
		func(int) string {
			return with("safe/hooks/pre-commit", func(s *Space, rel string) string {
				f, err := s.OpenRegular(rel)
				if err != nil {
					return err.Error()
				}
				defer f.Close()
				data, _ := io.ReadAll(f)
				return string(data)
			})
		},
		func(int) string {
			return with("safe/hooks", func(s *Space, rel string) string {
				h, err := s.openWalkDir(rel)
				if err != nil {
					return err.Error()
				}
				defer h.close()
				entries, _ := h.list()
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				return strings.Join(names, " ")
			})
		},
	}
}

// treeSnapshot lists everything under dir without following symlinks,
// with file contents and link targets, sorted.
func treeSnapshot(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" -> "+target)
		case d.IsDir():
			out = append(out, rel+"/")
		default:
			data, _ := os.ReadFile(p)
			out = append(out, rel+": "+string(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// fileWorkspace builds a workspace in a temp folder next to a folder
// "outside" that holds secret.txt. files maps slash paths to contents; a
// content starting with "->" makes a symlink to the rest.
func fileWorkspace(t testing.TB, files map[string]string) (root string, env *tool.Env) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, &tool.Env{Workdir: root, TempDir: t.TempDir()}
}

func readBack(t testing.TB, root, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
