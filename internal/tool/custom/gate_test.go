package custom_test

import (
	"context"
	"encoding/json"
	"github.com/wisp-agent/wisp/internal/gate/gatetest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/custom"
)

func TestMain(m *testing.M) { gatetest.Main(m) }

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

// world is the shared gate test world with a recording approver.
type world struct {
	*gatetest.World
	asker *recorder
}

func newWorld(t *testing.T, allow bool) *world {
	asker := &recorder{allow: allow}
	return &world{World: gatetest.New(t, func(o *gate.Options) { o.Approver = asker; o.Approvals = nil }), asker: asker}
}

func (w *world) tool(t *testing.T, config string) *custom.Tool {
	t.Helper()
	tools, err := custom.Parse(json.RawMessage(config), []string{"bash", "run_command"}, custom.Options{Home: w.Home})
	if err != nil {
		t.Fatal(err)
	}
	return tools[0]
}

func (w *world) run(t *testing.T, id string, tl tool.Tool, args string) tool.Result {
	return w.Run(t, id, tl, args)
}

func (w *world) lines(t *testing.T, call string) []audit.Line { return w.Lines(t, call) }

func decode[T audit.Details](t *testing.T, ls []audit.Line, kind string) T {
	t.Helper()
	return gatetest.Decode[T](t, ls, kind)
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
	if _, err := os.Stat(filepath.Join(w.Work, "pwned")); err == nil {
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
	victim := filepath.Join(w.Work, "keep me.txt")
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
		if _, err := os.Stat(filepath.Join(w.Work, f)); err == nil {
			t.Errorf("%s exists: the call ran", f)
		}
	}
	ls := w.lines(t, "c3")
	if got := kindsIn(ls, audit.KindToolCall, audit.KindClassifierVerdict, audit.KindCommandOutcome, audit.KindToolResult); strings.Join(got, " ") != "tool.call tool.result" {
		t.Fatalf("audit kinds %v", got)
	}
}
