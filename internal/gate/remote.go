package gate

import (
	"context"
	"time"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
)

// remoteReason is why a call of a remote tool is asked about.
const remoteReason = "calls a tool of an MCP server, which runs outside wisp's sandbox"

// networkReason is why a call that reaches the network is asked about.
const networkReason = "reaches the network, which nothing run unasked may do"

// runRemote runs a call of a remote tool (tool.Remote). A read-class one
// (the user assigned it read) runs directly; any other asks as a file
// tool does, at moderate, and a yes may be remembered for the tool. A
// call whose Invocation reaches the network is asked about whatever the
// threshold and class (a remembered yes still answers). The
// gate cannot see inside the server, so no part of the call is judged
// safe on its own.
func (g *Gate) runRemote(ctx context.Context, cl *callLog, t tool.Tool, r tool.Remote, env tool.Env) (tool.Result, error) {
	spec := t.Spec()
	inv, err := r.Invocation(cl.c.Args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if spec.Class == tool.Read && !inv.Network {
		// A read the user vouched for goes on when the audit fails.
		cl.add(audit.MCPRequest{Server: inv.Server, Tool: inv.Tool})
		cl.flush()
		return remoteCall(ctx, cl, t, inv, env)
	}
	if res, no := g.refused(); no {
		return res, nil
	}
	// A call that reaches the network is never below the threshold.
	if inv.Network || g.opts.Threshold.Asks(shell.Moderate) {
		reason := remoteReason
		if inv.Network {
			reason = networkReason
		}
		req := Request{CallID: cl.c.ID, Tool: spec.Name, Class: spec.Class, Subject: inv.Subject, Level: shell.Moderate,
			Reasons: []string{reason}, Pattern: approval.ToolPattern(spec.Name)}
		if ok, why := g.ask(ctx, cl, req, true); !ok {
			if res, no := g.refused(); no {
				return res, nil
			}
			return notApproved(spec.Name, why), nil
		}
	}
	// What was decided is on disk before the call goes out, or it does
	// not go out.
	cl.add(audit.MCPRequest{Server: inv.Server, Tool: inv.Tool})
	if !cl.flush() {
		res, _ := g.refused()
		return res, nil
	}
	return remoteCall(ctx, cl, t, inv, env)
}

// remoteCall runs the call and adds its mcp.result line.
func remoteCall(ctx context.Context, cl *callLog, t tool.Tool, inv tool.Invocation, env tool.Env) (tool.Result, error) {
	start := time.Now()
	res, err := t.Run(ctx, &env, cl.c.Args)
	cl.add(audit.MCPResult{Server: inv.Server, Tool: inv.Tool, IsError: res.IsError || err != nil, DurationMS: time.Since(start).Milliseconds()})
	return res, err
}
