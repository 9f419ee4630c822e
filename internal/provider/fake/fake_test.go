package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	anth "github.com/anthropics/anthropic-sdk-go/v2"
	anthopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	oai "github.com/openai/openai-go/v3"
	oaiopt "github.com/openai/openai-go/v3/option"
)

func start(t *testing.T, turns ...Turn) *Server {
	t.Helper()
	srv, err := Start(Script{Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

var toolTurn = Turn{
	Text:      "Two tools.",
	ToolCalls: []ToolCall{{Name: "ls", Input: json.RawMessage(`{"path": "."}`)}, {Name: "read", Input: json.RawMessage(`{"path":"ünï.txt"}`)}},
	Usage:     &Usage{InputTokens: 12, OutputTokens: 34, CacheReadTokens: 5},
}

func anthropicClient(srv *Server) *anth.Client {
	c := anth.NewClient(anthopt.WithoutEnvironmentDefaults(), anthopt.WithAPIKey("k"),
		anthopt.WithBaseURL(srv.URL()), anthopt.WithMaxRetries(0))
	return &c
}

func openaiClient(srv *Server) *oai.Client {
	c := oai.NewClient(oaiopt.WithAPIKey("k"), oaiopt.WithBaseURL(srv.URL()+"/v1"), oaiopt.WithMaxRetries(0))
	return &c
}

// The official SDKs decode the fake's answers: the wire formats are real.
func TestOfficialSDKs(t *testing.T) {
	ctx := context.Background()
	anthParams := anth.MessageNewParams{Model: "claude-x", MaxTokens: 100, Messages: []anth.MessageParam{anth.NewUserMessage(anth.NewTextBlock("hi"))}}
	oaiParams := oai.ChatCompletionNewParams{Model: "gpt-x", Messages: []oai.ChatCompletionMessageParamUnion{oai.UserMessage("hi")}}
	oaiParams.StreamOptions.IncludeUsage = oai.Bool(true)

	checkAnthropic := func(t *testing.T, m *anth.Message) {
		t.Helper()
		if len(m.Content) != 3 || m.Content[0].Text != "Two tools." || m.Content[1].Name != "ls" ||
			string(m.Content[1].Input) != `{"path":"."}` || string(m.Content[2].Input) != `{"path":"ünï.txt"}` {
			t.Errorf("content = %+v", m.Content)
		}
		if m.StopReason != "tool_use" || m.Usage.InputTokens != 12 || m.Usage.OutputTokens != 34 || m.Usage.CacheReadInputTokens != 5 || m.Model != "claude-x" {
			t.Errorf("stop %q usage %+v model %q", m.StopReason, m.Usage, m.Model)
		}
	}
	checkOpenAI := func(t *testing.T, c *oai.ChatCompletion) {
		t.Helper()
		msg := c.Choices[0].Message
		if msg.Content != "Two tools." || len(msg.ToolCalls) != 2 || msg.ToolCalls[0].Function.Name != "ls" ||
			msg.ToolCalls[1].Function.Arguments != `{"path":"ünï.txt"}` || c.Choices[0].FinishReason != "tool_calls" {
			t.Errorf("completion = %+v", c.Choices)
		}
		if c.Usage.PromptTokens != 17 || c.Usage.CompletionTokens != 34 || c.Usage.PromptTokensDetails.CachedTokens != 5 {
			t.Errorf("usage = %+v", c.Usage)
		}
	}

	t.Run("anthropic non-streaming", func(t *testing.T) {
		srv := start(t, toolTurn)
		m, err := anthropicClient(srv).Messages.New(ctx, anthParams)
		if err != nil {
			t.Fatal(err)
		}
		checkAnthropic(t, m)
	})
	t.Run("anthropic streaming accumulated by the SDK", func(t *testing.T) {
		srv := start(t, toolTurn)
		stream := anthropicClient(srv).Messages.NewStreaming(ctx, anthParams)
		var m anth.Message
		var types []string
		for stream.Next() {
			ev := stream.Current()
			types = append(types, ev.Type)
			if err := m.Accumulate(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		checkAnthropic(t, &m)
		if types[0] != "message_start" || types[len(types)-2] != "message_delta" || types[len(types)-1] != "message_stop" {
			t.Errorf("event sequence = %v", types)
		}
	})
	t.Run("openai non-streaming", func(t *testing.T) {
		srv := start(t, toolTurn)
		c, err := openaiClient(srv).Chat.Completions.New(ctx, oaiParams)
		if err != nil {
			t.Fatal(err)
		}
		checkOpenAI(t, c)
	})
	t.Run("openai streaming accumulated by the SDK", func(t *testing.T) {
		srv := start(t, toolTurn)
		stream := openaiClient(srv).Chat.Completions.NewStreaming(ctx, oaiParams)
		var acc oai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		checkOpenAI(t, &acc.ChatCompletion)
	})
	t.Run("errors reach the SDKs as API errors", func(t *testing.T) {
		srv := start(t, Turn{Error: &ErrorReply{Status: 429, Message: "slow", RetryAfter: 2}}, Turn{Error: &ErrorReply{Status: 400, Message: "bad"}})
		_, err := anthropicClient(srv).Messages.New(ctx, anthParams)
		var ae *anth.Error
		if !errors.As(err, &ae) || ae.StatusCode != 429 || ae.Message != "slow" || ae.Response.Header.Get("Retry-After") != "2" {
			t.Errorf("anthropic err = %v", err)
		}
		_, err = openaiClient(srv).Chat.Completions.New(ctx, oaiParams)
		var oe *oai.Error
		if !errors.As(err, &oe) || oe.StatusCode != 400 || oe.Message != "bad" {
			t.Errorf("openai err = %v", err)
		}
	})
}

func post(t *testing.T, url string, body string) (*http.Response, []byte, error) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	return res, data, err
}

func TestScriptOrder(t *testing.T) {
	srv := start(t,
		Turn{Error: &ErrorReply{Status: 500, Message: "down"}},
		Turn{Text: "up"},
	)
	want := []struct {
		status int
		text   string
	}{{500, `"down"`}, {200, `"up"`}, {200, Exhausted}, {200, Exhausted}}
	for i, w := range want {
		path := "/v1/messages"
		if i%2 == 1 {
			path = "/v1/chat/completions"
		}
		res, data, err := post(t, srv.URL()+path, `{"model":"m","messages":[]}`)
		if err != nil || res.StatusCode != w.status || !bytes.Contains(data, []byte(w.text)) {
			t.Errorf("request %d: %d %s (%v), want %d with %s", i+1, res.StatusCode, data, err, w.status, w.text)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[1].Path != "/v1/chat/completions" || string(reqs[0].Body) != `{"model":"m","messages":[]}` || reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("recorded = %+v", reqs)
	}
}

func TestCutDropsTheConnection(t *testing.T) {
	for _, path := range []string{"/v1/messages", "/v1/chat/completions"} {
		for _, stream := range []string{"true", "false"} {
			srv := start(t, Turn{ToolCalls: []ToolCall{{Name: "ls", Input: json.RawMessage(`{"path":"somewhere/deep"}`)}}, Cut: true})
			_, data, err := post(t, srv.URL()+path, `{"model":"m","stream":`+stream+`}`)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s stream=%s: err %v, want unexpected EOF", path, stream, err)
			}
			if stream == "true" && (bytes.Contains(data, []byte("message_stop")) || bytes.Contains(data, []byte("[DONE]")) || bytes.Contains(data, []byte(`deep`))) {
				t.Errorf("%s stream=%s: cut body went too far: %s", path, stream, data)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	var bodies [2][]byte
	for i := range bodies {
		srv := start(t, toolTurn)
		_, bodies[i], _ = post(t, srv.URL()+"/v1/messages", `{"model":"m","stream":true}`)
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Errorf("two runs differ:\n%s\n%s", bodies[0], bodies[1])
	}
}

func TestDemo(t *testing.T) {
	srv, err := Start(Demo())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, first, _ := post(t, srv.URL()+"/v1/messages", `{"model":"m"}`)
	if !bytes.Contains(first, []byte(`"name":"ls"`)) || !bytes.Contains(first, []byte(`"input":{"path":"."}`)) {
		t.Errorf("first demo turn = %s", first)
	}
	cases := []struct{ name, path, body string }{
		{"anthropic", "/v1/messages", `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"a\nb\n\nc/\n"}]}]}]}`},
		{"openai", "/v1/chat/completions", `{"messages":[{"role":"tool","tool_call_id":"x","content":"a\nb\n\nc/\n"}]}`},
	}
	for _, tc := range cases {
		srv, _ := Start(Demo())
		post(t, srv.URL()+tc.path, `{}`)
		_, data, _ := post(t, srv.URL()+tc.path, tc.body)
		srv.Close()
		if !bytes.Contains(data, []byte("has 3 entries")) {
			t.Errorf("%s: second demo turn = %s", tc.name, data)
		}
	}
}

func TestLoadScript(t *testing.T) {
	cases := []struct{ name, text, wantErr string }{
		{"valid", `{"turns":[{"text":"hi","tool_calls":[{"name":"bash","input":{"command":"ls"}}]},{"error":{"status":503,"message":"x","retry_after":1.5}},{"cut":true,"delay_ms":5,"usage":{"input_tokens":1,"output_tokens":2}}]}`, ""},
		{"unknown field", `{"turns":[{"txt":"hi"}]}`, `unknown field "txt"`},
		{"bad status", `{"turns":[{"error":{"status":200}}]}`, "turn 1: error status 200"},
		{"unnamed tool", `{"turns":[{},{"tool_calls":[{"input":{}}]}]}`, "turn 2: tool call 1 has no name"},
		{"not json", `turns:`, "parse fake script"},
		{"endless and cut", `{"turns":[{"text":"x","endless":true,"cut":true}]}`, "turn 1: an endless turn streams text only"},
		{"input and raw_input", `{"turns":[{"tool_calls":[{"name":"x","input":{},"raw_input":"{"}]}]}`, "input and raw_input exclude each other"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "script.json")
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := LoadScript(path)
			switch {
			case tc.wantErr == "" && (err != nil || len(s.Turns) != 3 || s.Turns[1].Error.RetryAfter != 1.5):
				t.Errorf("LoadScript = %+v, %v", s, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
			}
		})
	}
	if _, err := LoadScript(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: no error")
	}
}
