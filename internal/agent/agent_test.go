package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/tool"
)

// scripted answers each request with the next message; it runs in
// process so the loop's own cost can be measured.
type scripted struct {
	mu    sync.Mutex
	turns []chat.Message
	seen  [][]chat.Message
}

func (s *scripted) Stream(ctx context.Context, req provider.Request, cb provider.Callbacks) (provider.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, append([]chat.Message(nil), req.Messages...))
	if len(s.turns) == 0 {
		return provider.Response{}, errors.New("script exhausted")
	}
	m := s.turns[0]
	s.turns = s.turns[1:]
	if cb.Text != nil {
		for _, b := range m.Content {
			if b.Type == chat.Text {
				cb.Text(b.Text)
			}
		}
	}
	return provider.Response{Message: m, Usage: chat.Usage{InputTokens: 10, OutputTokens: 5}, StopReason: "end_turn"}, nil
}

// echoTool is a tool of a given class that records how many run at once.
type echoTool struct {
	name    string
	class   tool.Class
	running atomic.Int32
	peak    atomic.Int32
	delay   time.Duration
}

func (e *echoTool) Spec() tool.Spec {
	return tool.Spec{Name: e.name, Description: "echo", Schema: json.RawMessage(`{"type":"object"}`), Class: e.class}
}

// Subject names the file a mutating echo "changes", as the gate requires
// of every mutating tool.
func (e *echoTool) Subject(json.RawMessage) (tool.Subject, error) {
	return tool.Subject{Paths: []string{e.name + ".txt"}}, nil
}

