package bashtool

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/tool"
)

func bashEnv(t *testing.T) *tool.Env {
	t.Helper()
	return &tool.Env{Workdir: t.TempDir(), TempDir: t.TempDir(), Shell: testShell}
}

// testShell is the plain shell the sandbox helper would run, unconfined:
// these tests are about the tool, not the sandbox, and the gate is what
// supplies a shell in wisp.
func testShell(line, dir string) *exec.Cmd { return sandbox.Command(sandbox.Config{}, "", line, dir) }

func bashCallT(t *testing.T, b *Tool, env *tool.Env, args string) tool.Result {
	t.Helper()
	res, err := b.Run(context.Background(), env, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Run(%s): harness error %v", args, err)
	}
	return res
}

func TestBashArgs(t *testing.T) {
	tests := []struct {
		name string
		args string
		line string // for valid calls: what CommandLine returns
		err  string // for malformed calls: part of the error
	}{
		{name: "run default", args: `{"command":"ls -la"}`, line: "ls -la"},
		{name: "run explicit", args: `{"operation":"run","command":"make","timeout":120}`, line: "make"},
		{name: "start", args: `{"operation":"start","command":"npm run dev","lifetime_seconds":600,"yield_seconds":2}`, line: "npm run dev"},
		{name: "poll", args: `{"operation":"poll","process_id":"p1","wait_seconds":5}`, line: ""},
		{name: "cancel", args: `{"operation":"cancel","process_id":"p1"}`, line: ""},
		{name: "nulls are absent", args: `{"command":"true","timeout":null,"process_id":null}`, line: "true"},
		{name: "fractional seconds", args: `{"command":"true","timeout":0.5}`, line: "true"},
		{name: "empty", args: ``, err: "expected a JSON object"},
		{name: "array", args: `[]`, err: "expected a JSON object"},
		{name: "not json", args: `{command`, err: "bash arguments"},
		{name: "missing command", args: `{}`, err: "command is required for run"},
		{name: "blank command", args: `{"command":"  "}`, err: "command is required for run"},
		{name: "command not a string", args: `{"command":["ls"]}`, err: "command must be a string"},
		{name: "unknown field", args: `{"cmd":"ls"}`, err: `unknown field "cmd"`},
		{name: "unknown operation", args: `{"operation":"kill","process_id":"p1"}`, err: `unknown operation "kill"`},
		{name: "field of another operation", args: `{"command":"ls","lifetime_seconds":10}`, err: "lifetime_seconds does not apply to operation run"},
		{name: "timeout with start", args: `{"operation":"start","command":"ls","timeout":10}`, err: "timeout does not apply to operation start"},
		{name: "poll without id", args: `{"operation":"poll"}`, err: "process_id is required for poll"},
		{name: "negative timeout", args: `{"command":"ls","timeout":-1}`, err: "timeout must be a positive number"},
		{name: "zero timeout", args: `{"command":"ls","timeout":0}`, err: "timeout must be a positive number"},
		{name: "timeout too long", args: `{"command":"ls","timeout":99999}`, err: "timeout is at most 3600s"},
		{name: "wait too long", args: `{"operation":"poll","process_id":"p1","wait_seconds":31}`, err: "wait_seconds is at most 30s"},
		{name: "timeout as string", args: `{"command":"ls","timeout":"60"}`, err: "timeout must be a number"},
	}
	b := New()
	env := bashEnv(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, err := b.CommandLine(json.RawMessage(tc.args))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("CommandLine error %v, want %q", err, tc.err)
				}
				res := bashCallT(t, b, env, tc.args)
				if !res.IsError || !strings.Contains(res.Content, tc.err) {
					t.Fatalf("Run = %+v, want error %q", res, tc.err)
				}
				return
			}
			if err != nil || line != tc.line {
				t.Fatalf("CommandLine = %q, %v; want %q", line, err, tc.line)
			}
		})
	}
}

