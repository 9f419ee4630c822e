package anthropic

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

// sse serves a hand-written event stream, for shapes the fake never sends.
func sse(t *testing.T, events ...string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			typ, _, _ := strings.Cut(strings.TrimPrefix(e, `{"type":"`), `"`)
			_, _ = io.WriteString(w, "event: "+typ+"\ndata: "+e+"\n\n")
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

const (
	start    = `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"x","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}`
	toolOpen = `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"ls","input":{}}}`
	toolPart = `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}`
	toolStop = `{"type":"content_block_stop","index":0}`
	msgDelta = `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`
	msgStop  = `{"type":"message_stop"}`
)

func TestIncompleteStreams(t *testing.T) {
	cases := []struct {
		name   string
		events []string
		status int // 0: a cut stream
	}{
		{"ends without message_stop", []string{start, toolOpen, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`, toolStop, msgDelta}, 0},
		{"ends after a text delta", []string{start, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"half"}}`}, 0},
		{"overloaded error event mid-stream", []string{start, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, 529},
		{"error event that is not JSON", []string{start, "{\"type\":\"error\" \x1b]0;x\x07 broken"}, 500},
		{"error event with control bytes", []string{start, `{"type":"error","error":{"type":"overloaded_error","message":"Over\u001b[2Jloaded\u0007"}}`}, 529},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, tc.events...)})
			resp, err := p.Stream(context.Background(), provider.Request{Model: "x", Messages: []chat.Message{chat.UserText("hi")}}, provider.Callbacks{})
			if err == nil {
				t.Fatalf("no error; got %+v", resp)
			}
			if ok, _ := provider.Retryable(err); !ok {
				t.Errorf("%v is not retryable", err)
			}
			var apiErr *provider.APIError
			switch {
			case tc.status == 0 && !errors.Is(err, provider.ErrStreamCut):
				t.Errorf("err = %v, want ErrStreamCut", err)
			case tc.status != 0 && (!errors.As(err, &apiErr) || apiErr.Status != tc.status):
				t.Errorf("err = %v, want status %d", err, tc.status)
			}
			if len(resp.Message.Content) != 0 {
				t.Errorf("partial message returned: %+v", resp.Message)
			}
			if strings.ContainsFunc(err.Error(), unicode.IsControl) {
				t.Errorf("control bytes in %q", err)
			}
		})
	}
}

// A whole message (message_stop arrived) whose tool input cannot be used
// is returned, the call marked malformed with its input replaced by {}:
// the loop answers it with an error and the model tries again. It is
// never reported as a cut stream.
func TestMalformedToolInput(t *testing.T) {
	part := func(json string) string {
		return `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":` + json + `}}`
	}
	cases := []struct {
		name   string
		events []string
		want   string
	}{
		{"not complete JSON", []string{start, toolOpen, toolPart, toolStop, msgDelta, msgStop}, `not valid JSON (unexpected end of JSON input); they began: {"pa`},
		{"not an object", []string{start, toolOpen, part(`"[1,2]"`), toolStop, msgDelta, msgStop}, "must be a JSON object, not a list"},
		{"control bytes escaped", []string{start, toolOpen, part(`"{\u001b]0;x\u0007"`), toolStop, msgDelta, msgStop}, `they began: {\x1b]0;x\x07`},
		{"block never stopped", []string{start, toolOpen, part(`"{}"`), msgDelta, msgStop}, "the server never closed this tool call"},
		{"cut by max_tokens", []string{start, toolOpen, toolPart, toolStop, strings.Replace(msgDelta, "tool_use", "max_tokens", 1), msgStop}, "cut off by the reply's max_tokens limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{BaseURL: sse(t, tc.events...)})
			resp, err := p.Stream(context.Background(), provider.Request{Model: "x"}, provider.Callbacks{})
			if err != nil {
				t.Fatalf("err = %v, want the message", err)
			}
			uses := resp.Message.ToolUses()
			if len(uses) != 1 || uses[0].ID != "t1" || string(uses[0].Input) != "{}" {
				t.Fatalf("tool calls = %+v", uses)
			}
			if why := resp.Malformed["t1"]; !strings.Contains(why, tc.want) {
				t.Errorf("malformed = %q, want it to contain %q", why, tc.want)
			}
		})
	}
}

func TestEmptyToolInputIsAnObject(t *testing.T) {
	p := New(Options{BaseURL: sse(t, start, toolOpen, toolStop, msgDelta, msgStop)})
	resp, err := p.Stream(context.Background(), provider.Request{Model: "x"}, provider.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	uses := resp.Message.ToolUses()
	if len(uses) != 1 || string(uses[0].Input) != "{}" || resp.Usage.OutputTokens != 9 || resp.StopReason != "tool_use" {
		t.Errorf("got %+v usage %+v stop %q", uses, resp.Usage, resp.StopReason)
	}
}

// TestRequestShape checks what goes on the wire for the parts of a request
// the shared adapter tests do not look at.
func TestRequestShape(t *testing.T) {
	srv, err := fake.Start(fake.Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req := provider.Request{
		Model:  "claude-test",
		System: "sys",
		Messages: []chat.Message{
			chat.UserText("list"),
			{Role: chat.Assistant, Content: []chat.Block{
				{Type: chat.Text, Text: ""},
				{Type: chat.ToolUse, ID: "t1", Name: "ls"},
			}},
			{Role: chat.User, Content: []chat.Block{
				{Type: chat.ToolResult, ToolUseID: "t1", Text: "", IsError: true},
			}},
		},
		Tools: []chat.ToolSpec{{Name: "ls", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)}},
	}
	resp, err := New(Options{BaseURL: srv.URL()}).Stream(context.Background(), req, provider.Callbacks{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.TextOf() != fake.Exhausted {
		t.Errorf("text = %q", resp.Message.TextOf())
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
		System    []struct {
			CacheControl map[string]any `json:"cache_control"`
		} `json:"system"`
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
		Tools []struct {
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.MaxTokens != provider.MaxTokensFor("claude-test") {
		t.Errorf("max_tokens = %d", body.MaxTokens)
	}
	if body.System[0].CacheControl["type"] != "ephemeral" {
		t.Errorf("system has no cache breakpoint: %+v", body.System)
	}
	asst := body.Messages[1].Content
	if len(asst) != 1 || asst[0]["type"] != "tool_use" || asst[0]["input"] == nil {
		t.Errorf("assistant content = %v, want only the tool_use with an input", asst)
	}
	res := body.Messages[2].Content[0]
	if res["is_error"] != true || res["content"] != nil || res["cache_control"] == nil {
		t.Errorf("tool result = %v, want is_error, no content, a cache breakpoint", res)
	}
	schema := body.Tools[0].InputSchema
	if schema["type"] != "object" || schema["additionalProperties"] != false || schema["properties"] == nil {
		t.Errorf("input_schema = %v", schema)
	}
}
