package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/tool"
)

// gateTool is a read tool that holds its call until released, so that a
// test can act while a call is in flight.
type gateTool struct {
	started chan struct{}
	release chan struct{}
}

func newGateTool() *gateTool {
	return &gateTool{started: make(chan struct{}, 8), release: make(chan struct{})}
}

func (g *gateTool) Spec() tool.Spec {
	return tool.Spec{Name: "hold", Description: "waits", Schema: json.RawMessage(`{"type":"object"}`), Class: tool.Read}
}

func (g *gateTool) Run(ctx context.Context, _ *tool.Env, _ json.RawMessage) (tool.Result, error) {
	g.started <- struct{}{}
	select {
	case <-g.release:
		return tool.Result{Content: "held result"}, nil
	case <-ctx.Done():
		return tool.Result{Content: "error: interrupted", IsError: true}, nil
	}
}

// testSession starts a session against the fake provider speaking wire,
// with the hold tool exposed.
func testSession(t testing.TB, wire string, turns []fake.Turn, hold *gateTool) (*Session, *fake.Server) {
	t.Helper()
	srv, err := fake.Start(fake.Script{Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	base := t.TempDir()
	env := map[string]string{
		"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": wire,
		"ANTHROPIC_API_KEY": "test-key", "OPENAI_API_KEY": "test-key",
		"ANTHROPIC_BASE_URL": srv.URL(), "OPENAI_BASE_URL": srv.URL() + "/v1",
	}
	var stderr bytes.Buffer
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &stderr, Workdir: filepath.Join(base, "ws"),
		Extensions: []Extension{{Tool: hold}}}
	if err := mkdirs(sys.Workdir, env["HOME"]); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{AllowTools: []string{"hold"}, MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: "print"})
	if err != nil {
		t.Fatalf("new session: %v\n%s", err, stderr.String())
	}
	t.Cleanup(s.Close)
	return s, srv
}

// lastUserText is the text of the last user message of a recorded
// request, in either wire format, with tool results marked.
func lastUserText(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var parts []string
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == "assistant" {
			break
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			parts = append([]string{m.Role + ":" + s}, parts...)
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		var in []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				in = append(in, "text:"+b.Text)
			case "tool_result":
				in = append(in, "result")
			}
		}
		parts = append([]string{m.Role + ":" + strings.Join(in, ",")}, parts...)
	}
	return strings.Join(parts, " | ")
}

// A steer sent while a call runs reaches the model in the very next
// request, right after that call's result, in both wire formats.
func TestSteerJoinsNextRequest(t *testing.T) {
	for _, wire := range []string{"anthropic", "openai"} {
		t.Run(wire, func(t *testing.T) {
			hold := newGateTool()
			s, srv := testSession(t, wire, []fake.Turn{
				{ToolCalls: []fake.ToolCall{{Name: "hold", Input: json.RawMessage(`{}`)}}},
				{Text: "done"},
			}, hold)
			done := make(chan error, 1)
			go func() { _, err := s.Prompt(context.Background(), "start"); done <- err }()
			<-hold.started
			if err := s.Steer("use the other file"); err != nil {
				t.Fatal(err)
			}
			close(hold.release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			got := lastUserText(t, reqs[1].Body)
			want := map[string]string{
				"anthropic": "user:result,text:use the other file",
				"openai":    "tool:held result | user:use the other file",
			}[wire]
			if got != want {
				t.Errorf("second request ends with %q, want %q", got, want)
			}
		})
	}
}

// A steer that finds no boundary (the model answered without calls)
// runs next, before the follow-ups; follow-ups run in order.
func TestQueuesAfterTheRun(t *testing.T) {
	hold := newGateTool()
	s, srv := testSession(t, "anthropic", []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "hold", Input: json.RawMessage(`{}`)}}},
		{Text: "first answer", DelayMS: 200},
		{Text: "second"}, {Text: "third"}, {Text: "fourth"},
	}, hold)
	done := make(chan error, 1)
	go func() { _, err := s.Prompt(context.Background(), "start"); done <- err }()
	<-hold.started
	for _, f := range []string{"follow one", "follow two"} {
		if err := s.FollowUp(f); err != nil {
			t.Fatal(err)
		}
	}
	close(hold.release)
	// The second request is on its way (it takes 200 ms): a steer now
	// finds no boundary in this run.
	for len(srv.Requests()) < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Steer("late steer"); err != nil {
		t.Fatal(err)
	}
	if q := s.Queued(); len(q.Steer) != 1 || len(q.FollowUp) != 2 {
		t.Errorf("queue = %+v", q)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	var got []string
	for _, r := range reqs[2:] {
		got = append(got, lastUserText(t, r.Body))
	}
	want := []string{"user:text:late steer", "user:text:follow one", "user:text:follow two"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests after the run end with %q, want %q", got, want)
	}
	if s.Running() {
		t.Error("still running")
	}
	if err := s.Steer("x"); !errors.Is(err, ErrIdle) {
		t.Errorf("steer when idle: %v, want ErrIdle", err)
	}
}

