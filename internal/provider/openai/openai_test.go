package openai

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// sse serves hand-written chunks, for shapes other servers send and the
// fake does not.
func sse(t *testing.T, chunks ...string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			_, _ = io.WriteString(w, "data: "+c+"\n\n")
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

func chunk(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = `"` + finish + `"`
	}
	return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

func TestTolerantStreams(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		check  func(t *testing.T, r provider.Response)
	}{
		{
			name: "no usage and no tool call ids",
			chunks: []string{
				chunk(`{"role":"assistant","content":"ok"}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"name":"ls","arguments":"{\"path\":"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\".\"}"}}]}`, ""),
				chunk(`{}`, "tool_calls"),
				"[DONE]",
			},
			check: func(t *testing.T, r provider.Response) {
				uses := r.Message.ToolUses()
				if len(uses) != 1 || !strings.HasPrefix(uses[0].ID, "call_") || string(uses[0].Input) != `{"path":"."}` {
					t.Errorf("tool calls = %+v", uses)
				}
				if r.Usage != (chat.Usage{}) || r.StopReason != "tool_use" || r.Message.TextOf() != "ok" {
					t.Errorf("usage %+v stop %q text %q", r.Usage, r.StopReason, r.Message.TextOf())
				}
			},
		},
		{
			name: "whole calls reusing index 0 with new ids",
			chunks: []string{
				chunk(`{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"ls","arguments":"{}"}}]}`, ""),
				chunk(`{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"read","arguments":"{\"path\":\"x\"}"}}]}`, ""),
				chunk(`{}`, "stop"),
				"[DONE]",
			},
			check: func(t *testing.T, r provider.Response) {
				uses := r.Message.ToolUses()
				if len(uses) != 2 || uses[0].ID != "a" || uses[1].Name != "read" {
					t.Errorf("tool calls = %+v", uses)
				}
			},
		},
		{
			name:   "length maps to max_tokens",
			chunks: []string{chunk(`{"content":"trunc"}`, "length"), "[DONE]"},
			check: func(t *testing.T, r provider.Response) {
				if r.StopReason != "max_tokens" {
					t.Errorf("stop = %q", r.StopReason)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, tc.chunks...)})
			r, err := p.Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, r)
		})
	}
}

func TestIncompleteStreams(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
	}{
		{"done without finish_reason", []string{chunk(`{"content":"half"}`, ""), "[DONE]"}},
		{"ends without finish_reason or done", []string{chunk(`{"content":"half"}`, "")}},
		{"tool arguments not complete JSON", []string{chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{\"pa"}}]}`, "tool_calls"), "[DONE]"}},
		{"error chunk mid-stream", []string{chunk(`{"content":"half"}`, ""), `{"error":{"message":"upstream died","type":"server_error"}}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, tc.chunks...)})
			r, err := p.Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
			if !errors.Is(err, provider.ErrStreamCut) {
				t.Fatalf("err = %v, want ErrStreamCut", err)
			}
			if len(r.Message.Content) != 0 {
				t.Errorf("partial message returned: %+v", r.Message)
			}
		})
	}
}

func TestArgumentsCutByTokenLimitAreNotRetried(t *testing.T) {
	p := New(Options{BaseURL: sse(t, chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{\"pa"}}]}`, "length"), "[DONE]")})
	_, err := p.Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
	if err == nil || !strings.Contains(err.Error(), "token limit") {
		t.Fatalf("err = %v", err)
	}
	if ok, _ := provider.Retryable(err); ok {
		t.Errorf("%v is retryable", err)
	}
}

func TestErrorBodiesOfCompatibleServers(t *testing.T) {
	cases := []struct {
		name, body, want string
		retry            bool
	}{
		{"bare string error", `{"error":"model 'qwen' not found"}`, "HTTP 404 Not Found: model 'qwen' not found", false},
		{"detail", `{"detail":"Not Found"}`, "HTTP 404 Not Found: Not Found", false},
		{"html from a proxy", "<html>\n<b>Bad   Gateway</b></html>", "HTTP 502 Bad Gateway: <html> <b>Bad Gateway</b></html>", true},
		{"empty", "", "HTTP 503 Service Unavailable", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status := http.StatusNotFound
			if tc.retry {
				status = http.StatusBadGateway
				if tc.body == "" {
					status = http.StatusServiceUnavailable
				}
			}
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer hs.Close()
			_, err := New(Options{BaseURL: hs.URL}).Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
			if err == nil || err.Error() != "openai: "+tc.want {
				t.Errorf("err = %v, want %q", err, "openai: "+tc.want)
			}
			if ok, _ := provider.Retryable(err); ok != tc.retry {
				t.Errorf("retryable = %v, want %v", ok, tc.retry)
			}
		})
	}
}

func TestRequestShape(t *testing.T) {
	cases := []struct {
		name       string
		compatible bool
		tokenField string
	}{
		{"openai itself", false, "max_completion_tokens"},
		{"compatible server", true, "max_tokens"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := fake.Start(fake.Script{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			p := New(Options{BaseURL: srv.URL() + "/v1"}).(*client)
			// The fake stands in for OpenAI itself too.
			p.compatible = tc.compatible
			req := provider.Request{
				Model:     "m",
				MaxTokens: 100,
				Messages: []chat.Message{
					chat.UserText("go"),
					{Role: chat.Assistant, Content: []chat.Block{{Type: chat.ToolUse, ID: "a", Name: "ls"}}},
					{Role: chat.User, Content: []chat.Block{
						{Type: chat.ToolResult, ToolUseID: "a", Text: "x"},
						{Type: chat.Text, Text: "and now?"},
					}},
				},
			}
			if _, err := p.Stream(context.Background(), req, provider.Callbacks{}); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body[tc.tokenField] != float64(100) {
				t.Errorf("%s = %v", tc.tokenField, body[tc.tokenField])
			}
			if body["stream_options"].(map[string]any)["include_usage"] != true {
				t.Errorf("stream_options = %v", body["stream_options"])
			}
			var roles []string
			for _, m := range body["messages"].([]any) {
				roles = append(roles, m.(map[string]any)["role"].(string))
			}
			if strings.Join(roles, ",") != "user,assistant,tool,user" {
				t.Errorf("roles = %v, want the tool result before the user's text", roles)
			}
			call := body["messages"].([]any)[1].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)
			if call["function"].(map[string]any)["arguments"] != "{}" {
				t.Errorf("empty input sent as %v", call)
			}
		})
	}
}
