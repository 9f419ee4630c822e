// Command twoturn measures a whole two-turn print-mode run of the wisp
// binary against the fake provider: the model asks for one shell command,
// then answers. It reports wall time, peak RSS, time from process start to
// the first provider request and the first request's size, each beside a
// baseline measured in the same run: a bare Go program that makes the same
// two HTTP requests (the least any Go agent could do).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

func main() {
	wisp := flag.String("wisp", "./wisp", "the wisp binary")
	runs := flag.Int("n", 20, "runs")
	bare := flag.Bool("bare", false, "act as the baseline client (internal)")
	flag.Parse()
	if *bare {
		bareClient(flag.Arg(0))
		return
	}
	script := fake.Script{Turns: []fake.Turn{
		{Text: "Running it.", ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"echo hi"}`)}}},
		{Text: "The command printed hi."},
	}}
	work, err := os.MkdirTemp("", "wisp-bench-")
	check(err)
	defer os.RemoveAll(work)
	self, err := os.Executable()
	check(err)

	var w, b sample
	for i := 0; i < *runs; i++ {
		w.add(runOnce(script, work, func(url string) *exec.Cmd {
			c := exec.Command(*wisp, "-p", "run echo hi", "--all-tools", "--yes", "--no-session")
			c.Env = append(os.Environ(), "HOME="+work, "WISP_HOME="+filepath.Join(work, ".wisp"),
				"WISP_PROVIDER=anthropic", "ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL="+url)
			return c
		}))
		b.add(runOnce(script, work, func(url string) *exec.Cmd {
			return exec.Command(self, "-bare", url)
		}))
	}
	fmt.Printf("two-turn print-mode run, %d runs, medians (baseline: bare Go client making the same two requests)\n", *runs)
	fmt.Printf("%-28s %10s %10s %8s\n", "", "wisp", "baseline", "ratio")
	row := func(name string, a, c float64, unit string) {
		fmt.Printf("%-28s %8.1f%-2s %8.1f%-2s %7.2fx\n", name, a, unit, c, unit, a/c)
	}
	row("wall", w.median(0), b.median(0), "ms")
	row("peak RSS", w.median(1), b.median(1), "MB")
	row("start to first request", w.median(2), b.median(2), "ms")
	fmt.Printf("%-28s %8.0f B (system prompt + tool schemas + prompt, all built-in tools)\n", "first request size", w.median(3))
}

type sample [][4]float64

func (s *sample) add(v [4]float64) { *s = append(*s, v) }

func (s sample) median(i int) float64 {
	xs := make([]float64, len(s))
	for k, v := range s {
		xs[k] = v[i]
	}
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// runOnce returns wall ms, peak RSS MB, ms to first request, first request bytes.
func runOnce(script fake.Script, dir string, mk func(url string) *exec.Cmd) [4]float64 {
	srv, err := fake.Start(script)
	check(err)
	defer srv.Close()
	cmd := mk(srv.URL())
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "run failed: %v\n%s", err, stderr.String())
		os.Exit(1)
	}
	wall := time.Since(start)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		fmt.Fprintf(os.Stderr, "want 2 requests, got %d\n%s", len(reqs), stderr.String())
		os.Exit(1)
	}
	rss := float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024
	return [4]float64{ms(wall), rss, ms(reqs[0].Time.Sub(start)), float64(len(reqs[0].Body))}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// bareClient is the baseline: two plain streaming requests, nothing else.
func bareClient(url string) {
	for i := 0; i < 2; i++ {
		resp, err := http.Post(url+"/v1/messages", "application/json",
			bytes.NewReader([]byte(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)))
		check(err)
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
