package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
			if filepath.Base(dir) != "tmp" || !strings.HasPrefix(filepath.Base(filepath.Dir(dir)), "wisp-run-") {
				t.Fatalf("TMPDIR %q is not a run's private folder", dir)
			}
			if _, err := os.Lstat(filepath.Dir(dir)); err == nil {
				t.Errorf("the run's folder %s outlived it", filepath.Dir(dir))
			}
		})
	}
}
