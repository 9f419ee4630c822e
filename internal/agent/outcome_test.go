package agent

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

// fixedTool returns one result, whatever it is asked.
type fixedTool struct {
	name string
	res  tool.Result
}

func (f fixedTool) Spec() tool.Spec {
	return tool.Spec{Name: f.name, Schema: json.RawMessage(`{"type":"object"}`), Class: tool.Read}
}

func (f fixedTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return f.res, nil
}

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		name    string
		res     tool.Result
		outcome string
		exit    int // -1: no exit code
		reason  string
	}{
		{"plain success", tool.Result{Content: "x"}, event.OutcomeOK, -1, ""},
		{"command exited 0", tool.Result{Command: &tool.CommandOutcome{}}, event.OutcomeOK, 0, ""},
		{"command exited 1", tool.Result{Command: &tool.CommandOutcome{ExitCode: 1}}, event.OutcomeExit, 1, ""},
		{"timed out", tool.Result{IsError: true, Command: &tool.CommandOutcome{ExitCode: -1, TimedOut: true, Signal: "SIGKILL"}}, event.OutcomeError, -1, "timed out"},
		{"interrupted by the person", tool.Result{IsError: true, Command: &tool.CommandOutcome{ExitCode: -1, Canceled: true, Signal: "SIGTERM"}}, event.OutcomeError, -1, "interrupted"},
		{"killed", tool.Result{IsError: true, Command: &tool.CommandOutcome{ExitCode: -1, Signal: "SIGTERM"}}, event.OutcomeError, -1, "ended by SIGTERM"},
		{"refused", tool.Result{Content: "error: refused by policy rule x: y", IsError: true, Refusal: "policy rule x"}, event.OutcomeRefused, -1, "policy rule x"},
		{"tool error", tool.Result{Content: "error: no such file: a.go\nmore", IsError: true}, event.OutcomeError, -1, "no such file: a.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outcome, code, reason := outcomeOf(tt.res)
			got := -1
			if code != nil {
				got = *code
			}
			if outcome != tt.outcome || got != tt.exit || reason != tt.reason {
				t.Errorf("outcomeOf = %s, %d, %q; want %s, %d, %q", outcome, got, reason, tt.outcome, tt.exit, tt.reason)
			}
		})
	}
}

// TestResultEvents: every call the model asked for gets a tool_result
// event with its outcome, the calls the iteration limit skipped too.
func TestResultEvents(t *testing.T) {
	p := &scripted{turns: []chat.Message{
		answer(call("c1", "fails", `{}`)),
		answer(call("c2", "fails", `{}`), call("c3", "look", `{}`)),
	}}
	var mu sync.Mutex
	got := map[string]event.ToolResult{}
	sink := func(e event.Event) {
		if e, ok := e.(event.ToolResult); ok {
			mu.Lock()
			got[e.CallID] = e
			mu.Unlock()
		}
	}
	a := New(Options{
		Provider: p,
		Tools: tool.NewRegistry(&echoTool{name: "look", class: tool.Read},
			fixedTool{name: "fails", res: tool.Result{Content: "exit_code: 2\n", Command: &tool.CommandOutcome{ExitCode: 2}}}),
		Gate:              gate.New(gate.Options{Sink: sink}),
		MaxToolIterations: 1,
		Sink:              sink,
	}, nil)
	if _, err := a.Run(context.Background(), "go"); err == nil {
		t.Fatal("want the iteration limit")
	}
	if e := got["c1"]; e.Outcome != event.OutcomeExit || e.ExitCode == nil || *e.ExitCode != 2 {
		t.Errorf("c1: %+v, want exit 2", e)
	}
	for _, id := range []string{"c2", "c3"} {
		if e := got[id]; e.Outcome != event.OutcomeNotRun || e.Reason != "limit" || !e.IsError {
			t.Errorf("%s: %+v, want not run by the limit", id, e)
		}
	}
}
