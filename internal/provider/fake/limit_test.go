package fake

import (
	"context"
	"errors"
	"strings"
	"testing"

	anth "github.com/anthropics/anthropic-sdk-go/v2"
	oai "github.com/openai/openai-go/v3"
)

// A request over the context limit gets each provider's own overflow
// error through the official SDK and consumes no turn; a request that
// fits is answered with usage that counts its size.
func TestContextLimit(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("words ", 200)
	tests := []struct {
		name string
		call func(srv *Server, prompt string) (input int64, err error)
		want func(err error) bool
	}{
		{"anthropic", func(srv *Server, prompt string) (int64, error) {
			m, err := anthropicClient(srv).Messages.New(ctx, anth.MessageNewParams{Model: "claude-x", MaxTokens: 10,
				Messages: []anth.MessageParam{anth.NewUserMessage(anth.NewTextBlock(prompt))}})
			if err != nil {
				return 0, err
			}
			return m.Usage.InputTokens, nil
		}, func(err error) bool {
			var e *anth.Error
			return errors.As(err, &e) && e.StatusCode == 400 && strings.Contains(err.Error(), "prompt is too long: ") &&
				strings.Contains(err.Error(), " tokens > 100 maximum")
		}},
		{"openai", func(srv *Server, prompt string) (int64, error) {
			c, err := openaiClient(srv).Chat.Completions.New(ctx, oai.ChatCompletionNewParams{Model: "gpt-x",
				Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage(prompt)}})
			if err != nil {
				return 0, err
			}
			return c.Usage.PromptTokens, nil
		}, func(err error) bool {
			var e *oai.Error
			return errors.As(err, &e) && e.StatusCode == 400 && e.Code == "context_length_exceeded" &&
				strings.Contains(e.Message, "maximum context length is 100 tokens")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := Start(Script{ContextLimit: 100, Turns: []Turn{{Text: "first"}, {Text: "second"}}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			if _, err := tc.call(srv, long); err == nil || !tc.want(err) {
				t.Fatalf("long request: err = %v, want the provider's overflow error", err)
			}
			input, err := tc.call(srv, "short")
			if err != nil {
				t.Fatalf("short request: %v", err)
			}
			reqs := srv.Requests()
			if want := InputTokens(reqs[len(reqs)-1].Body); input != want || input > 100 {
				t.Errorf("usage input = %d, want %d (the request's size)", input, want)
			}
			srv.SetContextLimit(0)
			if _, err := tc.call(srv, long); err != nil {
				t.Errorf("limit lifted, still refused: %v", err)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("%d requests recorded, want 3", n)
			}
		})
	}
}

func TestContextLimitNegative(t *testing.T) {
	if _, err := Start(Script{ContextLimit: -1}); err == nil || !strings.Contains(err.Error(), "context_limit -1 is negative") {
		t.Errorf("err = %v", err)
	}
}
