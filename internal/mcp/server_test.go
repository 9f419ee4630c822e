package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/config"
)

// serverModeVar makes the test binary an MCP server that misbehaves as
// the mode says (see serveTest), instead of running the tests.
const serverModeVar = "WISP_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeVar); mode != "" {
		os.Exit(serveTest(mode))
	}
	os.Exit(m.Run())
}

// testServer configures a server that is this test binary in a mode;
// vars tune it (TOOLS, PER_PAGE, DESC_BYTES, DUPES, ANNOTATE).
func testServer(t testing.TB, name, mode string, vars map[string]string) config.MCPServer {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{serverModeVar: mode}
	for k, v := range vars {
		env[k] = v
	}
	return config.MCPServer{Name: name, Command: self, Env: env}
}

type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// serveTest is a line-by-line JSON-RPC MCP server written for the tests,
// so that it can break the protocol in ways a real SDK server would not:
//
//	ok        answers after START_DELAY_MS; TOOLS tools (default 4: echo, crash, image, env,
//	          then t5, t6, …), PER_PAGE a page, DESC_BYTES of description
//	          each, DUPES=1 lists echo twice, ANNOTATE=1 marks every tool
//	          readOnlyHint
//	hang      never answers
//	bigframe  answers tools/list with one frame of FRAME_BYTES (3 MiB)
//	badschema lists a tool whose input schema is not an object schema
func serveTest(mode string) int {
	if mode == "hang" {
		time.Sleep(time.Hour)
		return 0
	}
	time.Sleep(time.Duration(envInt("START_DELAY_MS", 0)) * time.Millisecond)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req rpcRequest
		if json.Unmarshal(in.Bytes(), &req) != nil || len(req.ID) == 0 {
			continue
		}
		if mode == "bigframe" && req.Method == "tools/list" {
			n := envInt("FRAME_BYTES", 3<<20)
			pad := strings.Repeat("x", n-len(`{"jsonrpc":"2.0","id":,"result":{"tools":[],"pad":""}}`)-len(req.ID))
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"pad":"%s"}}`+"\n", req.ID, pad)
			out.Flush()
			continue
		}
		result, fail := answer(mode, req)
		var msg any = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}
		if fail != "" {
			msg = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": fail}}
		}
		raw, _ := json.Marshal(msg)
		out.Write(append(raw, '\n'))
		out.Flush()
	}
	return 0
}

func answer(mode string, req rpcRequest) (any, string) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "test", "version": "1"}}, ""
	case "ping":
		return map[string]any{}, ""
	case "tools/list":
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params, &p)
		return listPage(mode, p.Cursor), ""
	case "tools/call":
		return callTool(req.Params)
	}
	return nil, "method not found"
}

// testTools are the definitions serveTest lists.
func testTools(mode string) []map[string]any {
	n := envInt("TOOLS", 4)
	names := []string{"echo", "crash", "image", "env"}
	schema := map[string]any{"type": "object", "properties": map[string]any{"message": map[string]any{"type": "string"}}}
	var out []map[string]any
	for i := range n {
		name := fmt.Sprintf("t%d", i+1)
		if i < len(names) {
			name = names[i]
		}
		d := map[string]any{"name": name, "description": strings.Repeat("d", envInt("DESC_BYTES", 10)), "inputSchema": schema}
		if os.Getenv("ANNOTATE") == "1" {
			d["annotations"] = map[string]any{"readOnlyHint": true, "destructiveHint": false}
		}
		if mode == "badschema" && i == n-1 {
			d["inputSchema"] = map[string]any{"type": "string"}
		}
		out = append(out, d)
	}
	if os.Getenv("DUPES") == "1" {
		out = append(out, out[0])
	}
	return out
}

func listPage(mode, cursor string) map[string]any {
	all := testTools(mode)
	per := envInt("PER_PAGE", len(all)+1)
	start, _ := strconv.Atoi(cursor)
	end := min(start+per, len(all))
	res := map[string]any{"tools": all[start:end]}
	if end < len(all) {
		res["nextCursor"] = strconv.Itoa(end)
	}
	return res
}

func callTool(params json.RawMessage) (any, string) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	text := func(s string) any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	switch p.Name {
	case "echo":
		msg, _ := p.Arguments["message"].(string)
		if n, err := strconv.Atoi(msg); err == nil {
			msg = strings.Repeat("y", n)
		}
		return text("Echo: " + msg), ""
	case "crash":
		os.Exit(3)
	case "image":
		return map[string]any{"content": []any{
			map[string]any{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///x.txt", "mimeType": "text/plain", "text": "secret body"}},
		}}, ""
	case "env":
		return text(strings.Join(os.Environ(), "\n")), ""
	}
	return text("ok"), ""
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// startAll starts servers with limits and waits for their tools.
func startAll(t *testing.T, l Limits, list ...config.MCPServer) (*Servers, []Status) {
	t.Helper()
	home := t.TempDir()
	s := Start(context.Background(), list, Options{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return os.Getenv(k)
	}, Home: home, Version: "test", Limits: l})
	t.Cleanup(s.Close)
	s.Tools(context.Background(), nil)
	return s, s.Status()
}