func (e *echoTool) Run(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	if e.name == "boom" {
		panic("boom")
	}
	n := e.running.Add(1)
	defer e.running.Add(-1)
	for {
		p := e.peak.Load()
		if n <= p || e.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if e.delay > 0 {
		select {
		case <-time.After(e.delay):
		case <-ctx.Done():
			return tool.Result{}, ctx.Err()
		}
	}
	return tool.Result{Content: e.name + ":" + string(args)}, nil
}

func call(id, name, input string) chat.Block {
	return chat.Block{Type: chat.ToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

func answer(blocks ...chat.Block) chat.Message {
	return chat.Message{Role: chat.Assistant, Content: blocks}
}

func text(s string) chat.Block { return chat.Block{Type: chat.Text, Text: s} }

func TestLoop(t *testing.T) {
	tests := []struct {
		name      string
		turns     []chat.Message
		maxIters  int
		approver  gate.Approver
		wantFinal string
		wantErr   error
		// wantResults are the tool results sent back in the second request.
		wantResults []string
	}{
		{name: "plain answer", turns: []chat.Message{answer(text("hi"))}, maxIters: -1, wantFinal: "hi"},
		{
			name:        "one read call then answer",
			turns:       []chat.Message{answer(call("c1", "look", `{"a":1}`)), answer(text("done"))},
			maxIters:    -1,
			wantFinal:   "done",
			wantResults: []string{`look:{"a":1}`},
		},
		{
			name:        "unknown tool goes back as an error",
			turns:       []chat.Message{answer(call("c1", "nope", `{}`)), answer(text("ok"))},
			maxIters:    -1,
			wantFinal:   "ok",
			wantResults: []string{`error: unknown tool "nope"`},
		},
		{
			name:        "malformed arguments go back as an error",
			turns:       []chat.Message{answer(call("c1", "look", `{"a":`)), answer(text("ok"))},
			maxIters:    -1,
			wantFinal:   "ok",
			wantResults: []string{"error: malformed arguments for look"},
		},
		{
			name:        "mutating call denied",
			turns:       []chat.Message{answer(call("c1", "change", `{}`)), answer(text("ok"))},
			maxIters:    -1,
			approver:    gate.Deny{Reason: "print mode"},
			wantFinal:   "ok",
			wantResults: []string{"error: change not approved: print mode"},
		},
		{
			name:        "mutating call approved",
			turns:       []chat.Message{answer(call("c1", "change", `{}`)), answer(text("ok"))},
			maxIters:    -1,
			approver:    gate.Allow{},
			wantFinal:   "ok",
			wantResults: []string{"change:{}"},
		},
		{
			name:        "a tool that panics is an error result",
			turns:       []chat.Message{answer(call("c1", "boom", `{}`), call("c2", "look", `{}`)), answer(text("ok"))},
			maxIters:    -1,
			wantFinal:   "ok",
			wantResults: []string{"error: boom failed inside wisp (boom)", "look:{}"},
		},
		{
			name:     "iteration fuse",
			turns:    []chat.Message{answer(call("c1", "look", `{}`)), answer(call("c2", "look", `{}`)), answer(text("never"))},
			maxIters: 1,
			wantErr:  ErrMaxIterations,
		},
		{
			name:     "zero iterations runs no tool",
			turns:    []chat.Message{answer(call("c1", "look", `{}`))},
			maxIters: 0,
			wantErr:  ErrMaxIterations,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &scripted{turns: tc.turns}
			var events []event.Event
			var mu sync.Mutex
			sink := func(e event.Event) { mu.Lock(); events = append(events, e); mu.Unlock() }
			a := New(Options{
				Provider:          p,
				Tools:             tool.NewRegistry(&echoTool{name: "look", class: tool.Read}, &echoTool{name: "change", class: tool.Mutating}, &echoTool{name: "boom", class: tool.Read}),
				Gate:              gate.New(gate.Options{Approver: tc.approver, Sink: sink}),
				MaxToolIterations: tc.maxIters,
				Sink:              sink,
			}, nil)
			final, err := a.Run(context.Background(), "go")
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := final.TextOf(); got != tc.wantFinal && tc.wantErr == nil {
				t.Errorf("final = %q, want %q", got, tc.wantFinal)
			}
			if tc.wantResults != nil {
				second := p.seen[1]
				last := second[len(second)-1]
				for i, want := range tc.wantResults {
					if got := last.Content[i].Text; !strings.HasPrefix(got, want) {
						t.Errorf("result %d = %q, want prefix %q", i, got, want)
					}
				}
			}
			if events[0].Kind() != event.TypeAgentStart || events[len(events)-1].Kind() != event.TypeAgentEnd {
				t.Errorf("events must open with agent_start and close with agent_end: %v ... %v", events[0].Kind(), events[len(events)-1].Kind())
			}
			// Every tool_use in the final conversation has a result.
			msgs := a.Messages()
			if fixed := Repair(msgs); len(fixed) != len(msgs) {
				t.Errorf("conversation left unrepaired: %d messages, %d after repair", len(msgs), len(fixed))
			}
		})
	}
}

func TestReadCallsRunConcurrentlyOthersInOrder(t *testing.T) {
	look := &echoTool{name: "look", class: tool.Read, delay: 30 * time.Millisecond}
	change := &echoTool{name: "change", class: tool.Mutating, delay: 5 * time.Millisecond}
	p := &scripted{turns: []chat.Message{
		answer(call("a", "look", `{}`), call("b", "look", `{}`), call("c", "look", `{}`), call("d", "change", `{"n":1}`), call("e", "change", `{"n":2}`)),
		answer(text("ok")),
	}}
	a := New(Options{Provider: p, Tools: tool.NewRegistry(look, change), Gate: gate.New(gate.Options{Approver: gate.Allow{}}), MaxToolIterations: -1}, nil)
	if _, err := a.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if look.peak.Load() < 2 {
		t.Errorf("read calls peaked at %d concurrent, want ≥ 2", look.peak.Load())
	}
	if change.peak.Load() != 1 {
		t.Errorf("mutating calls peaked at %d concurrent, want 1", change.peak.Load())
	}
	results := p.seen[1][len(p.seen[1])-1].Content
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		if results[i].ToolUseID != id {
			t.Errorf("result %d answers %s, want %s", i, results[i].ToolUseID, id)
		}
	}
}

func TestCancelStopsTheRun(t *testing.T) {
	slow := &echoTool{name: "look", class: tool.Read, delay: 10 * time.Second}
	p := &scripted{turns: []chat.Message{answer(call("a", "look", `{}`)), answer(text("never"))}}
	a := New(Options{Provider: p, Tools: tool.NewRegistry(slow), MaxToolIterations: -1}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for slow.running.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := a.Run(ctx, "go")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	msgs := a.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != chat.User || last.Content[0].Type != chat.ToolResult || !last.Content[0].IsError {
		t.Errorf("the cancelled call must still get an error result, got %+v", last)
	}
}

// A prompt left unanswered by a cancelled turn is merged with the next
// one, so the provider never sees two user messages in a row.
func TestUnansweredPromptIsMerged(t *testing.T) {
	p := &scripted{turns: []chat.Message{answer(text("ok"))}}
	a := New(Options{Provider: p, MaxToolIterations: -1}, []chat.Message{chat.UserText("first, cancelled")})
	if _, err := a.Run(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	sent := p.seen[0]
	if len(sent) != 1 || len(sent[0].Content) != 2 {
		t.Fatalf("sent %+v, want one user message holding both prompts", sent)
	}
}

func TestRepair(t *testing.T) {
	msgs := []chat.Message{
		chat.UserText("go"),
		answer(call("a", "look", `{}`), call("b", "look", `{}`)),
		{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: "a", Text: "ok"}}},
		answer(call("c", "look", `{}`)),
	}
	got := Repair(msgs)
	if len(got) != 5 {
		t.Fatalf("got %d messages, want 5", len(got))
	}
	if r := got[2].Content; len(r) != 2 || r[1].ToolUseID != "b" || !r[1].IsError {
		t.Errorf("missing result for b not filled: %+v", r)
	}
	if r := got[4].Content; len(r) != 1 || r[0].ToolUseID != "c" {
		t.Errorf("dangling call c not answered: %+v", got[4])
	}
}

// BenchmarkTurnOverhead measures the loop's own cost per turn with an
// in-process provider and a trivial tool: the baseline is the same
// provider called directly, without the loop.
func BenchmarkTurnOverhead(b *testing.B) {
	turns := func() []chat.Message {
		return []chat.Message{answer(text("thinking "), call("a", "look", `{"x":1}`)), answer(text("done"))}
	}
	b.Run("loop", func(b *testing.B) {
		g := gate.New(gate.Options{})
		tools := tool.NewRegistry(&echoTool{name: "look", class: tool.Read})
		for b.Loop() {
			p := &scripted{turns: turns()}
			a := New(Options{Provider: p, Tools: tools, Gate: g, MaxToolIterations: -1, Sink: func(event.Event) {}}, nil)
			if _, err := a.Run(context.Background(), "go"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		for b.Loop() {
			p := &scripted{turns: turns()}
			for range 2 {
				if _, err := p.Stream(context.Background(), provider.Request{}, provider.Callbacks{}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
