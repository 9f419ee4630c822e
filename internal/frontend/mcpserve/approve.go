package mcpserve

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/gate"
)

// sessionKey carries the MCP connection a call came in on down to the
// approver, which asks that connection's client.
type sessionKey struct{}

// approveSchema is the form the client's user fills in: one yes or no.
var approveSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"approve": map[string]any{"type": "boolean", "title": "Run it?", "description": "yes runs this call once; no refuses it"},
	},
	"required": []any{"approve"},
}

// Approver asks the question the gate would ask through MCP elicitation
// when the calling client supports it during a call (protocol versions
// before 2026-07-28); otherwise fallback answers. A yes
// covers this call only: nothing is remembered for later calls.
func Approver(fallback gate.Approver) gate.Approver {
	return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
		if ss == nil || !canElicit(ss) {
			return fallback.Approve(ctx, r)
		}
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: question(r), RequestedSchema: approveSchema})
		if err != nil {
			return gate.Answer{}, fmt.Errorf("could not ask the MCP client: %w", err)
		}
		if yes, _ := res.Content["approve"].(bool); res.Action == "accept" && yes {
			return gate.Answer{Allow: true, Scope: approval.ScopeOnce, Reason: "approved through the MCP client"}, nil
		}
		return gate.Answer{Allow: false, Reason: "denied through the MCP client (" + res.Action + ")"}, nil
	})
}

// multiRoundTrip is the first protocol version in which a server may not
// send a request (elicitation among them) while it serves one: the
// question would have to travel in the call's result instead (SEP-2322),
// which wisp does not do, so such clients get the fallback.
const multiRoundTrip = "2026-07-28"

// canElicit says whether the client takes elicitation requests while a
// tools/call is being served. Protocol versions are dates, so that they
// compare as strings.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil && p.ProtocolVersion < multiRoundTrip
}

// question words the gate's request for a person who did not see the
// model's reasoning: the tool, what would run, and why it is asked.
func question(r gate.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wisp asks before running %s (%s): %s", r.Tool, r.Class, r.Subject)
	if r.Part != "" && r.Part != r.Subject {
		fmt.Fprintf(&b, "\nThe part asked about: %s", r.Part)
	}
	if len(r.Reasons) > 0 {
		fmt.Fprintf(&b, "\nWhy: %s", strings.Join(r.Reasons, "; "))
	}
	if r.Preview != "" {
		fmt.Fprintf(&b, "\n\n%s", r.Preview)
	}
	return b.String()
}
