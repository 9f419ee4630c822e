package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
)

// TestMutatingBuiltinsNameTheirSubject: for each file-changing built-in,
// the question a person is asked carries the path, size and preview the
// tool itself reports, in the words the approval question has always
// used, and the audit names the file written.
func TestMutatingBuiltinsNameTheirSubject(t *testing.T) {
	tests := []struct {
		name    string
		tl      tool.Tool
		setup   string // content of a.txt before the call ("": none)
		args    string
		subject string
		preview string
	}{
		{"write", builtin.Write(), "", `{"path":"a.txt","content":"hello\nworld"}`,
			`write "a.txt" (11 bytes, 2 lines)`, "+ hello\n+ world"},
		{"edit, one pair", builtin.Edit(), "a\nb\n", `{"path":"a.txt","old_text":"a\nb","new_text":"c"}`,
			`edit "a.txt"`, "- a\n- b\n+ c"},
		{"edit, a list", builtin.Edit(), "a\nc\n", `{"path":"a.txt","edits":[{"old_text":"a","new_text":"b"},{"old_text":"c","new_text":"d"}]}`,
			`edit "a.txt" (2 edits)`, "- a\n+ b\n…\n- c\n+ d"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ap := &countingApprover{answer: gate.Answer{Allow: true}}
			w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
			if tc.setup != "" {
				if err := os.WriteFile(filepath.Join(w.Work, "a.txt"), []byte(tc.setup), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if res := w.run(t, "c", tc.tl, tc.args); res.IsError {
				t.Fatalf("call failed: %s", res.Content)
			}
			if len(ap.asked) != 1 {
				t.Fatalf("asked %d times, want once", len(ap.asked))
			}
			got := ap.asked[0]
			if got.Subject != tc.subject || got.Preview != tc.preview || got.Level != shell.Moderate {
				t.Errorf("asked %q (%v) with preview %q, want %q (moderate) with %q", got.Subject, got.Level, got.Preview, tc.subject, tc.preview)
			}
			writes := w.lines(t, "c")["file.write"]
			if len(writes) != 1 {
				t.Fatalf("%d file.write lines, want 1", len(writes))
			}
			d, err := writes[0].Decode()
			if err != nil {
				t.Fatal(err)
			}
			if fw := d.(audit.FileWrite); fw.Path != filepath.Join(w.Work, "a.txt") || fw.Created != (tc.setup == "") {
				t.Errorf("audited %+v", fw)
			}
		})
	}
}

// ranTool is a test tool that tells whether it ran.
type ranTool interface {
	tool.Tool
	didRun() bool
}

// stub is a mutating tool whose subject is set by the test, apart from
// its arguments, so that a test can tell which one the gate judged.
type stub struct {
	subject tool.Subject
	err     error
	ran     bool
}

func (s *stub) Spec() tool.Spec {
	return tool.Spec{Name: "stub", Class: tool.Mutating, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (s *stub) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	s.ran = true
	return tool.Result{Content: "ok"}, nil
}

func (s *stub) Subject(json.RawMessage) (tool.Subject, error) { return s.subject, s.err }

func (s *stub) didRun() bool { return s.ran }

// plain declares the mutating class but cannot say what it changes.
type plain struct{ ran bool }

func (p *plain) Spec() tool.Spec {
	return tool.Spec{Name: "plain", Class: tool.Mutating, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (p *plain) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	p.ran = true
	return tool.Result{Content: "ok"}, nil
}

func (p *plain) didRun() bool { return p.ran }

// TestGateJudgesTheToolsSubject: the gate judges the paths the tool names,
// not a "path" it might find in the arguments; a tool that names a hook
// is dangerous even when its arguments look harmless.
func TestGateJudgesTheToolsSubject(t *testing.T) {
	ap := &countingApprover{answer: gate.Answer{Allow: true}}
	w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
	s := &stub{subject: tool.Subject{Paths: []string{"notes.txt", ".husky/pre-commit"}, Summary: "2 files", Preview: strings.Repeat("+ x\n", 30) + "+ end"}}
	if res := w.run(t, "c", s, `{"path":"harmless.txt"}`); res.IsError || !s.ran {
		t.Fatalf("call failed or did not run: %q", res.Content)
	}
	if len(ap.asked) != 1 {
		t.Fatalf("asked %d times, want once", len(ap.asked))
	}
	got := ap.asked[0]
	if got.Subject != `stub "notes.txt" ".husky/pre-commit" (2 files)` || got.Level != shell.Dangerous || got.Pattern != "" {
		t.Errorf("asked %q as %v (pattern %q), want both paths, dangerous, nothing to remember", got.Subject, got.Level, got.Pattern)
	}
	if !strings.HasPrefix(got.Preview, "+ x\n") || !strings.HasSuffix(got.Preview, "… (11 more lines)") {
		t.Errorf("preview not the tool's, bounded: %q", got.Preview)
	}
	if n := len(w.lines(t, "c")["file.write"]); n != 2 {
		t.Errorf("%d file.write lines, want one per path", n)
	}
}

// TestMutatingToolsThatCannotSayAreRefused: the gate fails closed when a
// mutating tool cannot name what a call changes; nobody is asked and
// nothing runs. Arguments the tool rejects reach the model in its words.
func TestMutatingToolsThatCannotSayAreRefused(t *testing.T) {
	tests := []struct {
		name    string
		tl      ranTool
		want    string
		refusal bool
	}{
		{"no Subject method", &plain{}, "error: tool plain does not declare the files it changes; refused", true},
		{"no path named", &stub{}, "error: tool stub does not name the files this call changes; refused", true},
		{"an empty path", &stub{subject: tool.Subject{Paths: []string{"a", ""}}}, "error: tool stub does not name the files this call changes; refused", true},
		{"arguments the tool rejects", &stub{err: errors.New("path is required")}, "error: path is required", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ap := &countingApprover{answer: gate.Answer{Allow: true}}
			w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
			res := w.run(t, "c", tc.tl, `{"path":"a.txt"}`)
			if !res.IsError || res.Content != tc.want || (res.Refusal != "") != tc.refusal {
				t.Errorf("got %q (refusal %q), want %q", res.Content, res.Refusal, tc.want)
			}
			if tc.tl.didRun() || len(ap.asked) != 0 {
				t.Errorf("ran %v, asked %d times; want neither", tc.tl.didRun(), len(ap.asked))
			}
		})
	}
}

// TestBuiltinArgumentErrorsAreTheTools: a write or edit with bad
// arguments is answered with the tool's own message before anyone is
// asked.
func TestBuiltinArgumentErrorsAreTheTools(t *testing.T) {
	tests := []struct {
		name string
		tl   tool.Tool
		args string
		want string
	}{
		{"write without a path", builtin.Write(), `{"content":"x"}`, "error: path is required"},
		{"write with a number", builtin.Write(), `{"path":"a","content":5}`, "error: invalid arguments: content must be a string, got number"},
		{"edit with both forms", builtin.Edit(), `{"path":"a","old_text":"x","new_text":"y","edits":[]}`, "error: give either old_text/new_text or edits, not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ap := &countingApprover{answer: gate.Answer{Allow: true}}
			w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
			if res := w.run(t, "c", tc.tl, tc.args); res.Content != tc.want || len(ap.asked) != 0 {
				t.Errorf("got %q after %d questions, want %q and none", res.Content, len(ap.asked), tc.want)
			}
		})
	}
}
