package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/mcp/mcptest"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// mcpSettings configures server-everything, server-filesystem over root
// (read_text_file assigned read) and a server that fails to start.
func mcpSettings(t *testing.T, root string) string {
	everything := mcptest.NPMServer(t, "mcp-server-everything")
	filesystem := mcptest.NPMServer(t, "mcp-server-filesystem")
	return fmt.Sprintf(`{"mcp_servers": {
		"everything": {"command": %q, "args": ["stdio"]},
		"fs": {"command": %q, "args": [%q], "tool_safety": {"read_text_file": "read"}},
		"gone": {"command": "/nonexistent/mcp-server", "args": ["--secret-arg"]}
	}}`, everything, filesystem, root)
}

// exposedNames are the tool names the first request offered the model.
func exposedNames(t *testing.T, srv *fake.Server) []string {
	t.Helper()
	var req struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range req.Tools {
		out = append(out, x.Name)
	}
	return out
}

// TestMCPToolsEndToEnd drives a session through the fake provider: the
// model calls server-everything's echo and server-filesystem's
// read_text_file; the failing server is a sanitised warning and the
// others work.
func TestMCPToolsEndToEnd(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "note.txt"), []byte("written by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fake.Script{Turns: []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "mcp__everything__echo", Input: json.RawMessage(`{"message":"from the model"}`)}}},
		{Text: "echo said: {{last_tool_result}}", ToolCalls: []fake.ToolCall{{Name: "mcp__fs__read_text_file", Input: json.RawMessage(`{"path":"` + filepath.Join(root, "note.txt") + `"}`)}}},
		{Text: "file said: {{last_tool_result}}"},
	}}
	r := newCompactRig(t, "anthropic", script, mcpSettings(t, root))
	s := r.open(t, Options{AllowTools: []string{"mcp__everything__echo", "mcp__fs__read_text_file"}})
	defer s.Close()
	if got := strings.TrimSpace(r.prompt(t, s, "use the MCP tools")); got != "file said: written by hand" {
		t.Fatalf("final answer %q\n%s", got, r.stderr)
	}
	reqs := r.srv.Requests()
	if !strings.Contains(string(reqs[1].Body), "Echo: from the model") {
		t.Fatalf("the echo result did not reach the model: %s", reqs[1].Body)
	}
	if got := exposedNames(t, r.srv); !slices.Equal(got, []string{"mcp__everything__echo", "mcp__fs__read_text_file"}) {
		t.Fatalf("exposed %v", got)
	}
	warn := r.stderr.String()
	if !strings.Contains(warn, "wisp: warning: MCP server gone failed: could not start the server process\n") || strings.Contains(warn, "secret-arg") || strings.Contains(warn, "/nonexistent") {
		t.Fatalf("stderr %q", warn)
	}
	logs, _ := filepath.Glob(filepath.Join(r.env["WISP_HOME"], "logs", "*"))
	var audited strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		audited.Write(data)
	}
	if !strings.Contains(audited.String(), `"message":"MCP server gone failed: could not start the server process","where":"mcp"`) {
		t.Errorf("the failure is not in the audit log:\n%s", audited.String())
	}
	st := map[string]mcp.Status{}
	for _, x := range s.MCPStatus() {
		st[x.Name] = x
	}
	if st["everything"].State != mcp.StateReady || st["fs"].State != mcp.StateReady || st["gone"].State != mcp.StateFailed {
		t.Fatalf("status %+v", st)
	}
}

// TestMCPExposure: --allow-read-tools brings in an MCP tool assigned read
// and no other; without --yes a command-class MCP call is refused in
// print mode and never reaches the server.
func TestMCPExposure(t *testing.T) {
	root := t.TempDir()
	script := fake.Script{Turns: []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "mcp__fs__write_file", Input: json.RawMessage(`{"path":"` + filepath.Join(root, "x.txt") + `","content":"no"}`)}}},
		{Text: "got: {{last_tool_result}}"},
	}}
	r := newCompactRig(t, "anthropic", script, mcpSettings(t, root))
	o := Options{AllowReadTools: true, AllowTools: []string{"mcp__fs__write_file"}, SessionDir: r.dir, MaxToolIters: -1}
	s, err := New(context.Background(), o, r.sys, Frontend{Mode: "print"})
	if err != nil {
		t.Fatalf("%v\n%s", err, r.stderr)
	}
	defer s.Close()
	got := r.prompt(t, s, "write a file")
	if !strings.Contains(got, "not approved") {
		t.Fatalf("final answer %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "x.txt")); err == nil {
		t.Fatal("the refused call wrote the file")
	}
	names := exposedNames(t, r.srv)
	if !slices.Contains(names, "mcp__fs__read_text_file") || !slices.Contains(names, "mcp__fs__write_file") || slices.Contains(names, "mcp__everything__echo") || slices.Contains(names, "mcp__fs__read_file") {
		t.Fatalf("exposed %v", names)
	}
}
