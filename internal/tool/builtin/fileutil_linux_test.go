//go:build linux

package builtin

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
	"github.com/wisp-agent/wisp/internal/workspace"
	"golang.org/x/sys/unix"
)

// TestFileToolsSwapRace runs the file tools on safe/hooks/pre-commit while
// a goroutine keeps exchanging the folder safe with a symlink into a
// protected or outside folder (renameat2 RENAME_EXCHANGE), as a command
// running in the background could. No call may write into the target,
// show its contents or leave a temporary file behind; calls that meet the
// link fail.
func TestFileToolsSwapRace(t *testing.T) {
	tests := []struct {
		name   string
		target string // the link's target, relative to the workspace
	}{
		{name: "into .git", target: ".git"},
		{name: "out of the workspace", target: "../outside"},
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

			ops := toolOps(t, env)
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
						if strings.Contains(out, filespace.ErrSwapped.Error()) {
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

// toolOps are the tool calls the race test runs: each returns the text the
// model would see.
func toolOps(t *testing.T, env *tool.Env) []func(i int) string {
	run := func(tl tool.Tool, args string) string { return callTool(t, tl, env, args).Content }
	return []func(i int) string{
		func(int) string { return run(Write(), `{"path":"safe/hooks/pre-commit","content":"pwned\n"}`) },
		func(i int) string {
			return run(Write(), fmt.Sprintf(`{"path":"safe/hooks/n%d/m/new.txt","content":"pwned\n"}`, i))
		},
		func(int) string {
			return run(Edit(), `{"path":"safe/hooks/pre-commit","old_text":"pwned\n","new_text":"pwned\npwned\n"}`)
		},
		func(int) string { return run(Read(), `{"path":"safe/hooks/pre-commit"}`) },
		func(int) string { return run(Grep(), `{"pattern":"SECRET|pwned","path":"safe/hooks"}`) },
		func(int) string { return run(Ls(), `{"path":"safe/hooks"}`) },
		func(int) string { return run(Find(), `{"pattern":"*","path":"safe"}`) },
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
