package gate_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

// netTool is a remote tool whose calls reach the network (or, with
// network false, an ordinary MCP tool); it counts its runs.
type netTool struct {
	class   tool.Class
	network bool
	runs    int
}

func (n *netTool) Spec() tool.Spec {
	return tool.Spec{Name: "fetch_thing", Class: n.class, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (n *netTool) Invocation(json.RawMessage) (tool.Invocation, error) {
	return tool.Invocation{Server: "web", Tool: "fetch_thing", Subject: "fetch_thing GET https://example.test/", Network: n.network}, nil
}

func (n *netTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	n.runs++
	return tool.Result{Content: "fetched"}, nil
}

// TestNetworkCallsAlwaysAsk: a call that reaches the network is asked
// about whatever approval.threshold says and whatever the tool's class,
// so raising the threshold never lets a fetch run unasked; a remembered
// approval of the tool still answers. An ordinary remote tool keeps
// following the threshold.
func TestNetworkCallsAlwaysAsk(t *testing.T) {
	cases := []struct {
		name      string
		threshold approval.Threshold
		class     tool.Class
		network   bool
		answer    bool
		wantAsked bool
		wantRun   bool
	}{
		{"network, threshold never, denied", approval.ThresholdNever, tool.Command, true, false, true, false},
		{"network, threshold dangerous, approved", approval.ThresholdDangerous, tool.Command, true, true, true, true},
		{"network, read class, threshold never", approval.ThresholdNever, tool.Read, true, false, true, false},
		{"network, threshold moderate", approval.ThresholdModerate, tool.Command, true, false, true, false},
		{"not network, threshold never", approval.ThresholdNever, tool.Command, false, false, false, true},
		{"not network, read class", approval.ThresholdModerate, tool.Read, false, false, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ap := &countingApprover{answer: gate.Answer{Allow: c.answer, Scope: approval.ScopeOnce}}
			w := newWorld(t, func(o *gate.Options) { o.Approver = ap; o.Threshold = c.threshold })
			nt := &netTool{class: c.class, network: c.network}
			res := w.run(t, "n", nt, `{}`)
			if asked := len(ap.asked) == 1; asked != c.wantAsked {
				t.Errorf("asked %d times, want asked=%v", len(ap.asked), c.wantAsked)
			}
			if ran := nt.runs == 1; ran != c.wantRun {
				t.Errorf("ran %d times (result %q), want ran=%v", nt.runs, res.Content, c.wantRun)
			}
			if !c.wantRun && !res.IsError {
				t.Errorf("a refused call is not an error result: %q", res.Content)
			}
		})
	}
	t.Run("a remembered approval of the tool answers", func(t *testing.T) {
		ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeSession}}
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap; o.Threshold = approval.ThresholdNever })
		nt := &netTool{class: tool.Command, network: true}
		w.run(t, "a", nt, `{}`)
		w.run(t, "b", nt, `{}`)
		if len(ap.asked) != 1 || nt.runs != 2 {
			t.Errorf("asked %d times and ran %d, want asked once and ran twice", len(ap.asked), nt.runs)
		}
		if by := decidedBy(t, w, "b"); by != "remembered" {
			t.Errorf("second call decided by %q, want remembered", by)
		}
	})
}
