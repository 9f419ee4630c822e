package wisps

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// nopTools answers at once, so that a benchmark measures the executor.
type nopTools struct{ *fakeTools }

func (nopTools) Call(context.Context, string, json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: `{"items":[1,2,3],"name":"x"}`}, nil
}

const fiveSteps = `{"steps":[
 {"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"path":"a.txt"}},
 {"id":"b","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"path":"{{steps.a.result.name}}"}},
 {"id":"c","mode":"Direct","gateway":"Mcp","tool":"fs__write_file","params":{"path":"c","content":"{{steps.b.result}}"}},
 {"id":"d","mode":"Direct","gateway":"Script","params":{"script":"print('{{steps.c.result.name}}')"}},
 {"id":"e","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"path":"e"}}]}`

func benchWisp(b *testing.B) (*Executor, *Plan) {
	ft := nopTools{newFakeTools()}
	p, err := Prepare(mustParseB(b, fiveSteps), ft)
	if err != nil {
		b.Fatal(err)
	}
	return NewExecutor(Options{Tools: ft, Memory: memory.New(nil)}), p
}

func mustParseB(b *testing.B, src string) Definition {
	defs, err := ParseFile([]byte(src))
	if err != nil {
		b.Fatal(err)
	}
	return defs[0]
}

// BenchmarkDirectStep is the executor's cost per direct step: templates,
// classification, working memory and the result, without the tool.
func BenchmarkDirectStep(b *testing.B) {
	x, p := benchWisp(b)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if r := x.Run(ctx, Job{WispID: "wisp-bench", Plan: p}); !r.OK {
			b.Fatal(r.Error)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*5), "ns/step")
}

// BenchmarkCallerDirect is the baseline: the same five calls made on the
// Caller with no executor.
func BenchmarkCallerDirect(b *testing.B) {
	ft := nopTools{newFakeTools()}
	ctx := context.Background()
	args := json.RawMessage(`{"path":"a.txt"}`)
	for b.Loop() {
		for range 5 {
			if _, err := ft.Call(ctx, "mcp__fs__read_file", args); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*5), "ns/step")
}

// TestDirectStepOverhead holds the executor to its budget: at most 200 µs
// per direct step beyond the tool itself.
func TestDirectStepOverhead(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("timing test: not under -short or the race detector")
	}
	// The best of three runs: other processes on the machine only ever
	// make a run slower.
	perStep := time.Hour
	for range 3 {
		r := testing.Benchmark(BenchmarkDirectStep)
		perStep = min(perStep, time.Duration(r.NsPerOp()/5))
	}
	if perStep > 200*time.Microsecond {
		t.Fatalf("executor overhead %v per direct step, budget 200µs", perStep)
	}
	t.Logf("executor overhead: %v per direct step", perStep)
}
