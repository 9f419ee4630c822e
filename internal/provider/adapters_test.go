package provider_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/anthropic"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/provider/openai"
)

// wire is one API format: how to build its adapter against the fake, and
// how to read back what the adapter sent.
type wire struct {
	name string
	path string
	new  func(root string) provider.Provider
	// toolResult finds the tool result for id in a recorded request body
	// and checks that the assistant's call before it was sent back too.
	toolResult func(t *testing.T, body map[string]any, id string) string
	// system and toolNames read the system prompt and tools sent.
	system    func(body map[string]any) string
	toolNames func(body map[string]any) []string
	// usage is what the adapter reports for fakeUsage.
	usage chat.Usage
}

var fakeUsage = fake.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 100, CacheWriteTokens: 20}

func wires() []wire {
	return []wire{
		{
			name: "anthropic",
			path: "/v1/messages",
			new: func(root string) provider.Provider {
				return anthropic.New(anthropic.Options{APIKey: "test-key", BaseURL: root})
			},
			toolResult: func(t *testing.T, body map[string]any, id string) string {
				msgs := body["messages"].([]any)
				asst := msgs[len(msgs)-2].(map[string]any)
				call := lastOf(asst["content"]).(map[string]any)
				if call["type"] != "tool_use" || call["id"] != id {
					t.Errorf("assistant tool_use sent back = %v, want id %s", call, id)
				}
				user := msgs[len(msgs)-1].(map[string]any)
				res := user["content"].([]any)[0].(map[string]any)
				if user["role"] != "user" || res["type"] != "tool_result" || res["tool_use_id"] != id {
					t.Fatalf("tool result sent = %v, want a user tool_result block for %s", user, id)
				}
				return res["content"].([]any)[0].(map[string]any)["text"].(string)
			},
			system: func(body map[string]any) string {
				return body["system"].([]any)[0].(map[string]any)["text"].(string)
			},
			toolNames: func(body map[string]any) []string {
				var names []string
				for _, tl := range body["tools"].([]any) {
					names = append(names, tl.(map[string]any)["name"].(string))
				}
				return names
			},
			usage: chat.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 100, CacheWriteTokens: 20},
		},
		{
			name: "openai",
			path: "/v1/chat/completions",
			new: func(root string) provider.Provider {
				return openai.New(openai.Options{APIKey: "test-key", BaseURL: root + "/v1"})
			},
			toolResult: func(t *testing.T, body map[string]any, id string) string {
				msgs := body["messages"].([]any)
				asst := msgs[len(msgs)-2].(map[string]any)
				call := lastOf(asst["tool_calls"]).(map[string]any)
				if asst["role"] != "assistant" || call["id"] != id || call["type"] != "function" {
					t.Errorf("assistant tool call sent back = %v, want id %s", asst, id)
				}
				res := msgs[len(msgs)-1].(map[string]any)
				if res["role"] != "tool" || res["tool_call_id"] != id {
					t.Fatalf("tool result sent = %v, want a role=tool message for %s", res, id)
				}
				return res["content"].(string)
			},
			system: func(body map[string]any) string {
				m := body["messages"].([]any)[0].(map[string]any)
				if m["role"] != "system" {
					return ""
				}
				return m["content"].(string)
			},
			toolNames: func(body map[string]any) []string {
				var names []string
				for _, tl := range body["tools"].([]any) {
					names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
				}
				return names
			},
			// OpenAI counts cached input inside prompt_tokens and has no
			// cache-write count.
			usage: chat.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 100},
		},
	}
}

func lastOf(v any) any {
	list, _ := v.([]any)
	if len(list) == 0 {
		return nil
	}
	return list[len(list)-1]
}

// call is one Stream through the retry wrapper with everything it showed.
type call struct {
	resp    provider.Response
	err     error
	deltas  []string
	retries []retry
	slept   []time.Duration
}

type retry struct {
	attempt int
	delay   time.Duration
	cause   error
}

func stream(ctx context.Context, p provider.Provider, req provider.Request) call {
	var c call
	pol := provider.RetryPolicy{Sleep: func(_ context.Context, d time.Duration) error {
		c.slept = append(c.slept, d)
		return nil
	}}
	cb := provider.Callbacks{
		Text:  func(d string) { c.deltas = append(c.deltas, d) },
		Retry: func(a int, d time.Duration, cause error) { c.retries = append(c.retries, retry{a, d, cause}) },
	}
	c.resp, c.err = provider.WithRetry(p, pol).Stream(ctx, req, cb)
	return c
}

var lsSpec = chat.ToolSpec{
	Name:        "ls",
	Description: "List a directory.",
	Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
}

func baseRequest() provider.Request {
	return provider.Request{
		Model:    "test-model",
		System:   "You are wisp.",
		Messages: []chat.Message{chat.UserText("What is here?")},
		Tools:    []chat.ToolSpec{lsSpec},
	}
}

