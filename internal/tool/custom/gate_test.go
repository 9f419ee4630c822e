package custom_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/custom"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// TestMain lets the test binary serve as the sandbox helper, exactly as
// the wisp binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// recorder answers every question with allow (or deny) and keeps them.
type recorder struct {
	mu    sync.Mutex
	allow bool
	asked []gate.Request
}

func (r *recorder) Approve(_ context.Context, req gate.Request) (gate.Answer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, req)
	return gate.Answer{Allow: r.allow, Scope: approval.ScopeOnce, Reason: "test"}, nil
}

// world is a workspace and a wisp home with a real gate, sandbox and
// audit log over them.
type world struct {
	work, home, wispHome, tmp string
	gate                      *gate.Gate
	asker                     *recorder
}

func newWorld(t *testing.T, allow bool) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{work: filepath.Join(base, "work"), home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"), asker: &recorder{allow: allow}}
	w.wispHome = filepath.Join(w.home, ".wisp")
	for _, d := range []string{w.work, w.wispHome, w.tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", w.home)
	t.Setenv("WISP_HOME", w.wispHome)
	log, err := audit.Open(audit.Dir(w.wispHome), audit.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, landlock := sandbox.Available()
	w.gate = gate.New(gate.Options{
		Approver:       w.asker,
		Threshold:      approval.ThresholdModerate,
		Classifier:     shell.NewCache(0),
		ShellOptions:   shell.Options{Workdir: w.work, Home: w.home, TempDir: w.tmp},
		Sandbox:        sandbox.Config{Enabled: true, Workdir: w.work, WispHome: w.wispHome, TempDir: w.tmp},
		Self:           self,
		Sandboxed:      landlock,
		CommandTimeout: 10 * time.Second,
		Protected:      workspace.NewProtection(w.home, nil, w.wispHome).Match,
		Audit:          log,
		Session:        "test-session",
	})
	return w
}

func (w *world) tool(t *testing.T, config string) *custom.Tool {
	t.Helper()
	tools, err := custom.Parse(json.RawMessage(config), []string{"bash", "run_command"}, custom.Options{Home: w.home})
	if err != nil {
		t.Fatal(err)
	}
	return tools[0]
}

func (w *world) run(t *testing.T, id string, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := w.gate.Run(context.Background(), gate.Call{ID: id, Name: tl.Spec().Name, Args: json.RawMessage(args), Turn: 1},
		tl, tool.Env{Workdir: w.work, TempDir: w.tmp})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// lines returns one call's audit lines in the order they were written.
func (w *world) lines(t *testing.T, call string) []audit.Line {
	t.Helper()
	all, err := audit.Read(audit.Dir(w.wispHome), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Line
	for _, l := range all {
		if l.Call == call {
			out = append(out, l)
		}
	}
	return out
}

func decode[T audit.Details](t *testing.T, ls []audit.Line, kind string) T {
	t.Helper()
	for _, l := range ls {
		if l.Kind == kind {
			d, err := l.Decode()
			if err != nil {
				t.Fatal(err)
			}
			return d.(T)
		}
	}
	t.Fatalf("no %s line", kind)
	var zero T
	return zero
}

// kindsIn lists the kinds of ls that are among want, in order.
func kindsIn(ls []audit.Line, want ...string) []string {
	var out []string
	for _, l := range ls {
		for _, k := range want {
			if l.Kind == k {
				out = append(out, k)
			}
		}
	}
	return out
}

const sayTool = `[{"name":"say","description":"Says a word.","arguments":{"word":{"type":"string"}},"command":"echo {word}"}]`

// TestGateRunsSubstitutedLine runs a call through the real gate: the
// classifier judges the substituted line, the command runs in the
// sandbox, and a value that tries to add a command stays text.
func TestGateRunsSubstitutedLine(t *testing.T) {
	w := newWorld(t, true)
	say := w.tool(t, sayTool)
	res := w.run(t, "c1", say, `{"word":"x; touch pwned"}`)
	if res.IsError || !strings.Contains(res.Content, "stdout:\nx; touch pwned\n") {
		t.Fatalf("result:\n%s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(w.work, "pwned")); err == nil {
		t.Fatal("the value ran touch")
	}

	ls := w.lines(t, "c1")
	order := kindsIn(ls, audit.KindToolCall, audit.KindClassifierVerdict, audit.KindCommandOutcome)
	if strings.Join(order, " ") != "tool.call classifier.verdict command.outcome" {
		t.Fatalf("audit order %v", order)
	}
	const line = "echo 'x; touch pwned'"
	call := decode[audit.ToolCall](t, ls, audit.KindToolCall)
	if call.Tool != "say" || call.Class != "command" || call.Args != `{"word":"x; touch pwned"}` {
		t.Errorf("tool.call = %+v", call)
	}
	v := decode[audit.ClassifierVerdict](t, ls, audit.KindClassifierVerdict)
	if v.Line != line {
		t.Errorf("the classifier judged %q, want the substituted %q", v.Line, line)
	}
	if len(v.Parts) != 1 || v.Parts[0].Program != "echo" {
		t.Errorf("verdict parts %+v: the value split the line", v.Parts)
	}
	o := decode[audit.CommandOutcome](t, ls, audit.KindCommandOutcome)
	_, landlock := sandbox.Available()
	if o.Line != line || o.ExitCode != 0 || o.Sandboxed != landlock {
		t.Errorf("command.outcome = %+v (Landlock available: %v)", o, landlock)
	}
	if len(w.asker.asked) != 0 {
		t.Errorf("echo was asked about: %+v", w.asker.asked)
	}
}

// TestGateAsksAboutSubstitutedLine: a template that deletes is asked
// about as the same command would be, with the value in the question,
// and a refusal runs nothing.
func TestGateAsksAboutSubstitutedLine(t *testing.T) {
	w := newWorld(t, false)
	rm := w.tool(t, `[{"name":"drop","description":"Deletes a file.","arguments":{"path":{"type":"string"}},"command":"rm -- {path}"}]`)
	victim := filepath.Join(w.work, "keep me.txt")
	if err := os.WriteFile(victim, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := w.run(t, "c2", rm, `{"path":"keep me.txt"}`)
	if !res.IsError || !strings.Contains(res.Content, "command not approved: rm -- 'keep me.txt'") {
		t.Fatalf("result:\n%s", res.Content)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatal("the refused command ran")
	}
	if len(w.asker.asked) != 1 || w.asker.asked[0].Subject != "rm -- 'keep me.txt'" || w.asker.asked[0].Tool != "drop" {
		t.Fatalf("questions %+v", w.asker.asked)
	}
	ls := w.lines(t, "c2")
	if got := kindsIn(ls, audit.KindCommandOutcome); len(got) != 0 {
		t.Errorf("a refused call has a command.outcome")
	}
}

// TestGateBadValueRunsNothing: a wrong value is the model's error; the
// gate judges nothing and nothing runs.
func TestGateBadValueRunsNothing(t *testing.T) {
	w := newWorld(t, true)
	tl := w.tool(t, `[{"name":"issue","description":"Shows an issue.","arguments":{"number":{"type":"integer"}},"command":"touch ran; echo {number}"}]`)
	res := w.run(t, "c3", tl, `{"number":"1; touch pwned"}`)
	if want := `error: issue: argument 'number' must be an integer, not "1; touch pwned"`; !res.IsError || res.Content != want {
		t.Fatalf("result %q, want %q", res.Content, want)
	}
	for _, f := range []string{"ran", "pwned"} {
		if _, err := os.Stat(filepath.Join(w.work, f)); err == nil {
			t.Errorf("%s exists: the call ran", f)
		}
	}
	ls := w.lines(t, "c3")
	if got := kindsIn(ls, audit.KindToolCall, audit.KindClassifierVerdict, audit.KindCommandOutcome, audit.KindToolResult); strings.Join(got, " ") != "tool.call tool.result" {
		t.Fatalf("audit kinds %v", got)
	}
}
