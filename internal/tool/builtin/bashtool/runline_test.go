package bashtool

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
)

func TestRunLine(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		dir     string // "sub": a folder under the workspace; "": the workspace
		timeout time.Duration
		envTO   time.Duration
		want    []string
		isError bool
		exit    int
		timed   bool
	}{
		{name: "output and status", line: "echo out; echo err >&2; exit 3", want: []string{"exit_code: 3\n", "stdout:\nout\n", "stderr:\nerr\n"}, exit: 3},
		{name: "no output", line: "true", want: []string{"exit_code: 0\n(no output)\n"}},
		{name: "runs in the workspace by default", line: "basename \"$PWD\"", want: []string{"work\n"}},
		{name: "runs in the given folder", line: "basename \"$PWD\"", dir: "sub", want: []string{"sub\n"}},
		{name: "zero timeout takes the session's", line: "sleep 5", envTO: 200 * time.Millisecond, want: []string{"timed_out: after 0.2s"}, isError: true, exit: -1, timed: true},
		{name: "own timeout beats the session's", line: "sleep 5", timeout: 300 * time.Millisecond, envTO: time.Hour, want: []string{"timed_out: after 0.3s"}, isError: true, exit: -1, timed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			work := filepath.Join(base, "work")
			if err := os.MkdirAll(filepath.Join(work, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			var shellDir string
			env := &tool.Env{Workdir: work, TempDir: t.TempDir(), CommandTimeout: tc.envTO,
				Shell: func(line, dir string) *exec.Cmd {
					shellDir = dir
					return testShell(line, dir)
				}}
			dir := ""
			if tc.dir != "" {
				dir = filepath.Join(work, tc.dir)
			}
			res := RunLine(context.Background(), env, tc.line, dir, tc.timeout)
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Content)
				}
			}
			if want := map[bool]string{true: dir, false: work}[dir != ""]; shellDir != want {
				t.Errorf("env.Shell got dir %q, want %q", shellDir, want)
			}
			if res.IsError != tc.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tc.isError)
			}
			if res.Command == nil {
				t.Fatal("no Command outcome for the gate")
			}
			if res.Command.ExitCode != tc.exit || res.Command.TimedOut != tc.timed {
				t.Errorf("Command = %+v, want exit %d, timed out %v", res.Command, tc.exit, tc.timed)
			}
		})
	}
}

// TestRunLineMatchesBash proves bash's run operation is RunLine: the same
// line gives the same report.
func TestRunLineMatchesBash(t *testing.T) {
	env := bashEnv(t)
	line := "printf 'a\\nb'; echo oops >&2; exit 1"
	direct := RunLine(context.Background(), env, line, "", 0)
	viaBash := bashCallT(t, New(), env, `{"command":"printf 'a\\nb'; echo oops >&2; exit 1"}`)
	if direct.Content != viaBash.Content || direct.IsError != viaBash.IsError {
		t.Fatalf("RunLine and bash differ:\n%q\n%q", direct.Content, viaBash.Content)
	}
}

// TestRunLineNeedsAShell: without the gate's shell nothing runs, and the
// result says why; there is no unsandboxed fallback.
func TestRunLineNeedsAShell(t *testing.T) {
	dir := t.TempDir()
	line := "touch " + filepath.Join(dir, "ran")
	for name, env := range map[string]*tool.Env{"nil env": nil, "no shell": {Workdir: dir, TempDir: t.TempDir()}} {
		t.Run(name, func(t *testing.T) {
			res := RunLine(context.Background(), env, line, dir, 0)
			const want = "error: could not run the command: no shell was supplied: commands run only through wisp's gate, which wraps them in the sandbox"
			if !res.IsError || res.Content != want || res.Command != nil {
				t.Errorf("RunLine = %+v, want %q", res, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
				t.Error("the line ran")
			}
		})
	}
}

func TestRunLineCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := RunLine(ctx, bashEnv(t), "echo hi", "", 0)
	if !res.IsError || !strings.HasPrefix(res.Content, "error: could not run the command") {
		t.Fatalf("cancelled RunLine = %+v", res)
	}
}