func startFake(t *testing.T, turns ...fake.Turn) *fake.Server {
	t.Helper()
	srv, err := fake.Start(fake.Script{Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func decode(t *testing.T, r fake.Recorded) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("recorded body is not JSON: %v", err)
	}
	return m
}

func TestAdapters(t *testing.T) {
	ls := fake.ToolCall{Name: "ls", Input: json.RawMessage(`{"path":"."}`)}
	cases := []struct {
		name  string
		turns []fake.Turn
		check func(t *testing.T, w wire, srv *fake.Server, c call)
	}{
		{
			name:  "text streams in order with usage",
			turns: []fake.Turn{{Text: "Hello there from the fake provider.", Usage: &fakeUsage}},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err != nil {
					t.Fatal(c.err)
				}
				if len(c.deltas) < 3 || strings.Join(c.deltas, "") != "Hello there from the fake provider." {
					t.Errorf("deltas = %q, want several joining to the text", c.deltas)
				}
				if got := c.resp.Message.TextOf(); got != "Hello there from the fake provider." {
					t.Errorf("text = %q", got)
				}
				if c.resp.Message.Role != chat.Assistant || c.resp.StopReason != "end_turn" {
					t.Errorf("role %q stop %q, want assistant end_turn", c.resp.Message.Role, c.resp.StopReason)
				}
				if c.resp.Usage != w.usage {
					t.Errorf("usage = %+v, want %+v", c.resp.Usage, w.usage)
				}
				reqs := srv.Requests()
				if len(reqs) != 1 || reqs[0].Path != w.path {
					t.Fatalf("requests = %d, path %q", len(reqs), reqs[0].Path)
				}
				body := decode(t, reqs[0])
				if got := w.system(body); got != "You are wisp." {
					t.Errorf("system prompt sent = %q", got)
				}
				if got := w.toolNames(body); !reflect.DeepEqual(got, []string{"ls"}) {
					t.Errorf("tools sent = %v", got)
				}
				if body["model"] != "test-model" || body["stream"] != true {
					t.Errorf("model %v stream %v", body["model"], body["stream"])
				}
				if auth := reqs[0].Header.Get("Authorization"); auth != "Bearer test-key" {
					t.Errorf("Authorization = %q", auth)
				}
			},
		},
		{
			name: "several tool calls in one response",
			turns: []fake.Turn{{Text: "Looking.", ToolCalls: []fake.ToolCall{
				ls,
				{Name: "read", Input: json.RawMessage(`{"path":"a.txt","limit":5}`)},
				{Name: "bash", Input: json.RawMessage(`{"command":"echo \"hi\" ✓"}`)},
			}}},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err != nil {
					t.Fatal(c.err)
				}
				uses := c.resp.Message.ToolUses()
				want := []string{`ls {"path":"."}`, `read {"path":"a.txt","limit":5}`, `bash {"command":"echo \"hi\" ✓"}`}
				var got []string
				ids := map[string]bool{}
				for _, u := range uses {
					got = append(got, u.Name+" "+string(u.Input))
					ids[u.ID] = true
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("tool calls = %q, want %q", got, want)
				}
				if len(ids) != 3 || ids[""] {
					t.Errorf("tool call ids not distinct: %v", ids)
				}
				if c.resp.StopReason != "tool_use" || c.resp.Message.TextOf() != "Looking." {
					t.Errorf("stop %q text %q", c.resp.StopReason, c.resp.Message.TextOf())
				}
			},
		},
		{
			name: "500 then success is retried",
			turns: []fake.Turn{
				{Error: &fake.ErrorReply{Status: 500, Message: "internal trouble"}},
				{Text: "Recovered."},
			},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err != nil {
					t.Fatal(c.err)
				}
				if c.resp.Message.TextOf() != "Recovered." {
					t.Errorf("text = %q", c.resp.Message.TextOf())
				}
				if len(c.retries) != 1 || c.retries[0].attempt != 2 {
					t.Fatalf("retries = %+v, want one announcing attempt 2", c.retries)
				}
				var apiErr *provider.APIError
				if !errors.As(c.retries[0].cause, &apiErr) || apiErr.Status != 500 || apiErr.Message != "internal trouble" {
					t.Errorf("retry cause = %v", c.retries[0].cause)
				}
				if d := c.retries[0].delay; d < 250*time.Millisecond || d > 500*time.Millisecond {
					t.Errorf("first backoff = %v, want within [0.25s, 0.5s]", d)
				}
				if len(srv.Requests()) != 2 {
					t.Errorf("requests = %d, want 2", len(srv.Requests()))
				}
			},
		},
		{
			name: "429 waits what Retry-After says",
			turns: []fake.Turn{
				{Error: &fake.ErrorReply{Status: 429, Message: "slow down", RetryAfter: 3}},
				{Text: "Fine."},
			},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err != nil {
					t.Fatal(c.err)
				}
				if len(c.retries) != 1 || c.retries[0].delay != 3*time.Second {
					t.Errorf("retries = %+v, want one of 3s", c.retries)
				}
				if !reflect.DeepEqual(c.slept, []time.Duration{3 * time.Second}) {
					t.Errorf("slept %v, want [3s]", c.slept)
				}
			},
		},
		{
			name: "stream cut mid tool call is retried, never half returned",
			turns: []fake.Turn{
				{Text: "Let me see.", ToolCalls: []fake.ToolCall{ls, {Name: "read", Input: json.RawMessage(`{"path":"long/path/to/file.go"}`)}}, Cut: true},
				{Text: "Let me see.", ToolCalls: []fake.ToolCall{ls}},
			},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err != nil {
					t.Fatal(c.err)
				}
				if len(c.retries) != 1 {
					t.Fatalf("retries = %+v, want 1", c.retries)
				}
				if ok, _ := provider.Retryable(c.retries[0].cause); !ok {
					t.Errorf("cut cause %v not retryable", c.retries[0].cause)
				}
				uses := c.resp.Message.ToolUses()
				if len(uses) != 1 || uses[0].Name != "ls" {
					t.Errorf("tool calls = %+v, want the one of the complete stream", uses)
				}
			},
		},
		{
			name:  "cut stream that keeps failing returns an error, not a partial message",
			turns: []fake.Turn{{ToolCalls: []fake.ToolCall{ls}, Cut: true}, {Text: "Half a reply here", Cut: true}, {ToolCalls: []fake.ToolCall{ls}, Cut: true}},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err == nil {
					t.Fatalf("no error; message %+v", c.resp.Message)
				}
				if len(c.resp.Message.Content) != 0 {
					t.Errorf("partial message returned: %+v", c.resp.Message)
				}
				if len(c.retries) != 2 || !strings.Contains(c.err.Error(), "gave up after 3 attempts") {
					t.Errorf("retries %d, err %v", len(c.retries), c.err)
				}
			},
		},
		{
			name:  "401 fails at once with the provider's message",
			turns: []fake.Turn{{Error: &fake.ErrorReply{Status: 401, Message: "invalid x-api-key"}}, {Text: "never"}},
			check: func(t *testing.T, w wire, srv *fake.Server, c call) {
				if c.err == nil {
					t.Fatal("no error")
				}
				if len(c.retries) != 0 || len(srv.Requests()) != 1 {
					t.Errorf("retried: %d retries, %d requests", len(c.retries), len(srv.Requests()))
				}
				want := w.name + ": HTTP 401 Unauthorized: invalid x-api-key"
				if c.err.Error() != want {
					t.Errorf("error = %q, want %q", c.err, want)
				}
			},
		},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				srv := startFake(t, tc.turns...)
				c := stream(context.Background(), w.new(srv.URL()), baseRequest())
				tc.check(t, w, srv, c)
			})
		}
	}
}

