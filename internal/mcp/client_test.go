package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// fastLimits are the documented limits with a short connect deadline.
func fastLimits() Limits {
	l := DefaultLimits()
	l.ConnectTimeout = 3 * time.Second
	return l
}

func byName(st []Status) map[string]Status {
	out := map[string]Status{}
	for _, s := range st {
		out[s.Name] = s
	}
	return out
}

// TestMisbehavingServersAreIsolated starts one healthy server beside
// each kind of broken one: every broken one fails with its own sanitised
// reason, and the healthy one's tools work.
func TestMisbehavingServersAreIsolated(t *testing.T) {
	l := fastLimits()
	l.ConnectTimeout = 1500 * time.Millisecond
	secret := "--token=s3cret-value"
	broken := testServer(t, "args", "ok", nil)
	broken.Command, broken.Args = "/nonexistent/server-binary", []string{secret}
	servers, st := startAll(t, l,
		testServer(t, "good", "ok", nil),
		testServer(t, "hang", "hang", nil),
		testServer(t, "big", "bigframe", nil),
		testServer(t, "many", "ok", map[string]string{"TOOLS": "65"}),
		testServer(t, "dupes", "ok", map[string]string{"DUPES": "1"}),
		testServer(t, "schema", "badschema", nil),
		broken,
		config.MCPServer{Name: "dies", Command: "sh", Args: []string{"-c", "echo secret-stderr >&2; exit 3"}},
		config.MCPServer{Name: "keyless", Command: "true", EnvFrom: []string{"WISP_TEST_SURELY_UNSET_VAR"}},
	)
	got := byName(st)
	want := map[string]struct{ state, why string }{
		"good":    {StateReady, ""},
		"hang":    {StateFailed, "the server did not connect and list its tools within 1.5s"},
		"big":     {StateFailed, "the server sent a protocol frame larger than 2 MiB"},
		"many":    {StateFailed, "the server lists more than 64 tools"},
		"dupes":   {StateFailed, "tool definition 5 (echo) repeats a name listed before"},
		"schema":  {StateFailed, `tool definition 4 (env) has an input schema that is not a JSON Schema of "type": "object"`},
		"args":    {StateFailed, "could not start the server process"},
		"dies":    {StateFailed, "the server process exited during start-up"},
		"keyless": {StateSkipped, "environment variable WISP_TEST_SURELY_UNSET_VAR (env_from) is not set"},
	}
	for name, w := range want {
		if got[name].State != w.state || got[name].Error != w.why {
			t.Errorf("%s: got %s %q, want %s %q", name, got[name].State, got[name].Error, w.state, w.why)
		}
		if strings.Contains(got[name].Error, secret) || strings.Contains(got[name].Error, "secret-stderr") || strings.Contains(got[name].Error, os.Args[0]) {
			t.Errorf("%s: diagnostic leaks the command or its arguments: %q", name, got[name].Error)
		}
	}
	tools := servers.Tools(context.Background(), nil)
	if len(tools) != 4 || got["good"].Tools != 4 {
		t.Fatalf("got %d tools (status %d), want the good server's 4", len(tools), got["good"].Tools)
	}
	res := call(t, find(t, tools, "mcp__good__echo"), `{"message":"hi"}`)
	if res.Content != "Echo: hi" || res.IsError {
		t.Fatalf("echo: %+v", res)
	}
}

