package mcp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// httpServer is a streamable HTTP MCP server for the tests: echo, a
// tool that answers with size bytes, and n more tools; it answers 401
// unless the request carries Authorization: Bearer token.
func httpServer(t *testing.T, token string, jsonResponses bool, extra int) *httptest.Server {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "http-test", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echo a message."}, func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + a.Message}}}, nil, nil
	})
	type bigArgs struct {
		Size int `json:"size"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "big", Description: "Answer with size bytes."}, func(_ context.Context, _ *sdk.CallToolRequest, a bigArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", a.Size)}}}, nil, nil
	})
	for i := range extra {
		sdk.AddTool(srv, &sdk.Tool{Name: "t" + strings.Repeat("x", i+1), Description: "more"}, func(context.Context, *sdk.CallToolRequest, echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{}, nil, nil
		})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{JSONResponse: jsonResponses})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no entry for "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// startHTTP starts url servers with the test's environment.
func startHTTP(t *testing.T, env map[string]string, list ...config.MCPServer) (*Servers, map[string]Status) {
	t.Helper()
	s := Start(context.Background(), list, Options{Getenv: func(k string) string { return env[k] }, Home: t.TempDir(), Version: "test", Limits: fastLimits()})
	t.Cleanup(s.Close)
	s.Tools(context.Background(), nil)
	return s, byName(s.Status())
}

// TestStreamableHTTP: url servers, in both response styles, get their
// header from the named variable, list and call their tools, and hold
// to the frame limit; a missing variable, a refused token, a redirect
// and a catalogue past the limit each fail alone, with a diagnostic
// that quotes neither the address nor a header's value.
func TestStreamableHTTP(t *testing.T) {
	const token = "s3cret-token"
	env := map[string]string{"WISP_TEST_TOKEN": "Bearer " + token, "WISP_TEST_WRONG": "wrong-value"}
	auth := map[string]string{"Authorization": "WISP_TEST_TOKEN"}
	sse, js := httpServer(t, token, false, 0), httpServer(t, token, true, 0)
	many := httpServer(t, token, true, 63)
	wrong := httpServer(t, token, true, 0)
	var leaked atomic.Value
	catcher := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Authorization"); v != "" {
			leaked.Store(v)
		}
	}))
	t.Cleanup(catcher.Close)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, catcher.URL+"/elsewhere", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	servers, st := startHTTP(t, env,
		config.MCPServer{Name: "sse", URL: sse.URL, HeadersFrom: auth},
		config.MCPServer{Name: "json", URL: js.URL, HeadersFrom: auth, ToolSafety: map[string]string{"echo": "read"}},
		config.MCPServer{Name: "many", URL: many.URL, HeadersFrom: auth},
		config.MCPServer{Name: "keyless", URL: sse.URL, HeadersFrom: map[string]string{"Authorization": "WISP_TEST_UNSET"}},
		config.MCPServer{Name: "refused", URL: wrong.URL + "/?key=secret-query", HeadersFrom: map[string]string{"Authorization": "WISP_TEST_WRONG"}},
		config.MCPServer{Name: "moved", URL: redirect.URL, HeadersFrom: auth},
		config.MCPServer{Name: "gone", URL: catcher.URL + "/never"},
	)
	want := map[string]struct{ state, why string }{
		"sse":     {StateReady, ""},
		"json":    {StateReady, ""},
		"many":    {StateFailed, "the server lists more than 64 tools"},
		"keyless": {StateSkipped, "environment variable WISP_TEST_UNSET (headers_from) is not set"},
		"refused": {StateFailed, "the server answered with HTTP status 401 (Unauthorized)"},
		"moved":   {StateFailed, "the MCP handshake failed"},
		"gone":    {StateFailed, "the MCP handshake failed"},
	}
	for name, w := range want {
		got := st[name]
		if got.State != w.state || got.Error != w.why {
			t.Errorf("%s: got %s %q, want %s %q", name, got.State, got.Error, w.state, w.why)
		}
		for _, secret := range []string{token, "wrong-value", "secret-query", "127.0.0.1"} {
			if strings.Contains(got.Error, secret) {
				t.Errorf("%s: the diagnostic quotes %q: %q", name, secret, got.Error)
			}
		}
	}
	if leaked.Load() != nil {
		t.Errorf("a redirect carried the header to another address")
	}
	tools := servers.Tools(context.Background(), nil)
	for _, srv := range []string{"sse", "json"} {
		echo := find(t, tools, "mcp__"+srv+"__echo")
		if res := call(t, echo, `{"message":"over http"}`); res.IsError || res.Content != "Echo: over http" {
			t.Errorf("%s echo: %+v", srv, res)
		}
	}
	if c := find(t, tools, "mcp__json__echo").Spec().Class; c != tool.Read {
		t.Errorf("tool_safety: class %s", c)
	}
	if c := find(t, tools, "mcp__sse__echo").Spec().Class; c != tool.Command {
		t.Errorf("default class %s", c)
	}
	if _, ok := tools[0].(tool.Remote); !ok {
		t.Error("a url server's tool is not tool.Remote")
	}
}

// TestStreamableHTTPFrameLimit: a frame of the limit passes and one past
// it fails the call and the server, in both response styles.
func TestStreamableHTTPFrameLimit(t *testing.T) {
	for _, js := range []bool{false, true} {
		name := map[bool]string{false: "sse", true: "json"}[js]
		t.Run(name, func(t *testing.T) {
			ts := httpServer(t, "k", js, 0)
			servers, st := startHTTP(t, map[string]string{"K": "Bearer k"}, config.MCPServer{Name: "s", URL: ts.URL, HeadersFrom: map[string]string{"Authorization": "K"}})
			if st["s"].State != StateReady {
				t.Fatalf("%+v", st["s"])
			}
			big := find(t, servers.Tools(context.Background(), nil), "mcp__s__big")
			env := &tool.Env{OutputBytes: 100, OutputLines: 10}
			// The frame holds the text and some 100 bytes of JSON-RPC
			// around it: 1 MiB passes, 3 MiB does not.
			if res, err := big.Run(context.Background(), env, []byte(`{"size":1048576}`)); err != nil || res.IsError {
				t.Fatalf("1 MiB: %v %+v", err, res)
			}
			res, err := big.Run(context.Background(), env, []byte(`{"size":3145728}`))
			if err != nil || !res.IsError || res.Content != "error: MCP server s failed: the server sent a protocol frame larger than 2 MiB" {
				t.Fatalf("3 MiB: %v %+v", err, res)
			}
		})
	}
}

// TestFrameBodyEvents feeds event-stream bodies of exactly the limit per
// event and one past, with \n and \r\n line ends.
func TestFrameBodyEvents(t *testing.T) {
	const limit = 100
	event := func(n int, nl string) string {
		return "data: " + strings.Repeat("a", n-len("data: ")) + nl + nl
	}
	cases := []struct {
		name, body string
		events     bool
		over       bool
	}{
		{"events at the limit", event(limit, "\n") + event(limit, "\n"), true, false},
		{"crlf events at the limit", event(limit, "\r\n") + event(limit, "\r\n"), true, false},
		{"an event one past", event(limit, "\n") + event(limit+1, "\n"), true, true},
		{"two lines of one event past", "data: " + strings.Repeat("a", 50) + "\ndata: " + strings.Repeat("a", 50) + "\n\n", true, true},
		{"json at the limit", strings.Repeat("j", limit), false, false},
		{"json one past", strings.Repeat("j", limit+1), false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rt := &httpFrames{limit: limit}
			b := &frameBody{r: io.NopCloser(strings.NewReader(c.body)), t: rt, events: c.events}
			buf := make([]byte, 7)
			var err error
			for err == nil {
				_, err = b.Read(buf)
			}
			if rt.tooLarge() != c.over {
				t.Errorf("too large %v, want %v (%v)", rt.tooLarge(), c.over, err)
			}
		})
	}
}

// FuzzFrameBody holds frameBody to a plain reading of the rule, for any
// body read in any chunk size: an event stream's frame is the bytes
// (line ends and \r left out) between empty lines; a JSON body is one
// frame.
func FuzzFrameBody(f *testing.F) {
	f.Add("data: abc\n\ndata: def\r\n\r\n", true, 10, uint8(3))
	f.Add("data: "+strings.Repeat("x", 40)+"\n", true, 20, uint8(7))
	f.Add(`{"jsonrpc":"2.0"}`, false, 16, uint8(1))
	f.Fuzz(func(t *testing.T, body string, events bool, limit int, chunk uint8) {
		if limit < 1 || limit > 1<<16 || chunk == 0 {
			return
		}
		want := len(body) > limit
		if events {
			run, most := 0, 0
			for _, line := range strings.Split(body, "\n") {
				line = strings.ReplaceAll(line, "\r", "")
				if line == "" {
					run = 0
					continue
				}
				run += len(line)
				most = max(most, run)
			}
			want = most > limit
		}
		rt := &httpFrames{limit: limit}
		b := &frameBody{r: io.NopCloser(strings.NewReader(body)), t: rt, events: events}
		buf := make([]byte, chunk)
		var err error
		for err == nil {
			_, err = b.Read(buf)
		}
		if rt.tooLarge() != want {
			t.Fatalf("too large %v, want %v", rt.tooLarge(), want)
		}
	})
}