func TestToolRoundTrip(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			srv := startFake(t,
				fake.Turn{Text: "Listing.", ToolCalls: []fake.ToolCall{{Name: "ls", Input: json.RawMessage(`{"path":"."}`)}}},
				fake.Turn{Text: "There are {{last_tool_result_lines}} entries."},
			)
			p := w.new(srv.URL())
			req := baseRequest()
			first := stream(context.Background(), p, req)
			if first.err != nil {
				t.Fatal(first.err)
			}
			uses := first.resp.Message.ToolUses()
			if len(uses) != 1 || uses[0].Name != "ls" || string(uses[0].Input) != `{"path":"."}` {
				t.Fatalf("tool calls = %+v", uses)
			}
			id := uses[0].ID
			req.Messages = append(req.Messages, first.resp.Message, chat.Message{Role: chat.User, Content: []chat.Block{
				{Type: chat.ToolResult, ToolUseID: id, Text: "a.go\nb.go\nREADME.md\n"},
			}})
			second := stream(context.Background(), p, req)
			if second.err != nil {
				t.Fatal(second.err)
			}
			if got := second.resp.Message.TextOf(); got != "There are 3 entries." {
				t.Errorf("answer = %q", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %d", len(reqs))
			}
			if got := w.toolResult(t, decode(t, reqs[1]), id); got != "a.go\nb.go\nREADME.md\n" {
				t.Errorf("tool result text sent = %q", got)
			}
		})
	}
}

func TestCanceledContextIsNotRetried(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			srv := startFake(t, fake.Turn{Text: "unused"})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			c := stream(ctx, w.new(srv.URL()), baseRequest())
			if !errors.Is(c.err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", c.err)
			}
			if len(c.retries) != 0 {
				t.Errorf("retried %d times", len(c.retries))
			}
		})
	}
}

func TestConnectionRefusedIsRetried(t *testing.T) {
	srv := startFake(t)
	root := srv.URL()
	srv.Close()
	for _, w := range wires() {
		t.Run(w.name, func(t *testing.T) {
			c := stream(context.Background(), w.new(root), baseRequest())
			if c.err == nil || len(c.retries) != 2 {
				t.Errorf("err %v after %d retries, want an error after 2", c.err, len(c.retries))
			}
		})
	}
}

// BenchmarkStream measures one streamed call through an adapter and the
// fake over loopback HTTP (the fake answers every request once its script
// is exhausted).
func BenchmarkStream(b *testing.B) {
	for _, w := range wires() {
		b.Run(w.name, func(b *testing.B) {
			srv, err := fake.Start(fake.Script{})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			p := w.new(srv.URL())
			req := baseRequest()
			for b.Loop() {
				if _, err := p.Stream(context.Background(), req, provider.Callbacks{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
