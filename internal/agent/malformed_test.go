package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/anthropic"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/provider/openai"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Malformed arguments in a whole message go back to the model as a tool
// error and the loop goes on; nothing runs and nothing is retried. Over
// both wire formats, through the real adapters and the fake server.
func TestMalformedArgumentsGoBackToTheModel(t *testing.T) {
	wires := map[string]func(url string) provider.Provider{
		"anthropic": func(url string) provider.Provider { return anthropic.New(anthropic.Options{APIKey: "k", BaseURL: url}) },
		"openai": func(url string) provider.Provider {
			return openai.New(openai.Options{APIKey: "k", BaseURL: url + "/v1"})
		},
	}
	for name, open := range wires {
		t.Run(name, func(t *testing.T) {
			srv, err := fake.Start(fake.Script{Turns: []fake.Turn{
				{Text: "Changing it.", ToolCalls: []fake.ToolCall{{Name: "change", RawInput: `{"path": "a.go", "text": "cut`}}},
				{Text: "Sorry, fixed."},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			change := &echoTool{name: "change", class: tool.Mutating}
			var results []event.Event
			a := New(Options{
				Provider: provider.WithRetry(open(srv.URL()), provider.RetryPolicy{}), Model: "m",
				Tools: tool.NewRegistry(change), Gate: gate.New(gate.Options{Approver: gate.Allow{}}), MaxToolIterations: -1,
				Sink: func(e event.Event) {
					if k := e.Kind(); k == event.TypeToolResult || k == event.TypeRetry {
						results = append(results, e)
					}
				},
			}, nil)
			final, err := a.Run(context.Background(), "change a.go")
			if err != nil || final.TextOf() != "Sorry, fixed." {
				t.Fatalf("final %q, err %v", final.TextOf(), err)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2 (no retry)", n)
			}
			if change.peak.Load() != 0 {
				t.Error("the call with malformed arguments ran")
			}
			want := `error: malformed arguments for change: not valid JSON (unexpected end of JSON input); they began: {"path": "a.go", "text": "cut; the call was not run`
			if len(results) != 1 {
				t.Fatalf("events %+v, want one tool error %q", results, want)
			}
			if r, ok := results[0].(event.ToolResult); !ok || !r.IsError || r.Result != want {
				t.Fatalf("events %+v, want one tool error %q", results, want)
			}
			// The conversation sent back holds the call (with {} for its
			// arguments) and the error for it.
			msgs := a.Messages()
			asst := msgs[len(msgs)-3]
			if uses := asst.ToolUses(); len(uses) != 1 || string(uses[0].Input) != "{}" {
				t.Errorf("assistant call kept as %+v", asst)
			}
			if res := msgs[len(msgs)-2]; res.Role != chat.User || !strings.Contains(res.Content[0].Text, "malformed arguments") {
				t.Errorf("tool result sent back: %+v", res)
			}
		})
	}
}
