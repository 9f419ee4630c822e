package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// writeSession writes a transcript of n records shaped like what a run
// keeps (prompts, answers calling a tool, the call's events, its ~2 KB
// result) for the working directory cwd, and returns its path.
func writeSession(t testing.TB, dir, cwd string, n int) string {
	t.Helper()
	var b bytes.Buffer
	add := func(r transcript.Record) {
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	add(transcript.Record{Type: transcript.TypeSession, ID: "0123456789abcdef", Time: t0, Version: transcript.FormatVersion, Cwd: cwd, Provider: "anthropic", Model: "m"})
	answer := strings.Repeat("I will look at the file and then change the function. ", 6)
	output := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) {\n\treturn\n}\n", 30)
	parent := ""
	for i := range n {
		r := transcript.Record{ID: fmt.Sprintf("%08x", i), Parent: parent, Time: t0.Add(time.Duration(i) * time.Millisecond)}
		id := fmt.Sprintf("call_%d", i/5)
		switch i % 5 {
		case 0:
			r.Type, r.Message = transcript.TypeMessage, &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: "please refactor the handler in server.go"}}}
		case 1:
			r.Type, r.Message = transcript.TypeMessage, &chat.Message{Role: chat.Assistant, Content: []chat.Block{
				{Type: chat.Text, Text: answer},
				{Type: chat.ToolUse, ID: id, Name: "read", Input: json.RawMessage(`{"path":"server.go"}`)},
			}}
		case 2:
			r.Type, r.Event = transcript.TypeEvent, event.Any{Event: event.ToolCall{Header: event.Header{Time: r.Time}, CallID: id, Tool: "read", Class: "read"}}
		case 3:
			r.Type, r.Event = transcript.TypeEvent, event.Any{Event: event.ToolStart{Header: event.Header{Time: r.Time}, CallID: id, Tool: "read", Class: "read"}}
		case 4:
			r.Type, r.Message = transcript.TypeMessage, &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: id, Text: output}}}
		}
		add(r)
		parent = r.ID
	}
	path := filepath.Join(dir, "20261130T080000Z_0123456789abcdef.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// BenchmarkFirstRequest measures, side by side, how long a print-mode
// run takes to send its first request in a fresh session and when it
// resumes a 10,000-record session (about 6 MB). The target is that the
// resume takes at most twice the fresh time plus 100 ms. It is a
// benchmark, not a test, because wall times on a shared machine vary
// more than the margin.
func BenchmarkFirstRequest(b *testing.B) {
	for _, wire := range []string{"anthropic", "openai"} {
		b.Run(wire, func(b *testing.B) { benchFirstRequest(b, wire) })
	}
}

func benchFirstRequest(b *testing.B, wire string) {
	home := b.TempDir()
	work := b.TempDir()
	b.Setenv("HOME", home)
	path := writeSession(b, b.TempDir(), work, 10000)
	srv, err := fake.Start(fake.Script{})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	// The fake notes a request once it has read and decoded the body,
	// which for a long conversation is the fake's own work; a proxy in
	// front notes when the request reaches the server.
	target, _ := url.Parse(srv.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var arrived []time.Time
	var cpuAt []time.Duration
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now, cpu := time.Now(), processCPU(b)
		mu.Lock()
		arrived = append(arrived, now)
		cpuAt = append(cpuAt, cpu)
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	env := map[string]string{
		"HOME": home, "WISP_HOME": filepath.Join(home, ".wisp"), "WISP_TRUST": "0", "TMPDIR": b.TempDir(),
		"WISP_PROVIDER": wire, "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": front.URL,
		"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": front.URL + "/v1",
	}
	// firstRequest returns the wall time and the CPU time (all threads)
	// from the start of a run to its first request. On a busy machine
	// the CPU time is the steadier figure.
	firstRequest := func(args ...string) (time.Duration, time.Duration) {
		var out, errb bytes.Buffer
		sys := IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }, Workdir: work}
		mu.Lock()
		before := len(arrived)
		mu.Unlock()
		goruntime.GC()
		start, cpu := time.Now(), processCPU(b)
		if code := Main(context.Background(), args, sys); code != 0 {
			b.Fatalf("wisp %v: exit %d: %s", args, code, errb.String())
		}
		mu.Lock()
		defer mu.Unlock()
		if len(arrived) == before {
			b.Fatalf("no request: %s", errb.String())
		}
		return arrived[before].Sub(start), cpuAt[before] - cpu
	}
	var fresh, resumed, freshCPU, resumedCPU []time.Duration
	for b.Loop() {
		w, c := firstRequest("-p", "hello")
		fresh, freshCPU = append(fresh, w), append(freshCPU, c)
		w, c = firstRequest("-p", "hello", "--resume", path)
		resumed, resumedCPU = append(resumed, w), append(resumedCPU, c)
	}
	report := func(fresh, resumed []time.Duration, unit string) {
		slices.Sort(fresh)
		slices.Sort(resumed)
		f, r := fresh[len(fresh)/2], resumed[len(resumed)/2]
		b.ReportMetric(float64(f.Microseconds())/1000, "fresh-"+unit)
		b.ReportMetric(float64(r.Microseconds())/1000, "resume10k-"+unit)
		b.ReportMetric(float64(r)/float64(2*f+100*time.Millisecond), "of-budget-"+unit)
	}
	report(fresh, resumed, "ms")
	report(freshCPU, resumedCPU, "cpu-ms")
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
