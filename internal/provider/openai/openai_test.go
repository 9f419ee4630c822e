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
	"unicode"

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
		{"ends without finish_reason or done", []string{chunk(`{"content":"half"}`, "")}},
		{"ends without any chunk", nil},
		{"error chunk mid-stream", []string{chunk(`{"content":"half"}`, ""), `{"error":{"message":"upstream died","type":"server_error"}}`}},
		{"error chunk with control bytes", []string{chunk(`{"content":"half"}`, ""), `{"error":{"message":"upstream\u001b]0;x\u0007 died","type":"server_error"}}`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, tc.chunks...)})
			r, err := p.Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
			if !errors.Is(err, provider.ErrStreamCut) {
				t.Fatalf("err = %v, want ErrStreamCut", err)
			}
			if strings.ContainsFunc(err.Error(), unicode.IsControl) {
				t.Errorf("control bytes in %q", err)
			}
			if len(r.Message.Content) != 0 {
				t.Errorf("partial message returned: %+v", r.Message)
			}
		})
	}
}

// A stream that ends with [DONE] is whole even without a finish reason.
func TestDoneWithoutFinishReason(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		stop   string
	}{
		{"text", []string{chunk(`{"content":"all of it"}`, ""), "[DONE]"}, "end_turn"},
		{"tool call", []string{chunk(`{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{}"}}]}`, ""), "[DONE]"}, "tool_use"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, tc.chunks...)})
			r, err := p.Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
			if err != nil {
				t.Fatal(err)
			}
			if r.StopReason != tc.stop || len(r.Message.Content) != 1 {
				t.Errorf("stop %q, message %+v", r.StopReason, r.Message)
			}
		})
	}
}

// A whole message whose tool arguments cannot be used is returned, the
// call marked malformed with its arguments replaced by {}.
func TestMalformedArguments(t *testing.T) {
	call := func(name, args string) string {
		return `{"tool_calls":[{"index":0,"id":"a","function":{"name":"` + name + `","arguments":` + args + `}}]}`
	}
	cases := []struct {
		name, delta, finish, want string
	}{
		{"not complete JSON", call("ls", `"{\"pa"`), "tool_calls", `not valid JSON (unexpected end of JSON input); they began: {"pa`},
		{"null", call("ls", `"null"`), "tool_calls", "must be a JSON object, not null"},
		{"cut by the token limit", call("ls", `"{\"pa"`), "length", "cut off by the reply's max_tokens limit"},
		{"no tool name", call("", `"{}"`), "tool_calls", "the call names no tool"},
		{"control bytes escaped", call("ls", `"\u001b[2J{"`), "tool_calls", `they began: \x1b[2J{`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, chunk(tc.delta, tc.finish), "[DONE]")})
			r, err := p.Stream(context.Background(), provider.Request{Model: "m"}, provider.Callbacks{})
			if err != nil {
				t.Fatalf("err = %v, want the message", err)
			}
			uses := r.Message.ToolUses()
			if len(uses) != 1 || uses[0].ID != "a" || string(uses[0].Input) != "{}" {
				t.Fatalf("tool calls = %+v", uses)
			}
			if why := r.Malformed["a"]; !strings.Contains(why, tc.want) {
				t.Errorf("malformed = %q, want it to contain %q", why, tc.want)
			}
		})
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