func TestBashRun(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    []string // lines or fragments the result holds, in order
		absent  []string
		isError bool
	}{
		{name: "success", args: `{"command":"echo hello"}`, want: []string{"exit_code: 0\nstdout:\nhello\n"}, absent: []string{"stderr:"}},
		{name: "exit code and streams", args: `{"command":"echo out; echo err >&2; exit 3"}`, want: []string{"exit_code: 3\n", "stdout:\nout\n", "stderr:\nerr\n"}},
		{name: "only stderr", args: `{"command":"echo err >&2"}`, want: []string{"stderr:\nerr\n"}, absent: []string{"stdout:"}},
		{name: "no output", args: `{"command":"true"}`, want: []string{"exit_code: 0\n(no output)\n"}},
		{name: "no final newline", args: `{"command":"printf abc"}`, want: []string{"stdout:\nabc\n"}},
		{name: "stdin is /dev/null", args: `{"command":"cat; echo done","timeout":10}`, want: []string{"exit_code: 0\nstdout:\ndone\n"}},
		{name: "cwd is the workspace", args: `{"command":"pwd -P"}`, want: []string{"stdout:\n" + "WORKDIR\n"}},
		{name: "crlf", args: `{"command":"printf 'a\\r\\nb\\r\\n'"}`, want: []string{"stdout:\na\r\nb\r\n"}},
		{name: "unicode", args: `{"command":"echo 'héllo ✓ 日本'"}`, want: []string{"héllo ✓ 日本\n"}},
		{name: "binary", args: `{"command":"printf 'a\\000b\\377c'"}`, want: []string{"stdout:\na\x00b\uFFFDc\n"}},
		{name: "signal", args: `{"command":"kill -KILL $$"}`, want: []string{"exit_code: -1 (ended by SIGKILL)\n"}},
		{name: "timeout", args: `{"command":"echo started; sleep 100","timeout":0.3}`, want: []string{"exit_code: -1 (ended by SIGTERM)\n", "timed_out: after 0.3s", "stdout:\nstarted\n"}, isError: true},
		{name: "truncated", args: `{"command":"seq 1 3000"}`, want: []string{"stdout:\n[stdout truncated: kept last 2000 of 3000 lines; full output: TEMPDIR/wisp-stdout-", "]\n1001\n", "\n3000\n"}},
		{name: "background job ends with the command", args: `{"command":"sleep 100 & echo bg"}`, want: []string{"exit_code: 0\nstdout:\nbg\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := bashEnv(t)
			work, err := filepath.EvalSymlinks(env.Workdir)
			if err != nil {
				t.Fatal(err)
			}
			res := bashCallT(t, New(), env, tc.args)
			if res.IsError != tc.isError {
				t.Errorf("IsError = %v", res.IsError)
			}
			if !utf8.ValidString(res.Content) {
				t.Errorf("result is not valid UTF-8: %q", res.Content)
			}
			rest := res.Content
			for _, w := range tc.want {
				w = strings.NewReplacer("WORKDIR", work, "TEMPDIR", env.TempDir).Replace(w)
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("result lacks %q (in order):\n%s", w, res.Content)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tc.absent {
				if strings.Contains(res.Content, a) {
					t.Errorf("result holds %q:\n%s", a, res.Content)
				}
			}
		})
	}
}