// One run per session; the queue is bounded; Cancel gives back what
// waited.
func TestQueueLimitsAndCancel(t *testing.T) {
	hold := newGateTool()
	s, _ := testSession(t, "anthropic", []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "hold", Input: json.RawMessage(`{}`)}}},
		{Text: "never"},
	}, hold)
	done := make(chan error, 1)
	go func() { _, err := s.Prompt(context.Background(), "start"); done <- err }()
	<-hold.started
	if _, err := s.Prompt(context.Background(), "again"); !errors.Is(err, ErrBusy) {
		t.Errorf("second prompt: %v, want ErrBusy", err)
	}
	for i := range MaxQueued {
		if err := s.FollowUp(fmt.Sprint(i)); err != nil {
			t.Fatalf("follow-up %d: %v", i, err)
		}
	}
	if err := s.Steer("one too many"); !errors.Is(err, ErrQueueFull) {
		t.Errorf("101st: %v, want ErrQueueFull", err)
	}
	if dropped := s.Cancel(); len(dropped) != MaxQueued || dropped[0] != "0" {
		t.Errorf("cancel gave back %d messages", len(dropped))
	}
	if err := <-done; err == nil {
		t.Error("a cancelled run returned no error")
	}
	if s.Running() || len(s.Queued().FollowUp) != 0 {
		t.Error("the run or its queue outlived Cancel")
	}
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkSteerInjection measures how long a steer takes to reach the
// model once the turn is at a boundary: from the running call's end to
// the next request's arrival at the provider, with a steer waiting and,
// as the baseline in the same run, without one. The difference is the
// harness's cost of injecting it (the bound: 5 ms).
func BenchmarkSteerInjection(b *testing.B) {
	for _, steer := range []bool{false, true} {
		b.Run(map[bool]string{false: "baseline", true: "steered"}[steer], func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				hold := newGateTool()
				s, srv := testSession(b, "anthropic", []fake.Turn{
					{ToolCalls: []fake.ToolCall{{Name: "hold", Input: json.RawMessage(`{}`)}}},
					{Text: "done"},
				}, hold)
				done := make(chan error, 1)
				go func() { _, err := s.Prompt(context.Background(), "start"); done <- err }()
				<-hold.started
				if steer {
					if err := s.Steer("use the other file"); err != nil {
						b.Fatal(err)
					}
				}
				released := time.Now()
				close(hold.release)
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				total += srv.Requests()[1].Time.Sub(released)
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-next-request")
		})
	}
}

// A follow-up queued during a run that then fails still runs: it was
// asked for, and nothing else would ever send it.
func TestFollowUpRunsAfterAFailedRun(t *testing.T) {
	hold := newGateTool()
	s, srv := testSession(t, "anthropic", []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "hold", Input: json.RawMessage(`{}`)}}},
		{Error: &fake.ErrorReply{Status: 400, Message: "bad request"}},
		{Text: "the follow-up's answer"},
	}, hold)
	done := make(chan error, 1)
	var final string
	go func() {
		m, err := s.Prompt(context.Background(), "start")
		final = m.TextOf()
		done <- err
	}()
	<-hold.started
	if err := s.FollowUp("then this"); err != nil {
		t.Fatal(err)
	}
	close(hold.release)
	if err := <-done; err != nil {
		t.Fatalf("the follow-up's run: %v", err)
	}
	if final != "the follow-up's answer" || len(srv.Requests()) != 3 {
		t.Errorf("final %q after %d requests; want the follow-up answered", final, len(srv.Requests()))
	}
}

// Nothing can be queued while a compaction holds the session: there is
// no run to carry it, and it would wait for an unrelated prompt.
func TestNoQueueDuringCompaction(t *testing.T) {
	s, _ := testSession(t, "anthropic", []fake.Turn{
		{Text: "one"}, {Text: "two"}, {Text: "## Goal\nsummary", DelayMS: 400},
	}, newGateTool())
	for _, p := range []string{"first", "second"} {
		if _, err := s.Prompt(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- s.Compact(context.Background(), "") }()
	for !s.Running() {
		time.Sleep(time.Millisecond)
	}
	if err := s.Steer("x"); !errors.Is(err, ErrCompacting) {
		t.Errorf("steer during compaction: %v", err)
	}
	if err := s.FollowUp("x"); !errors.Is(err, ErrCompacting) {
		t.Errorf("follow-up during compaction: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
