package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// TestCommandTempRemoved: the private temporary folder a run gives its
// commands (one-shot and started alike, as TMPDIR) is removed however the
// run ends: normally, with a started process still running, or on
// SIGTERM, SIGHUP and SIGINT during a command. (A run killed outright is
// TestSpilledOutputRemoved's: the folder lies in the run's scratch folder.)
func TestCommandTempRemoved(t *testing.T) {
	bin := wispBinary(t)
	oneShot := `{"command":"printenv TMPDIR > tmpdir; echo x > \"$TMPDIR/f\"; touch started; sleep MARK"}`
	waitStarted := `{"command":"until test -e started; do sleep 0.05; done"}`
	started := `{"operation":"start","command":"printenv TMPDIR > tmpdir; echo x > \"$TMPDIR/f\"; touch started; sleep MARK"}`
	tests := []struct {
		name  string
		input string
		sig   syscall.Signal // 0: the run ends by itself
		code  int
	}{
		{"started process at a normal end", started, 0, 0},
		{"SIGTERM", oneShot, syscall.SIGTERM, 143},
		{"SIGHUP", oneShot, syscall.SIGHUP, 129},
		{"SIGINT", oneShot, syscall.SIGINT, 130},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turns := []fake.Turn{{Text: "Starting.", ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(tc.input)}}}}
			if tc.sig == 0 {
				// The started process must have written its file before
				// the run ends, or there is nothing to check.
				turns = append(turns, fake.Turn{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(waitStarted)}}})
			}
			w := newSignalWorld(t, bin, append(turns, fake.Turn{Text: "done"}))
			cmd := w.command(t, "-p", "go", "--allow-tool", "bash", "--yes", "--no-session")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			if tc.sig != 0 {
				w.waitFile(t, "started", exited, &stderr)
				if err := cmd.Process.Signal(tc.sig); err != nil {
					t.Fatal(err)
				}
			}
			if err := <-exited; tc.sig == 0 && err != nil {
				t.Fatalf("wisp: %v\n%s", err, stderr.String())
			}
			if cmd.ProcessState.ExitCode() != tc.code {
				t.Errorf("exit code %d, want %d", cmd.ProcessState.ExitCode(), tc.code)
			}
			raw, err := os.ReadFile(filepath.Join(w.work, "tmpdir"))
			if err != nil {
				t.Fatalf("the command did not record its TMPDIR: %v\n%s", err, stderr.String())
			}
			dir := strings.TrimSpace(string(raw))
			if filepath.Base(dir) != commandTempName || !strings.HasPrefix(filepath.Base(filepath.Dir(dir)), scratchPrefix) {
				t.Fatalf("TMPDIR %q is not a run's private folder", dir)
			}
			if _, err := os.Lstat(filepath.Dir(dir)); err == nil {
				t.Errorf("the run's folder %s outlived it", filepath.Dir(dir))
			}
		})
	}
}

// TestOpenScratchFallback: the commands' folder goes in the first parent
// where the sandbox would let commands write it; a parent inside the wisp
// home is passed over, and with none left commands get no folder and
// stderr says why.
func TestOpenScratchFallback(t *testing.T) {
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
	l := &loaded{paths: config.Paths{Home: wispHome, UserHome: filepath.Join(base, "home")}}
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
			rt := &runtime{sys: IO{Stderr: &stderr}}
			got := rt.openScratch(tc.parents, commandTempRefused(l, filepath.Join(base, "ws")))
			in := func(dir, parent string) bool {
				return parent != "" && strings.HasPrefix(filepath.Base(dir), scratchPrefix) && filepath.Dir(dir) == parent
			}
			switch {
			case tc.wantSpillIn == "" && got.spill != tc.parents[0]:
				t.Errorf("spill = %q, want the first parent", got.spill)
			case tc.wantSpillIn != "" && !in(got.spill, tc.wantSpillIn):
				t.Errorf("spill = %q, want a %s folder in %s", got.spill, scratchPrefix, tc.wantSpillIn)
			}
			switch {
			case tc.wantCmdIn == "" && (got.commands != "" || got.why == ""):
				t.Errorf("commands = %q (why %q), want none and a reason", got.commands, got.why)
			case tc.wantCmdIn != "" && (got.commands != filepath.Join(got.spill, commandTempName) || !in(got.spill, tc.wantCmdIn)):
				t.Errorf("commands = %q, want %s inside the spill folder in %s", got.commands, commandTempName, tc.wantCmdIn)
			}
			if fi, err := os.Stat(got.commands); got.commands != "" && (err != nil || fi.Mode().Perm() != 0o700) {
				t.Errorf("the commands' folder is not private: %v %v", fi, err)
			}
			if !strings.Contains(stderr.String(), tc.wantStderr) || tc.wantStderr == "" && stderr.Len() > 0 {
				t.Errorf("stderr = %q, want %q", stderr.String(), tc.wantStderr)
			}
			rt.Close()
			if got.spill != tc.parents[0] {
				if _, err := os.Lstat(got.spill); err == nil {
					t.Errorf("%s outlived the run", got.spill)
				}
			}
			// Folders passed over are gone at once.
			for _, p := range tc.parents {
				left, _ := filepath.Glob(filepath.Join(p, scratchPrefix+"*"))
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
		temp       runTemp
		want       string
		tell       bool
	}{
		{"not a temporary folder", filepath.Join(base, "ws"), runTemp{commands: "/tmp/wisp-run-1-a/tmp"}, "", true},
		{"TMPDIR, with a folder of their own", base, runTemp{commands: "/tmp/wisp-run-1-a/tmp"}, "", false},
		{"/tmp, with none", "/tmp", runTemp{}, "; commands have no writable temporary folder: set TMPDIR to a folder outside the wisp home", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, tell := tempFix(tc.root, base, tc.temp); got != tc.want || tell != tc.tell {
				t.Errorf("tempFix = %q, %v; want %q, %v", got, tell, tc.want, tc.tell)
			}
		})
	}
}
