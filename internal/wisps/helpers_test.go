package wisps

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// fakeTools is a Tools with scripted answers.
type fakeTools struct {
	mu    sync.Mutex
	specs map[string]tool.Spec
	// servers maps server → its own tool names; the typed name is
	// server__tool and the session name mcp__server__tool.
	servers map[string][]string
	answer  func(ctx context.Context, name string, args json.RawMessage) (tool.Result, error)
	calls   []string
	args    []string
}

func newFakeTools() *fakeTools {
	f := &fakeTools{specs: map[string]tool.Spec{}, servers: map[string][]string{"fs": {"read_file", "write_file"}, "mail": {"search", "get_message", "create"}}}
	for _, n := range []string{"execute_python_script", "execute_bash_script", "execute_sh_script", "execute_node_script"} {
		f.specs[n] = tool.Spec{Name: n, Class: tool.Command}
	}
	f.specs["web_browse"] = tool.Spec{Name: "web_browse", Class: tool.Read}
	f.specs["read"] = tool.Spec{Name: "read", Class: tool.Read}
	for srv, ts := range f.servers {
		for _, t := range ts {
			class := tool.Read
			if strings.HasPrefix(t, "write") || t == "create" {
				class = tool.Command
			}
			n := "mcp__" + srv + "__" + t
			f.specs[n] = tool.Spec{Name: n, Class: class, Description: t}
		}
	}
	f.answer = func(_ context.Context, name string, args json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: name + " " + string(args)}, nil
	}
	return f
}

func (f *fakeTools) Call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	f.args = append(f.args, string(args))
	f.mu.Unlock()
	return f.answer(ctx, name, args)
}

func (f *fakeTools) Spec(name string) (tool.Spec, bool) { s, ok := f.specs[name]; return s, ok }

func (f *fakeTools) MCPTool(server, name string) (MCPRef, bool) {
	if server == "" {
		full := "mcp__" + name
		if _, ok := f.specs[full]; ok {
			srv, t, _ := strings.Cut(name, "__")
			return MCPRef{Name: full, Server: srv, Tool: t}, true
		}
		return MCPRef{}, false
	}
	for _, t := range f.servers[server] {
		if t == name {
			return MCPRef{Name: "mcp__" + server + "__" + name, Server: server, Tool: name}, true
		}
	}
	return MCPRef{}, false
}

func (f *fakeTools) ServerTools(server string) []string {
	var out []string
	for _, t := range f.servers[server] {
		out = append(out, "mcp__"+server+"__"+t)
	}
	return out
}

func (f *fakeTools) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func mustParse(t *testing.T, src string) Definition {
	t.Helper()
	defs, err := ParseFile([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return defs[0]
}

func mustPlan(t *testing.T, ft *fakeTools, src string) *Plan {
	t.Helper()
	p, err := Prepare(mustParse(t, src), ft)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return p
}

func runOne(t *testing.T, ft *fakeTools, src string) (Result, *Executor) {
	t.Helper()
	x := NewExecutor(Options{Tools: ft, Volume: Volume{Root: t.TempDir()}, Memory: memory.New(nil)})
	return x.Run(context.Background(), Job{WispID: "wisp-t", Plan: mustPlan(t, ft, src)}), x
}

var errBoom = errors.New("boom")