func find(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, x := range tools {
		if x.Spec().Name == name {
			return x
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func call(t *testing.T, x tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := x.Run(context.Background(), &tool.Env{}, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCrashMidCall: a server that dies during a call fails that call and
// is marked failed; the other server goes on.
func TestCrashMidCall(t *testing.T) {
	servers, _ := startAll(t, fastLimits(), testServer(t, "a", "ok", nil), testServer(t, "b", "ok", nil))
	tools := servers.Tools(context.Background(), nil)
	res := call(t, find(t, tools, "mcp__a__crash"), `{}`)
	if !res.IsError || res.Content != "error: MCP server a failed: the server process stopped during a call" {
		t.Fatalf("crash: %+v", res)
	}
	if st := byName(servers.Status())["a"]; st.State != StateFailed || st.Error != "the server process stopped during a call" {
		t.Fatalf("status after the crash: %+v", st)
	}
	if res := call(t, find(t, tools, "mcp__a__echo"), `{"message":"x"}`); !res.IsError {
		t.Fatalf("a call to a failed server ran: %+v", res)
	}
	if res := call(t, find(t, tools, "mcp__b__echo"), `{"message":"x"}`); res.Content != "Echo: x" {
		t.Fatalf("the other server: %+v", res)
	}
}

// TestPerServerLimits feeds each limit of one server exactly and one past.
func TestPerServerLimits(t *testing.T) {
	def := func(desc int) int { // one tool definition's size as the client counts it
		raw := fmt.Sprintf(`{"name":"echo","description":%q,"inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}`, strings.Repeat("d", desc))
		var d sdk.Tool
		if err := json.Unmarshal([]byte(raw), &d); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(&d)
		return len(b)
	}
	// Four tools whose names differ in length (echo, crash, image, env).
	size4 := def(100)*4 + (len("crash") - 4) + (len("image") - 4) + (len("env") - 4)
	cases := []struct {
		name  string
		vars  map[string]string
		limit func(*Limits)
		fail  string
	}{
		{"64 tools", map[string]string{"TOOLS": "64"}, nil, ""},
		{"65 tools", map[string]string{"TOOLS": "65"}, nil, "the server lists more than 64 tools"},
		{"64 pages", map[string]string{"TOOLS": "64", "PER_PAGE": "1"}, nil, ""},
		{"65 pages", map[string]string{"TOOLS": "65", "PER_PAGE": "1"}, func(l *Limits) { l.ToolsPerServer = 100 }, "the server lists its tools in more than 64 pages"},
		{"frame at the limit", map[string]string{serverModeVar: "bigframe", "FRAME_BYTES": fmt.Sprint(MaxFrameBytes)}, nil, ""},
		{"frame one past", map[string]string{serverModeVar: "bigframe", "FRAME_BYTES": fmt.Sprint(MaxFrameBytes + 1)}, nil, "the server sent a protocol frame larger than 2 MiB"},
		{"definitions at the limit", map[string]string{"DESC_BYTES": "100"}, func(l *Limits) { l.ServerDefinitionBytes = size4 }, ""},
		{"definitions one past", map[string]string{"DESC_BYTES": "100"}, func(l *Limits) { l.ServerDefinitionBytes = size4 - 1 }, fmt.Sprintf("the server's tool definitions pass %d bytes", size4-1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := fastLimits()
			if c.limit != nil {
				c.limit(&l)
			}
			_, st := startAll(t, l, testServer(t, "s", "ok", c.vars))
			if c.fail == "" && st[0].State != StateReady {
				t.Fatalf("refused at the limit: %+v", st[0])
			}
			if c.fail != "" && (st[0].State != StateFailed || st[0].Error != c.fail || st[0].Tools != 0) {
				t.Fatalf("got %+v, want failed %q with no tools", st[0], c.fail)
			}
		})
	}
}

// TestOverallLimits: 256 tools and the overall definition bytes, exactly
// and one past; the server that would pass registers none of its tools.
func TestOverallLimits(t *testing.T) {
	full := func(name string, n int) config.MCPServer {
		return testServer(t, name, "ok", map[string]string{"TOOLS": fmt.Sprint(n)})
	}
	t.Run("256 tools", func(t *testing.T) {
		s, st := startAll(t, fastLimits(), full("a", 64), full("b", 64), full("c", 64), full("d", 64))
		if n := len(s.Tools(context.Background(), nil)); n != 256 {
			t.Fatalf("got %d tools, want 256: %+v", n, st)
		}
	})
	t.Run("257 tools", func(t *testing.T) {
		s, _ := startAll(t, fastLimits(), full("a", 64), full("b", 64), full("c", 64), full("d", 64), full("e", 1))
		if n := len(s.Tools(context.Background(), nil)); n != 256 {
			t.Fatalf("got %d tools, want 256", n)
		}
		if st := byName(s.Status())["e"]; st.State != StateFailed || st.Error != "its 1 tools would pass the limit of 256 MCP tools overall" {
			t.Fatalf("the server past the limit: %+v", st)
		}
	})
	for _, c := range []struct {
		name  string
		slack int
		tools int
	}{{"definitions at the overall limit", 0, 8}, {"definitions one past the overall limit", -1, 4}} {
		t.Run(c.name, func(t *testing.T) {
			one, _ := startAll(t, fastLimits(), full("a", 4))
			size := one.servers[0].catalogue.bytes
			l := fastLimits()
			l.DefinitionBytes = 2*size + c.slack
			s, _ := startAll(t, l, full("a", 4), full("b", 4))
			if n := len(s.Tools(context.Background(), nil)); n != c.tools {
				t.Fatalf("got %d tools, want %d: %+v", n, c.tools, s.Status())
			}
		})
	}
}

// TestServerCountLimit: 16 servers are accepted, the 17th is not started.
func TestServerCountLimit(t *testing.T) {
	var list []config.MCPServer
	for i := range 17 {
		list = append(list, config.MCPServer{Name: fmt.Sprintf("s%02d", i), Command: "/nonexistent/x"})
	}
	_, st := startAll(t, fastLimits(), list...)
	for i, s := range st {
		want := "could not start the server process"
		if i == 16 {
			want = "more than 16 MCP servers are configured; this one is not started"
		}
		if s.Error != want {
			t.Errorf("server %d: %q, want %q", i, s.Error, want)
		}
	}
}

// TestAnnotationsNeverWeaken: readOnlyHint leaves a tool command; only an
// exact tool_safety entry sets its class.
func TestAnnotationsNeverWeaken(t *testing.T) {
	srv := testServer(t, "s", "ok", map[string]string{"ANNOTATE": "1"})
	srv.ToolSafety = map[string]string{"echo": "read", "image": "mutating", "Env": "read"}
	s, _ := startAll(t, fastLimits(), srv)
	want := map[string]tool.Class{"mcp__s__echo": tool.Read, "mcp__s__crash": tool.Command, "mcp__s__image": tool.Mutating, "mcp__s__env": tool.Command}
	for _, x := range s.Tools(context.Background(), nil) {
		if got := x.Spec().Class; got != want[x.Spec().Name] {
			t.Errorf("%s: class %s, want %s", x.Spec().Name, got, want[x.Spec().Name])
		}
	}
}

// TestServerEnvironment: a server sees the baseline, env and env_from,
// nothing else of wisp's environment, and runs from the home folder.
func TestServerEnvironment(t *testing.T) {
	t.Setenv("WISP_TEST_FORWARDED", "fwd")
	t.Setenv("WISP_TEST_NOT_FORWARDED", "leak")
	srv := testServer(t, "s", "ok", map[string]string{"LITERAL": "lit"})
	srv.EnvFrom = []string{"WISP_TEST_FORWARDED"}
	s, _ := startAll(t, fastLimits(), srv)
	res := call(t, find(t, s.Tools(context.Background(), nil), "mcp__s__env"), `{}`)
	allowed := regexp.MustCompile(`^(PATH|HOME|USER|LOGNAME|SHELL|TERM|LANG|LITERAL|WISP_TEST_FORWARDED|` + serverModeVar + `)=`)
	for _, kv := range strings.Split(res.Content, "\n") {
		if !allowed.MatchString(kv) {
			t.Errorf("the server got %q", kv)
		}
	}
	for _, kv := range []string{"LITERAL=lit", "WISP_TEST_FORWARDED=fwd"} {
		if !strings.Contains(res.Content, kv) {
			t.Errorf("the server did not get %s", kv)
		}
	}
}

// TestResults: images and embedded resources become notes; text is
// bounded by the output limit, head kept.
func TestResults(t *testing.T) {
	s, _ := startAll(t, fastLimits(), testServer(t, "s", "ok", nil))
	tools := s.Tools(context.Background(), nil)
	res := call(t, find(t, tools, "mcp__s__image"), `{}`)
	want := "[image image/png, 5 bytes, not shown]\n[embedded resource file:///x.txt (text/plain, text, 11 bytes), not shown]"
	if res.Content != want {
		t.Fatalf("got %q, want %q", res.Content, want)
	}
	env := &tool.Env{OutputBytes: 100, OutputLines: 10}
	res, err := find(t, tools, "mcp__s__echo").Run(context.Background(), env, json.RawMessage(`{"message":"5000"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Content, "Echo: yyy") || !strings.HasSuffix(res.Content, "[output cut: 100 of 5006 bytes shown (output bound 100 bytes, 10 lines)]") {
		t.Fatalf("bounded result: %q", res.Content)
	}
}
