package host

import (
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

// offeredTools are the names and definitions of the tools one recorded
// request offered, in either wire format.
func offeredTools(t *testing.T, body []byte) map[string]string {
	t.Helper()
	var req struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, raw := range req.Tools {
		var x struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &x); err != nil {
			t.Fatal(err)
		}
		out[x.Name+x.Function.Name] = string(raw)
	}
	return out
}

// TestMCPSchemaBudget attaches server-everything and server-filesystem
// with every tool exposed: the first request stays within 16 KiB in both
// wire formats, the MCP tools past the budget are listed in
// tool_search, a search offers the matches in full from the next request
// on, and a listed tool called by its exact name runs.
func TestMCPSchemaBudget(t *testing.T) {
	everything := mcptest.NPMServer(t, "mcp-server-everything")
	filesystem := mcptest.NPMServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := fmt.Sprintf(`{"mcp_servers": {
		"everything": {"command": %q, "args": ["stdio"]},
		"fs": {"command": %q, "args": [%q]}
	}}`, everything, filesystem, root)
	for _, wire := range []string{"anthropic", "openai"} {
		t.Run(wire, func(t *testing.T) {
			script := fake.Script{Turns: []fake.Turn{
				{ToolCalls: []fake.ToolCall{{Name: mcp.SearchName, Input: json.RawMessage(`{"query":"tree"}`)}}},
				{ToolCalls: []fake.ToolCall{{Name: "mcp__fs__list_allowed_directories", Input: json.RawMessage(`{}`)}}},
				{Text: "allowed: {{last_tool_result}}"},
			}}
			r := newCompactRig(t, wire, script, settings)
			s := r.open(t, Options{AllowAllTools: true})
			defer s.Close()
			got := r.prompt(t, s, "find a tool")
			reqs := r.srv.Requests()
			if n := len(reqs[0].Body); n > mcp.DefaultSchemaBudget {
				t.Errorf("the first request holds %d bytes, past %d", n, mcp.DefaultSchemaBudget)
			}
			first, second := offeredTools(t, reqs[0].Body), offeredTools(t, reqs[1].Body)
			t.Logf("first request: %d bytes, %d tools offered", len(reqs[0].Body), len(first))
			search, ok := first[mcp.SearchName]
			if !ok {
				t.Fatalf("tool_search is not offered: %v", first)
			}
			for _, name := range []string{"mcp__fs__directory_tree", "mcp__fs__list_allowed_directories"} {
				if _, in := first[name]; in || !strings.Contains(search, "- "+name+": ") {
					t.Errorf("%s: offered %v, listed in tool_search: %v", name, in, strings.Contains(search, "- "+name))
				}
			}
			if _, ok := first["mcp__everything__echo"]; !ok {
				t.Errorf("the tools within the budget are not offered in full: %v", first)
			}
			if _, ok := first["read"]; !ok {
				t.Errorf("the built-ins are not offered: %v", first)
			}
			tree, ok := second["mcp__fs__directory_tree"]
			if !ok || !strings.Contains(tree, `"path"`) {
				t.Errorf("the search did not offer directory_tree in full: %q", tree)
			}
			if _, ok := second["mcp__fs__list_allowed_directories"]; ok {
				t.Errorf("a tool the search did not find is offered in full")
			}
			if !strings.Contains(string(reqs[1].Body), "mcp__fs__directory_tree") || !strings.Contains(got, root) {
				t.Errorf("the search result or the direct call did not reach the model: %q\n%s", got, r.stderr)
			}
			logs, _ := filepath.Glob(filepath.Join(r.env["WISP_HOME"], "logs", "*"))
			var audited strings.Builder
			for _, l := range logs {
				data, _ := os.ReadFile(l)
				audited.Write(data)
			}
			if !strings.Contains(audited.String(), `"tool":"tool_search","class":"read","args":"{\"query\":\"tree\"}"`) {
				t.Errorf("tool_search did not go through the gate's audit:\n%s", audited.String())
			}
		})
	}
}

// TestMCPSchemaBudgetRoomy: when the budget leaves room for every tool,
// there is no tool_search and every MCP tool is offered.
func TestMCPSchemaBudgetRoomy(t *testing.T) {
	everything := mcptest.NPMServer(t, "mcp-server-everything")
	settings := fmt.Sprintf(`{"mcp": {"schema_budget_bytes": 1048576}, "mcp_servers": {"everything": {"command": %q, "args": ["stdio"]}}}`, everything)
	r := newCompactRig(t, "anthropic", fake.Script{Turns: []fake.Turn{{Text: "ok"}}}, settings)
	s := r.open(t, Options{AllowAllTools: true})
	defer s.Close()
	r.prompt(t, s, "hi")
	names := exposedNames(t, r.srv)
	if slices.Contains(names, mcp.SearchName) || !slices.Contains(names, "mcp__everything__echo") || !slices.Contains(names, "mcp__everything__get-sum") {
		t.Fatalf("offered %v", names)
	}
}
