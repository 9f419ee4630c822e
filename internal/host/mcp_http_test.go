package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// TestMCPStreamableHTTPEndToEnd drives a session through the fake
// provider with a streamable HTTP server from settings.json: its header
// comes from the variable headers_from names, the model's call reaches
// the server and its answer the model.
func TestMCPStreamableHTTPEndToEnd(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "notes", Version: "1"}, nil)
	type args struct {
		Topic string `json:"topic"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "lookup", Description: "Look a topic up."}, func(_ context.Context, _ *sdk.CallToolRequest, a args) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "notes on " + a.Topic}}}, nil, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Notes-Key") != "k-123" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	settings := fmt.Sprintf(`{"mcp_servers": {"notes": {"url": %q, "headers_from": {"X-Notes-Key": "NOTES_KEY"}, "tool_safety": {"lookup": "read"}}}}`, ts.URL+"/mcp")
	script := fake.Script{Turns: []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "mcp__notes__lookup", Input: json.RawMessage(`{"topic":"gates"}`)}}},
		{Text: "found: {{last_tool_result}}"},
	}}
	r := newCompactRig(t, "anthropic", script, settings)
	r.env["NOTES_KEY"] = "k-123"
	s := r.open(t, Options{AllowReadTools: true})
	defer s.Close()
	if got := strings.TrimSpace(r.prompt(t, s, "look it up")); got != "found: notes on gates" {
		t.Fatalf("final answer %q\n%s", got, r.stderr)
	}
	st := s.MCPStatus()
	if len(st) != 1 || st[0].State != mcp.StateReady || st[0].Tools != 1 {
		t.Fatalf("status %+v", st)
	}
}
