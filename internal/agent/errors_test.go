package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/tool"
)

func TestUnknownToolMessage(t *testing.T) {
	cases := []struct {
		name  string
		tools []tool.Tool
		want  string
	}{
		{"no tools exposed", nil, `error: unknown tool "nope"; no tools are available in this run`},
		{"some tools exposed", []tool.Tool{&echoTool{name: "look", class: tool.Read}}, `error: unknown tool "nope"; available tools: look`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &scripted{turns: []chat.Message{answer(call("c1", "nope", `{}`)), answer(text("ok"))}}
			a := New(Options{Provider: p, Tools: tool.NewRegistry(tc.tools...), MaxToolIterations: -1}, nil)
			if _, err := a.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			sent := p.seen[1]
			if got := sent[len(sent)-1].Content[0].Text; got != tc.want {
				t.Errorf("result %q, want %q", got, tc.want)
			}
		})
	}
}

// failing answers every request with one error.
type failing struct{ err error }

func (f failing) Stream(context.Context, provider.Request, provider.Callbacks) (provider.Response, error) {
	return provider.Response{}, f.err
}

func TestContextOverflowIsNamed(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		overflow bool
	}{
		{"anthropic", errors.New(`anthropic: 400 Bad Request: invalid_request_error: prompt is too long: 210345 tokens > 200000 maximum`), true},
		{"openai code", errors.New(`openai: 400: context_length_exceeded: This model's maximum context length is 128000 tokens`), true},
		{"compatible server", errors.New(`openai-compatible: 400: the request exceeds the model's maximum context length`), true},
		{"rate limit", errors.New(`anthropic: 429 Too Many Requests`), false},
		{"other 400", errors.New(`openai: 400: invalid tool schema`), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := New(Options{Provider: failing{tc.err}, MaxToolIterations: -1}, nil)
			_, err := a.Run(context.Background(), "go")
			if got := errors.Is(err, ErrContextOverflow); got != tc.overflow {
				t.Fatalf("errors.Is(%v, ErrContextOverflow) = %v, want %v", err, got, tc.overflow)
			}
			if !strings.Contains(err.Error(), tc.err.Error()) {
				t.Errorf("error %q lost the provider's words %q", err, tc.err)
			}
			// The prompt stays in the conversation: the run can go on.
			if msgs := a.Messages(); len(msgs) != 1 || msgs[0].TextOf() != "go" {
				t.Errorf("conversation after the failure: %+v", msgs)
			}
		})
	}
}

func TestRepairJoinsSplitResults(t *testing.T) {
	res := func(id, text string) chat.Message {
		return chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: id, Text: text}}}
	}
	cases := []struct {
		name string
		msgs []chat.Message
		want []string // the results after the answer, in call order
	}{
		{"one message per result, out of order", []chat.Message{chat.UserText("go"), answer(call("a", "x", `{}`), call("b", "x", `{}`)), res("b", "B"), res("a", "A")}, []string{"A", "B"}},
		{"second result missing", []chat.Message{chat.UserText("go"), answer(call("a", "x", `{}`), call("b", "x", `{}`)), res("a", "A")}, []string{"A", NotRun}},
		{"results then a new prompt", []chat.Message{chat.UserText("go"), answer(call("a", "x", `{}`)), res("a", "A"), chat.UserText("again")}, []string{"A"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Repair(tc.msgs)
			if len(got) != 3 {
				t.Fatalf("repaired to %d messages, want 3: %+v", len(got), got)
			}
			var texts []string
			for _, b := range got[2].Content {
				if b.Type == chat.ToolResult {
					texts = append(texts, b.Text)
				}
			}
			if fmt.Sprint(texts) != fmt.Sprint(tc.want) {
				t.Errorf("results %q, want %q", texts, tc.want)
			}
		})
	}
}
