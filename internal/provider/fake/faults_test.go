package fake

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	anth "github.com/anthropics/anthropic-sdk-go/v2"
	oai "github.com/openai/openai-go/v3"
)

// What the official SDKs see of the fault turns: the wire stays real
// while the content misbehaves.
func TestFaultTurnsThroughTheSDKs(t *testing.T) {
	ctx := context.Background()
	raw := `{"path": "a.go", "text": "unterminated`
	anthParams := anth.MessageNewParams{Model: "claude-x", MaxTokens: 123, Messages: []anth.MessageParam{anth.NewUserMessage(anth.NewTextBlock("hi"))}}
	oaiParams := oai.ChatCompletionNewParams{Model: "gpt-x", MaxCompletionTokens: oai.Int(77), Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("hi")}}

	t.Run("anthropic", func(t *testing.T) {
		srv := start(t, Turn{ToolCalls: []ToolCall{{Name: "edit", RawInput: raw}}}, Turn{Text: "no stop reason", NoFinish: true})
		c := anthropicClient(srv)

		s := c.Messages.NewStreaming(ctx, anthParams)
		var input strings.Builder
		for s.Next() {
			if ev := s.Current(); ev.Type == "content_block_delta" {
				input.WriteString(ev.Delta.PartialJSON)
			}
		}
		if s.Err() != nil || input.String() != raw {
			t.Errorf("raw input streamed as %q (%v), want %q", input.String(), s.Err(), raw)
		}

		s = c.Messages.NewStreaming(ctx, anthParams)
		var types []string
		for s.Next() {
			types = append(types, s.Current().Type)
		}
		got := strings.Join(types, " ")
		if s.Err() != nil || strings.Contains(got, "message_delta") || !strings.HasSuffix(got, "content_block_stop message_stop") {
			t.Errorf("no_finish events: %s (%v)", got, s.Err())
		}
		if r := srv.Requests(); r[0].MaxTokens != 123 {
			t.Errorf("recorded max tokens %d, want 123", r[0].MaxTokens)
		}
	})

	t.Run("openai", func(t *testing.T) {
		srv := start(t, Turn{ToolCalls: []ToolCall{{Name: "edit", RawInput: raw}}}, Turn{Text: "no stop reason", NoFinish: true})
		c := openaiClient(srv)

		s := c.Chat.Completions.NewStreaming(ctx, oaiParams)
		var args strings.Builder
		for s.Next() {
			for _, ch := range s.Current().Choices {
				for _, tc := range ch.Delta.ToolCalls {
					args.WriteString(tc.Function.Arguments)
				}
			}
		}
		if s.Err() != nil || args.String() != raw {
			t.Errorf("raw arguments streamed as %q (%v), want %q", args.String(), s.Err(), raw)
		}

		s = c.Chat.Completions.NewStreaming(ctx, oaiParams)
		var text strings.Builder
		for s.Next() {
			for _, ch := range s.Current().Choices {
				text.WriteString(ch.Delta.Content)
				if ch.FinishReason != "" {
					t.Errorf("finish reason %q sent", ch.FinishReason)
				}
			}
		}
		if s.Err() != nil || text.String() != "no stop reason" {
			t.Errorf("no_finish text %q (%v)", text.String(), s.Err())
		}
		if r := srv.Requests(); r[0].MaxTokens != 77 {
			t.Errorf("recorded max tokens %d, want 77", r[0].MaxTokens)
		}
	})
}

// An endless turn keeps streaming valid events until the client hangs up.
func TestEndlessStreamsUntilTheClientLeaves(t *testing.T) {
	ctx := context.Background()
	for _, api := range []string{"anthropic", "openai"} {
		t.Run(api, func(t *testing.T) {
			srv := start(t, Turn{Text: "Start. ", Endless: true}, Turn{Text: "next"})
			var text strings.Builder
			events := 0
			if api == "anthropic" {
				s := anthropicClient(srv).Messages.NewStreaming(ctx, anth.MessageNewParams{Model: "m", MaxTokens: 1})
				for events < 200 && s.Next() {
					text.WriteString(s.Current().Delta.Text)
					events++
				}
				_ = s.Close()
			} else {
				s := openaiClient(srv).Chat.Completions.NewStreaming(ctx, oai.ChatCompletionNewParams{Model: "m"})
				for events < 200 && s.Next() {
					for _, ch := range s.Current().Choices {
						text.WriteString(ch.Delta.Content)
					}
					events++
				}
				_ = s.Close()
			}
			if events != 200 || !strings.HasPrefix(text.String(), "Start. endless endless") {
				t.Fatalf("%d events, text %.40q", events, text.String())
			}
			// The server is free for the next request once the client left.
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, data, _ := post(t, srv.URL()+"/v1/messages", `{"model":"m"}`)
				if !strings.Contains(string(data), "next") {
					t.Errorf("next answer %s", data)
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the next request did not get an answer")
			}
		})
	}
}

// A body turn answers 200 with whatever it holds, on either endpoint.
func TestBodyTurn(t *testing.T) {
	for _, path := range []string{"/v1/messages", "/v1/chat/completions"} {
		srv := start(t, Turn{Body: &RawBody{ContentType: "text/html", Text: "<html>portal</html>"}})
		res, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html" || string(data) != "<html>portal</html>" {
			t.Errorf("%s: %d %s %q", path, res.StatusCode, res.Header.Get("Content-Type"), data)
		}
	}
}

// Malformed raw input in a non-streaming Anthropic answer is a string,
// since a JSON document cannot hold it as it is.
func TestRawInputNonStreaming(t *testing.T) {
	srv := start(t, Turn{ToolCalls: []ToolCall{{Name: "edit", RawInput: `{"a":`}}})
	_, data, err := post(t, srv.URL()+"/v1/messages", `{"model":"m"}`)
	var m struct {
		Content []struct {
			Input json.RawMessage `json:"input"`
		} `json:"content"`
	}
	if err != nil || json.Unmarshal(data, &m) != nil || len(m.Content) != 1 || string(m.Content[0].Input) != `"{\"a\":"` {
		t.Errorf("answer %s (%v)", data, err)
	}
}
