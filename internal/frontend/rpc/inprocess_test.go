package rpc

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// startInProcess serves a host session from this process, so that the
// race detector sees the server's goroutines: the command loop, the
// run, and the output writer.
func startInProcess(t *testing.T, w *world) *client {
	t.Helper()
	return startInProcessWith(t, w, host.Options{MaxToolIters: -1})
}

func startInProcessWith(t *testing.T, w *world, o host.Options) *client {
	t.Helper()
	env := map[string]string{}
	for _, kv := range w.env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sys := host.IO{Stdin: inR, Stdout: outW, Stderr: io.Discard, Getenv: func(k string) string { return env[k] }, Workdir: w.work}
	fe := host.Frontend{Mode: "rpc", Interactive: true, Events: true}
	open := func(ctx context.Context, o host.Options) (*host.Session, error) { return host.New(ctx, o, sys, fe) }
	s, err := open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, in: inW, lines: make(chan frame, 1<<14), exited: make(chan error, 1)}
	done := make(chan error, 1)
	go func() {
		err := Serve(context.Background(), s, Config{In: inR, Out: outW, Stderr: &c.stderr, Open: open})
		_ = outW.Close()
		done <- err
	}()
	c.read(outR, func() error { return <-done })
	t.Cleanup(func() { _ = inW.Close() })
	return c
}

// TestInProcessRun runs commands against a live run from another
// goroutine than the run's: under -race this is the test that sees the
// session shared between them.
func TestInProcessRun(t *testing.T) {
	w := newWorld(t, "anthropic",
		fake.Turn{Text: "Writing.", ToolCalls: []fake.ToolCall{writeCall("d.txt", "four")}},
		fake.Turn{Text: "Done."},
		fake.Turn{Text: "Followed up."},
		fake.Turn{Text: "Forked answer."})
	c := startInProcess(t, w)
	c.ok("prompt", map[string]any{"message": "write d.txt"})
	req := c.event("approval_request")
	c.ok("get_state", nil)
	c.ok("get_messages", nil)
	c.ok("steer", map[string]any{"message": "mind the newline"})
	c.ok("follow_up", map[string]any{"message": "and then this"})
	c.ok("get_queue", nil)
	c.fails("fork", nil, CodeBusy)
	c.fails("set_model", map[string]any{"model": "m2"}, CodeBusy)
	c.ok("approve", map[string]any{"call_id": req.str("call_id"), "approved": true})
	c.event("agent_end")
	c.event("agent_start") // the follow-up
	c.event("agent_end")
	if data, err := os.ReadFile(filepath.Join(w.work, "d.txt")); err != nil || string(data) != "four" {
		t.Fatalf("d.txt: %q %v", data, err)
	}
	f := c.ok("fork", map[string]any{"message_index": 0})
	if str(f["text"]) != "write d.txt" || string(f["messages"]) != "0" {
		t.Fatalf("fork before the first prompt: %v", f)
	}
	c.ok("prompt", map[string]any{"message": "again"})
	c.skip()
	c.event("agent_end")
	checkInvariants(t, c.log)
	c.ok("shutdown", nil)
	c.wantExit(0)
}

// TestInProcessRefusals covers the answers that keep a session as it
// was: a denial with the person's words, a full queue, a session change
// while a run is live, and an approval nobody gives in time.
func TestInProcessRefusals(t *testing.T) {
	w := newWorld(t, "openai",
		fake.Turn{Text: "Writing.", ToolCalls: []fake.ToolCall{writeCall("e.txt", "five")}},
		fake.Turn{Text: "Understood."},
		fake.Turn{Text: "Writing again.", ToolCalls: []fake.ToolCall{writeCall("f.txt", "six")}},
		fake.Turn{Text: "Timed out."})
	cfg := filepath.Join(w.home, ".wisp")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"approval":{"timeoutSeconds":1}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startInProcess(t, w)
	c.ok("prompt", map[string]any{"message": "write e.txt"})
	req := c.event("approval_request")
	c.fails("new_session", nil, CodeBusy)
	c.fails("switch_session", map[string]any{"session_id": "x"}, CodeBusy)
	c.fails("compact", nil, CodeBusy)
	for i := range 100 {
		c.ok("follow_up", map[string]any{"message": "later " + itoa(i)})
	}
	c.fails("steer", map[string]any{"message": "one too many"}, CodeQueueFull)
	if q := c.ok("clear_queue", nil); !strings.Contains(string(q["follow_up"]), "later 99") {
		t.Fatalf("clear_queue: %v", q)
	}
	c.ok("approve", map[string]any{"call_id": req.str("call_id"), "approved": false, "note": "not that file"})
	res := c.event("tool_result")
	if res.str("outcome") != "refused" || !strings.Contains(res.raw, "not that file") {
		t.Fatalf("the denial: %s", res.raw)
	}
	c.event("agent_end")
	c.ok("prompt", map[string]any{"message": "write f.txt"})
	c.skip()
	c.event("approval_request")
	dec := c.event("approval_decision") // nobody answers: a no after 1s
	if string(dec.fields["approved"]) != "false" {
		t.Fatalf("the unanswered question: %s", dec.raw)
	}
	c.event("agent_end")
	for _, name := range []string{"e.txt", "f.txt"} {
		if _, err := os.Stat(filepath.Join(w.work, name)); !os.IsNotExist(err) {
			t.Fatalf("%s was written without approval", name)
		}
	}
	checkInvariants(t, c.log)
	c.ok("shutdown", nil)
	c.wantExit(0)
}

// TestInProcessNoSession: without a transcript, fork is not available
// and the conversation is read from memory between runs.
func TestInProcessNoSession(t *testing.T) {
	w := newWorld(t, "anthropic", fake.Turn{Text: "Hi."})
	c := startInProcessWith(t, w, host.Options{MaxToolIters: -1, NoSession: true})
	if st := c.ok("get_state", nil); str(st["session_id"]) != "" {
		t.Fatalf("get_state: %v", st)
	}
	c.ok("prompt", map[string]any{"message": "hello"})
	c.event("agent_end")
	if m := c.ok("get_messages", nil); string(m["total"]) != "2" {
		t.Fatalf("get_messages: %v", m)
	}
	c.fails("fork", nil, CodeNotAvailable)
	c.ok("new_session", nil)
	if m := c.ok("get_messages", nil); string(m["total"]) != "0" {
		t.Fatalf("get_messages after new_session: %v", m)
	}
	c.ok("shutdown", nil)
	c.wantExit(0)
}
