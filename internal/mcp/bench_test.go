package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

// BenchmarkCall compares one echo call made with the SDK directly to the
// same call as a wisp tool through the gate (an approval remembered
// nothing, so --yes answers), on the same server.
func BenchmarkCall(b *testing.B) {
	s := Start(context.Background(), []config.MCPServer{testServer(b, "s", "ok", nil)}, Options{Limits: DefaultLimits()})
	b.Cleanup(s.Close)
	tools := s.Tools(context.Background(), nil)
	if len(tools) == 0 {
		b.Fatal(s.Status())
	}
	echo := tools[0]
	session := s.servers[0].live()
	args := json.RawMessage(`{"message":"hi"}`)
	g := gate.New(gate.Options{Approver: gate.Allow{}, Threshold: approval.ThresholdModerate})
	b.Run("sdk", func(b *testing.B) {
		for b.Loop() {
			if _, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hi"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wisp", func(b *testing.B) {
		for b.Loop() {
			if res, err := g.Run(context.Background(), gate.Call{ID: "c", Name: echo.Spec().Name, Args: args}, echo, tool.Env{}); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}

// BenchmarkStart compares starting one server to starting four in
// parallel, each up to its tools being ready: servers that are quick to
// start (their start-up is CPU, so on few cores parallel starts compete)
// and servers that take 300 ms (as npx or a network handshake would).
func BenchmarkStart(b *testing.B) {
	for _, delay := range []string{"0", "300"} {
		for _, n := range []int{1, 4} {
			b.Run(fmt.Sprintf("delay=%sms/servers=%d", delay, n), func(b *testing.B) {
				var list []config.MCPServer
				for i := range n {
					list = append(list, testServer(b, fmt.Sprintf("s%d", i), "ok", map[string]string{"START_DELAY_MS": delay}))
				}
				for b.Loop() {
					s := Start(context.Background(), list, Options{Limits: DefaultLimits()})
					if got := len(s.Tools(context.Background(), nil)); got != 4*n {
						b.Fatal(s.Status())
					}
					b.StopTimer()
					s.Close()
					time.Sleep(10 * time.Millisecond)
					b.StartTimer()
				}
			})
		}
	}
}
