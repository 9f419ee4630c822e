package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

// CallTool runs a served tool through the gate without a model: a read
// works, a command the gate asks about gets the frontend's refusal, and
// a name that is not served (unknown, or not exposed) is an error.
func TestCallTool(t *testing.T) {
	base := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys.Workdir, "note.txt"), []byte("SERVED-TEXT\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{AllowTools: []string{"read", "bash"}, MaxToolIters: -1, NoSession: true}
	s, err := New(context.Background(), o, sys, Frontend{Mode: "mcp", Approver: gate.Deny{Reason: "NOBODY-TO-ASK"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.servedNames(); strings.Join(got, ",") != "read,bash" {
		t.Fatalf("served tools = %v, want read and bash", got)
	}
	tests := []struct {
		name, tool, args string
		wantErr          string // CallTool's error
		wantIsError      bool
		wantHas          string
	}{
		{name: "read", tool: "read", args: `{"path":"note.txt"}`, wantHas: "SERVED-TEXT"},
		{name: "no arguments", tool: "read", args: ``, wantIsError: true},
		{name: "malformed arguments", tool: "read", args: `{"path":`, wantIsError: true, wantHas: "malformed arguments"},
		{name: "refused by the approver", tool: "bash", args: `{"command":"touch made"}`, wantIsError: true, wantHas: "NOBODY-TO-ASK"},
		{name: "unknown", tool: "nope", wantErr: `unknown tool "nope"; served tools: read, bash`},
		{name: "not exposed", tool: "write", args: `{"path":"w","content":"x"}`, wantErr: `unknown tool "write"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.CallTool(context.Background(), tc.tool, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.wantIsError || !strings.Contains(res.Content, tc.wantHas) {
				t.Fatalf("result = %+v, want is_error %v and %q", res, tc.wantIsError, tc.wantHas)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(sys.Workdir, "made")); !os.IsNotExist(err) {
		t.Fatalf("the refused command ran: stat made: %v", err)
	}
}

// proxied stands for a tool taken from one of the user's MCP servers.
type proxied struct{}

func (proxied) Spec() tool.Spec {
	return tool.Spec{Name: "mcp__srv__echo", Description: "echo", Schema: json.RawMessage(`{"type":"object"}`), Class: tool.Command}
}

func (proxied) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: "PROXIED-RAN"}, nil
}

// wisp serves its own tools only: a tool taken from an MCP server is
// neither listed, nor in the catalogue, nor callable.
func TestProxiedToolsAreNotServed(t *testing.T) {
	base := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"]); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{MaxToolIters: -1, NoSession: true, Yes: true}, sys, Frontend{Mode: "mcp", Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.toolset.AddMCP([]tool.Tool{proxied{}})
	if _, ok := s.tools.Get("mcp__srv__echo"); !ok {
		t.Fatal("the session does not expose the proxied tool; the test proves nothing")
	}
	for _, spec := range s.ServedTools() {
		if spec.Name == "mcp__srv__echo" {
			t.Fatal("ServedTools lists the proxied tool")
		}
	}
	for _, in := range s.Catalog() {
		if in.Name == "mcp__srv__echo" {
			t.Fatal("Catalog lists the proxied tool")
		}
	}
	if res, err := s.CallTool(context.Background(), "mcp__srv__echo", nil); err == nil {
		t.Fatalf("the proxied tool was called: %+v", res)
	}
}