func TestBashTruncatedFileHoldsAll(t *testing.T) {
	env := bashEnv(t)
	res := bashCallT(t, New(), env, `{"command":"seq 1 5000; seq 1 3 >&2"}`)
	m := regexp.MustCompile(`full output: (\S+)\]`).FindStringSubmatch(res.Content)
	if m == nil {
		t.Fatalf("no file in:\n%.300s", res.Content)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	want, _ := exec.Command("seq", "1", "5000").Output()
	if string(b) != string(want) {
		t.Fatalf("file holds %d bytes, want %d", len(b), len(want))
	}
	if !strings.HasSuffix(res.Content, "stderr:\n1\n2\n3\n") || strings.Contains(res.Content, "stderr truncated") {
		t.Fatalf("stderr section wrong:\n%s", res.Content[len(res.Content)-100:])
	}
}

// The gate supplies the process for a line; bash must use it.
func TestBashUsesEnvShell(t *testing.T) {
	env := bashEnv(t)
	var gotLine, gotDir string
	env.Shell = func(line, dir string) *exec.Cmd {
		gotLine, gotDir = line, dir
		return exec.Command("/bin/sh", "-c", "echo wrapped; "+line)
	}
	res := bashCallT(t, New(), env, `{"command":"echo inner"}`)
	if gotLine != "echo inner" || gotDir != env.Workdir || !strings.Contains(res.Content, "wrapped\ninner\n") {
		t.Fatalf("line %q dir %q result:\n%s", gotLine, gotDir, res.Content)
	}
}

func TestBashManaged(t *testing.T) {
	b := New()
	defer b.Close()
	env := bashEnv(t)
	gate := filepath.Join(env.Workdir, "go")

	res := bashCallT(t, b, env, `{"operation":"start","command":"echo first; while [ ! -e go ]; do sleep 0.01; done; echo second; echo warn >&2; exit 4","yield_seconds":0}`)
	if res.IsError || !strings.HasPrefix(res.Content, "process_id: p1\nstate: running\n") {
		t.Fatalf("start:\n%s", res.Content)
	}
	seen := res.Content
	for !strings.Contains(seen, "first") {
		res = bashCallT(t, b, env, `{"operation":"poll","process_id":"p1","wait_seconds":0.05}`)
		if !strings.Contains(res.Content, "state: running") {
			t.Fatalf("poll before go:\n%s", res.Content)
		}
		seen += res.Content
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res = bashCallT(t, b, env, `{"operation":"poll","process_id":"p1","wait_seconds":10}`)
	want := "process_id: p1\nstate: exited\nexit_code: 4\nstdout:\nsecond\nstderr:\nwarn\n"
	if res.Content != want {
		t.Fatalf("final poll:\n%s\nwant:\n%s", res.Content, want)
	}
	res = bashCallT(t, b, env, `{"operation":"poll","process_id":"p1"}`)
	if !strings.HasSuffix(res.Content, "exit_code: 4\n(no new output)\n") {
		t.Fatalf("poll after end:\n%s", res.Content)
	}

	res = bashCallT(t, b, env, `{"operation":"start","command":"echo up; sleep 100"}`)
	if !strings.Contains(res.Content, "process_id: p2\nstate: running\nstdout:\nup\n") {
		t.Fatalf("start with yield:\n%s", res.Content)
	}
	res = bashCallT(t, b, env, `{"operation":"cancel","process_id":"p2"}`)
	if !strings.HasPrefix(res.Content, "process_id: p2\nstate: killed\nexit_code: -1 (ended by SIGTERM)\n") {
		t.Fatalf("cancel:\n%s", res.Content)
	}

	res = bashCallT(t, b, env, `{"operation":"start","command":"sleep 100","lifetime_seconds":0.2,"yield_seconds":0}`)
	if !strings.Contains(res.Content, "p3") {
		t.Fatalf("start:\n%s", res.Content)
	}
	res = bashCallT(t, b, env, `{"operation":"poll","process_id":"p3","wait_seconds":10}`)
	if !strings.Contains(res.Content, "state: timed_out\n") {
		t.Fatalf("after lifetime:\n%s", res.Content)
	}

	res = bashCallT(t, b, env, `{"operation":"poll","process_id":"p9"}`)
	if !res.IsError || !strings.Contains(res.Content, `no process "p9"; known: p1, p2, p3`) {
		t.Fatalf("unknown id:\n%s", res.Content)
	}
}

func TestBashProcessTableAndClose(t *testing.T) {
	b := New()
	env := bashEnv(t)
	start := `{"operation":"start","command":"sleep 100","yield_seconds":0}`
	for i := 0; i < bashMaxProcesses; i++ {
		if res := bashCallT(t, b, env, start); res.IsError {
			t.Fatalf("start %d: %s", i, res.Content)
		}
	}
	if res := bashCallT(t, b, env, start); !res.IsError || !strings.Contains(res.Content, "cancel one first") {
		t.Fatalf("start over the limit: %+v", res)
	}
	bashCallT(t, b, env, `{"operation":"cancel","process_id":"p1"}`)
	if res := bashCallT(t, b, env, start); res.IsError || !strings.Contains(res.Content, "process_id: p17") {
		t.Fatalf("start after cancel: %+v", res)
	}
	if res := bashCallT(t, b, env, `{"operation":"poll","process_id":"p1"}`); !res.IsError {
		t.Fatalf("p1 should have made room: %+v", res)
	}

	b.Close()
	for _, id := range []string{"p2", "p17"} {
		res := bashCallT(t, b, env, `{"operation":"poll","process_id":"`+id+`"}`)
		if !strings.Contains(res.Content, "state: killed") {
			t.Fatalf("%s after Close:\n%s", id, res.Content)
		}
	}
	if res := bashCallT(t, b, env, start); !res.IsError || !strings.Contains(res.Content, "session is ending") {
		t.Fatalf("start after Close: %+v", res)
	}
}

func TestBashContextCancel(t *testing.T) {
	env := bashEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() {
		res, _ := New().Run(ctx, env, json.RawMessage(`{"command":"touch started; sleep 100"}`))
		done <- res
	}()
	for {
		if _, err := os.Stat(filepath.Join(env.Workdir, "started")); err == nil {
			break
		}
		select {
		case res := <-done:
			t.Fatalf("ended early: %+v", res)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "canceled: the run was interrupted before the command finished; the process group was ended") {
		t.Fatalf("after cancel: %+v", res)
	}
}

func TestBashSpec(t *testing.T) {
	tests := []struct {
		tool     tool.Tool
		name     string
		class    tool.Class
		maxBytes int
	}{
		{New(), "bash", tool.Command, 900},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.tool.Spec()
			if s.Name != tc.name || s.Class != tc.class {
				t.Fatalf("spec %s %s", s.Name, s.Class)
			}
			if s.Description == "" || len(s.Description) > tc.maxBytes {
				t.Fatalf("description is %d bytes, want 1..%d", len(s.Description), tc.maxBytes)
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s.Schema, &schema); err != nil || schema.Type != "object" || schema.Properties == nil {
				t.Fatalf("schema %s: %v", s.Schema, err)
			}
		})
	}
	if _, ok := tool.Tool(New()).(tool.CommandLiner); !ok {
		t.Fatal("bash is not a CommandLiner")
	}
}

// TestBashNeedsAShell: bash run and start refuse to run anything when no
// shell was supplied, and say why.
func TestBashNeedsAShell(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"run", `{"command":"touch ran"}`, "error: could not run the command: no shell was supplied"},
		{"start", `{"operation":"start","command":"touch ran","yield_seconds":0}`, "error: could not start the command: no shell was supplied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := bashEnv(t)
			env.Shell = nil
			b := New()
			defer b.Close()
			res := bashCallT(t, b, env, tc.args)
			if !res.IsError || !strings.HasPrefix(res.Content, tc.want) {
				t.Errorf("got %q, want %q…", res.Content, tc.want)
			}
			if _, err := os.Stat(filepath.Join(env.Workdir, "ran")); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

// TestBashDescribesItself: the catalogue asks bash for its limits and
// example; a command tool changes files only through the shell, so it is
// no tool.Mutator.
func TestBashDescribesItself(t *testing.T) {
	tl := tool.Tool(New())
	d, ok := tl.(tool.Describer)
	if !ok {
		t.Fatal("does not implement tool.Describer")
	}
	limits, example := d.Describe()
	if example == "" {
		t.Error("no example prompt")
	}
	for _, l := range limits {
		if strings.TrimSpace(l) == "" {
			t.Errorf("blank limit in %q", limits)
		}
	}
	if _, ok := tl.(tool.Mutator); ok != (tl.Spec().Class == tool.Mutating) {
		t.Errorf("class %s, implements tool.Mutator: %v", tl.Spec().Class, ok)
	}
}
