package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
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
// parallel, each up to its tools being ready, side by side with two
// floors: the same done with the SDK alone (exec, connect, one
// tools/list, with no limits, environment or catalogue checks), and the
// server processes alone, each started with its stdin at its end so that
// it exits at once (no MCP at all). Servers that are quick to start
// (their start-up is CPU, so on few cores parallel starts compete) and
// servers that take 300 ms (as npx or a network handshake would).
func BenchmarkStart(b *testing.B) {
	for _, delay := range []string{"0", "300"} {
		for _, n := range []int{1, 4} {
			var list []config.MCPServer
			for i := range n {
				list = append(list, testServer(b, fmt.Sprintf("s%d", i), "ok", map[string]string{"START_DELAY_MS": delay}))
			}
			name := fmt.Sprintf("delay=%sms/servers=%d/", delay, n)
			b.Run(name+"wisp", func(b *testing.B) {
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
			b.Run(name+"sdk", func(b *testing.B) {
				for b.Loop() {
					sessions := rawStart(b, list)
					b.StopTimer()
					for _, ss := range sessions {
						_ = ss.Close()
					}
					time.Sleep(10 * time.Millisecond)
					b.StartTimer()
				}
			})
			b.Run(name+"processes", func(b *testing.B) {
				for b.Loop() {
					runProcesses(b, list)
				}
			})
		}
	}
}

// runProcesses runs the servers' processes in parallel, each with its
// stdin at its end, until all have exited.
func runProcesses(b *testing.B, list []config.MCPServer) {
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, cfg := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = command(cfg).Run()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// command is a server's process as the SDK alone would start it.
func command(cfg config.MCPServer) *exec.Cmd {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = os.Environ()
	for k, v := range cfg.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// rawStart starts the servers in parallel with the SDK's own command
// transport and lists each one's tools once: the floor wisp's start is
// measured against.
func rawStart(b *testing.B, list []config.MCPServer) []*sdk.ClientSession {
	sessions := make([]*sdk.ClientSession, len(list))
	errs := make([]error, len(list))
	var wg sync.WaitGroup
	for i, cfg := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
			ss, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: command(cfg)}, nil)
			if err == nil {
				_, err = ss.ListTools(context.Background(), nil)
			}
			sessions[i], errs[i] = ss, err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return sessions
}

// BenchmarkStartSideBySide measures, in each round and one right after
// the other, one server's start, four servers' start, the SDK alone
// starting the four, and the four processes alone, so that a busy
// machine slows them all alike; it reports the medians and their ratios.
// delay is each server's own start-up wait (300 ms: not CPU-bound).
func BenchmarkStartSideBySide(b *testing.B) {
	for _, delay := range []string{"0", "300"} {
		b.Run("delay="+delay+"ms", func(b *testing.B) {
			var list []config.MCPServer
			for i := range 4 {
				list = append(list, testServer(b, fmt.Sprintf("s%d", i), "ok", map[string]string{"START_DELAY_MS": delay}))
			}
			wisp := func(l []config.MCPServer) func() time.Duration {
				return func() time.Duration {
					t0 := time.Now()
					s := Start(context.Background(), l, Options{Limits: DefaultLimits()})
					if got := len(s.Tools(context.Background(), nil)); got != 4*len(l) {
						b.Fatal(s.Status())
					}
					took := time.Since(t0)
					s.Close()
					return took
				}
			}
			runs := []struct {
				name string
				run  func() time.Duration
				took []time.Duration
			}{
				{name: "wisp1", run: wisp(list[:1])},
				{name: "wisp4", run: wisp(list)},
				{name: "sdk4", run: func() time.Duration {
					t0 := time.Now()
					sessions := rawStart(b, list)
					took := time.Since(t0)
					for _, ss := range sessions {
						_ = ss.Close()
					}
					return took
				}},
				{name: "processes4", run: func() time.Duration {
					t0 := time.Now()
					runProcesses(b, list)
					return time.Since(t0)
				}},
			}
			for b.Loop() {
				for i := range runs {
					runs[i].took = append(runs[i].took, runs[i].run())
					time.Sleep(10 * time.Millisecond)
				}
			}
			med := map[string]float64{}
			for _, r := range runs {
				slices.Sort(r.took)
				med[r.name] = float64(r.took[len(r.took)/2])
				b.ReportMetric(med[r.name]/1e6, r.name+"-ms")
			}
			b.ReportMetric(med["wisp4"]/med["wisp1"], "wisp4/wisp1")
			b.ReportMetric(med["wisp4"]/med["sdk4"], "wisp4/sdk4")
			b.ReportMetric(med["wisp4"]/med["processes4"], "wisp4/processes4")
			b.ReportMetric(med["processes4"]/med["wisp1"], "processes4/wisp1")
		})
	}
}
