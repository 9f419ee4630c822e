package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

// TestCallsGoThroughTheGate: a command-class MCP tool is asked about,
// shown as its name and arguments, and does not run when refused; a
// tool the user assigned read runs unasked.
func TestCallsGoThroughTheGate(t *testing.T) {
	srv := testServer(t, "s", "ok", nil)
	srv.ToolSafety = map[string]string{"env": "read"}
	s, _ := startAll(t, fastLimits(), srv)
	tools := s.Tools(context.Background(), nil)
	cases := []struct {
		name, tool, args string
		allow            bool
		wantAsked        string
		wantContent      string
		wantAudit        string // the mcp.* lines, in order
	}{
		{"approved", "mcp__s__echo", `{"message": "hi"}`, true, `mcp__s__echo {"message":"hi"}`, "Echo: hi", `mcp.request s echo,mcp.result s echo false`},
		{"denied", "mcp__s__echo", `{"message":"hi"}`, false, `mcp__s__echo {"message":"hi"}`, "error: mcp__s__echo not approved: no", ""},
		{"read runs unasked", "mcp__s__env", `{}`, false, "", "PATH=", `mcp.request s env,mcp.result s env false`},
		{"arguments not an object", "mcp__s__echo", `[1]`, true, "", "error: arguments must be a JSON object", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []gate.Request
			log, lerr := audit.Open(t.TempDir(), audit.Options{Version: "test"})
			if lerr != nil {
				t.Fatal(lerr)
			}
			defer log.Close()
			g := gate.New(gate.Options{Audit: log, Threshold: approval.ThresholdModerate, Approver: gate.ApproverFunc(func(_ context.Context, r gate.Request) (gate.Answer, error) {
				asked = append(asked, r)
				return gate.Answer{Allow: c.allow, Scope: approval.ScopeOnce, Reason: map[bool]string{true: "yes", false: "no"}[c.allow]}, nil
			})})
			res, err := g.Run(context.Background(), gate.Call{ID: "c1", Name: c.tool, Args: json.RawMessage(c.args)}, find(t, tools, c.tool), tool.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Content, c.wantContent) {
				t.Errorf("result %q, want it to hold %q", res.Content, c.wantContent)
			}
			if got := mcpLines(t, log.Path()); got != c.wantAudit {
				t.Errorf("audit %q, want %q", got, c.wantAudit)
			}
			switch {
			case c.wantAsked == "" && len(asked) > 0:
				t.Errorf("asked %+v, want no question", asked)
			case c.wantAsked != "" && (len(asked) != 1 || asked[0].Subject != c.wantAsked || asked[0].Pattern != "tool:"+c.tool):
				t.Errorf("asked %+v, want one question about %q", asked, c.wantAsked)
			}
		})
	}
}

// mcpLines are the audit log's mcp.* lines as "kind server tool
// [is_error]", joined by commas.
func mcpLines(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct {
			Kind    string `json:"kind"`
			Details struct {
				Server  string `json:"server"`
				Tool    string `json:"tool"`
				IsError *bool  `json:"is_error"`
			} `json:"details"`
		}
		if json.Unmarshal([]byte(line), &e) != nil || !strings.HasPrefix(e.Kind, "mcp.") {
			continue
		}
		s := e.Kind + " " + e.Details.Server + " " + e.Details.Tool
		if e.Details.IsError != nil {
			s += fmt.Sprintf(" %v", *e.Details.IsError)
		}
		out = append(out, s)
	}
	return strings.Join(out, ",")
}
