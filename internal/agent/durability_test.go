package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// dyingSink hands events to a transcript until the event that kills the
// process has been written: from then on nothing reaches the file, as
// when wisp is killed at that point.
type dyingSink struct {
	mu   sync.Mutex
	w    *transcript.Writer
	dead bool
	// diesAfter says whether e is the last event the transcript gets.
	diesAfter func(e event.Event) bool
	t         *testing.T
}

func (d *dyingSink) sink(e event.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dead {
		return
	}
	if err := d.w.Record(e); err != nil {
		d.t.Error(err)
	}
	d.dead = d.diesAfter(e)
}

// TestResultsSurviveADeathMidResponse runs a response of three calls,
// lets the transcript die after the second result (or after the third
// call's start), and resumes: the two results are the real ones, and the
// third is "interrupted" when it had started, "not run" when it had not.
func TestResultsSurviveADeathMidResponse(t *testing.T) {
	cases := []struct {
		name      string
		diesAfter func(e event.Event) bool
		third     string
	}{
		{
			name:      "third call never started",
			diesAfter: func(e event.Event) bool { r, ok := e.(event.ToolResult); return ok && r.CallID == "c2" },
			third:     NotRun,
		},
		{
			name:      "third call started",
			diesAfter: func(e event.Event) bool { r, ok := e.(event.ToolStart); return ok && r.CallID == "c3" },
			third:     transcript.Interrupted,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := transcript.Create(dir, transcript.Header{Cwd: "/p"})
			if err != nil {
				t.Fatal(err)
			}
			d := &dyingSink{w: w, diesAfter: tc.diesAfter, t: t}
			change := &echoTool{name: "change", class: tool.Mutating}
			p := &scripted{turns: []chat.Message{
				answer(text("three changes"), call("c1", "change", `{"n":1}`), call("c2", "change", `{"n":2}`), call("c3", "change", `{"n":3}`)),
				answer(text("done")),
			}}
			a := New(Options{Provider: p, Tools: tool.NewRegistry(change), Gate: gate.New(gate.Options{Approver: gate.Allow{}, Sink: d.sink}), MaxToolIterations: -1, Sink: d.sink}, nil)
			if _, err := a.Run(context.Background(), "change three things"); err != nil {
				t.Fatal(err)
			}
			w.Close()

			w2, tr, err := transcript.Open(w.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			p2 := &scripted{turns: []chat.Message{answer(text("resumed"))}}
			b := New(Options{Provider: p2, Tools: tool.NewRegistry(change), MaxToolIterations: -1}, tr.Messages())
			if _, err := b.Run(context.Background(), "what happened?"); err != nil {
				t.Fatal(err)
			}
			sent := p2.seen[0]
			if len(sent) != 3 {
				t.Fatalf("resumed request has %d messages, want prompt, answer, results+prompt:\n%v", len(sent), sent)
			}
			want := []string{`change:{"n":1}`, `change:{"n":2}`, tc.third}
			results := sent[2].Content
			for i, w := range want {
				if i >= len(results) || results[i].Type != chat.ToolResult || results[i].ToolUseID != "c"+string(rune('1'+i)) || results[i].Text != w {
					t.Fatalf("result %d: %+v, want %q for c%d (all: %+v)", i, results[min(i, len(results)-1)], w, i+1, results)
				}
			}
			if last := results[len(results)-1]; last.Type != chat.Text || !strings.Contains(last.Text, "what happened") {
				t.Errorf("the new prompt should follow the results: %+v", last)
			}
		})
	}
}

// TestResultsAreWrittenOnce checks that the tool-result message the loop
// writes after its calls adds nothing to what the per-call records hold,
// and that a reload gives the conversation the loop had.
func TestResultsAreWrittenOnce(t *testing.T) {
	w, err := transcript.Create(t.TempDir(), transcript.Header{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	look := &echoTool{name: "look", class: tool.Read}
	p := &scripted{turns: []chat.Message{
		answer(call("a", "look", `{"n":1}`), call("b", "look", `{"n":2}`), call("c", "look", `{"n":3}`)),
		answer(text("done")),
	}}
	sink := w.Sink(func(err error) { t.Error(err) })
	a := New(Options{Provider: p, Tools: tool.NewRegistry(look), Gate: gate.New(gate.Options{Sink: sink}), MaxToolIterations: -1, Sink: sink}, nil)
	if _, err := a.Run(context.Background(), "look three times"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_, recs, err := transcript.Load(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	results := 0
	for _, r := range recs {
		if r.Message != nil {
			for _, b := range r.Message.Content {
				if b.Type == chat.ToolResult {
					results++
				}
			}
		}
	}
	if results != 3 {
		t.Errorf("transcript holds %d tool results, want 3 (one record per call, none repeated)", results)
	}
	got, want := transcript.Messages(recs), a.Messages()
	if len(got) != len(want) {
		t.Fatalf("reloaded %d messages, the loop had %d", len(got), len(want))
	}
	for i := range want {
		if g, w := dumpMsg(got[i]), dumpMsg(want[i]); g != w {
			t.Errorf("message %d reloaded as\n%s\nthe loop had\n%s", i, g, w)
		}
	}
}

func dumpMsg(m chat.Message) string {
	var b strings.Builder
	b.WriteString(string(m.Role))
	for _, c := range m.Content {
		b.WriteString("|" + string(c.Type) + ":" + c.ID + c.ToolUseID + ":" + c.Text)
	}
	return b.String()
}
