package rpc

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/transcript"
)

var formats = []string{"anthropic", "openai"}

func writeCall(path, content string) fake.ToolCall {
	in, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return fake.ToolCall{Name: "write", Input: in}
}

// TestEveryCommand drives each command once, in both wire formats.
func TestEveryCommand(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			w := newWorld(t, format, fake.Turn{Text: "Hello there."}, fake.Turn{Text: "Second answer."},
				fake.Turn{Text: "## Goal\nSay hello.\n## Decisions\nNone.\n## Files touched\nNone.\n## Open tasks\nNone.\n## Errors seen\nNone."})
			c := w.start(t)

			cmds := c.ok("get_commands", nil)
			var list []commandView
			_ = json.Unmarshal(cmds["commands"], &list)
			if len(list) != 19 {
				t.Fatalf("get_commands lists %d commands, want 19", len(list))
			}
			st := c.ok("get_state", nil)
			first := str(st["session_id"])
			if first == "" || string(st["running"]) != "false" || str(st["cwd"]) != w.work {
				t.Fatalf("get_state: %v", st)
			}
			c.ok("prompt", map[string]any{"message": "hi"})
			if n := len(c.events("agent_start")); n != 0 {
				t.Fatalf("the run's agent_start came before prompt's response")
			}
			end := c.event("agent_end")
			if _, failed := end.fields["error"]; failed {
				t.Fatalf("the run failed: %s", end.raw)
			}
			page := c.ok("get_messages", nil)
			if string(page["total"]) != "2" {
				t.Fatalf("get_messages: %v", page)
			}
			one := c.ok("get_messages", map[string]any{"offset": 1, "limit": 1})
			var msgs []json.RawMessage
			_ = json.Unmarshal(one["messages"], &msgs)
			if len(msgs) != 1 || !strings.Contains(string(msgs[0]), "Hello there.") {
				t.Fatalf("get_messages page: %v", one)
			}
			c.fails("get_messages", map[string]any{"offset": -1}, CodeInvalidParams)
			c.ok("get_queue", nil)
			c.ok("clear_queue", nil)
			c.fails("steer", map[string]any{"message": "x"}, CodeIdle)
			c.fails("follow_up", map[string]any{"message": "x"}, CodeIdle)
			if d := c.ok("cancel", nil); string(d["cancelled"]) != "false" {
				t.Fatalf("cancel with nothing running: %v", d)
			}
			c.fails("approve", map[string]any{"call_id": "nope", "approved": true}, CodeNoApproval)
			c.fails("approve", map[string]any{"call_id": "nope", "approved": true, "scope": "forever"}, CodeInvalidParams)
			if d := c.ok("set_model", map[string]any{"model": "other-model"}); str(d["model"]) != "other-model" {
				t.Fatalf("set_model: %v", d)
			}
			c.fails("set_model", map[string]any{"model": "two words"}, CodeInvalidParams)
			c.ok("prompt", map[string]any{"message": "again"})
			c.event("agent_end")
			reqs := w.srv.Requests()
			if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), `"other-model"`) {
				t.Fatalf("the request after set_model does not name the model: %s", last.Body)
			}
			if d := c.ok("get_mcp_status", nil); string(d["servers"]) != "[]" {
				t.Fatalf("get_mcp_status with no servers: %s", d["servers"])
			}
			tools := c.ok("get_tools", nil)
			if !strings.Contains(string(tools["tools"]), `"name":"bash"`) {
				t.Fatalf("get_tools: %s", tools["tools"])
			}
			sessions := c.ok("get_sessions", nil)
			var listed []sessionView
			_ = json.Unmarshal(sessions["sessions"], &listed)
			if got, want := sessionIDs(listed), cliSessions(t, w); len(listed) == 0 || got != want || !listed[0].Current {
				t.Fatalf("get_sessions lists %q, wisp sessions %q: %s", got, want, sessions["sessions"])
			}

			f := c.ok("fork", map[string]any{"message_index": 2})
			forkID := str(f["session_id"])
			if forkID == first || str(f["parent"]) != first || str(f["text"]) != "again" || string(f["messages"]) != "2" {
				t.Fatalf("fork: %v", f)
			}
			c.fails("fork", map[string]any{"message_index": 1}, CodeNotFound)
			c.fails("fork", map[string]any{"message_index": 9}, CodeNotFound)
			if d := c.ok("switch_session", map[string]any{"session_id": first}); str(d["session_id"]) != first || string(d["messages"]) != "4" {
				t.Fatalf("switch_session: %v", d)
			}
			if d := c.ok("compact", map[string]any{"instructions": "keep it short"}); string(d["messages"]) == "" {
				t.Fatalf("compact: %v", d)
			}
			if reqs := w.srv.Requests(); !strings.Contains(string(reqs[len(reqs)-1].Body), "keep it short") {
				t.Fatalf("the compaction request lacks the instructions")
			}
			c.fails("switch_session", map[string]any{"session_id": "zzzzzz"}, CodeNotFound)
			if st := c.ok("get_state", nil); str(st["session_id"]) != first {
				t.Fatalf("a failed switch left session %s, want %s", str(st["session_id"]), first)
			}
			n := c.ok("new_session", nil)
			if id := str(n["session_id"]); id == "" || id == first || id == forkID || string(n["messages"]) != "0" {
				t.Fatalf("new_session: %v", n)
			}
			c.fails("no_such_command", nil, CodeUnknownCommand)
			c.fails("prompt", map[string]any{"message": "x", "Message": "y"}, CodeInvalidRequest)
			c.fails("prompt", map[string]any{"message": 3}, CodeInvalidParams)
			c.fails("prompt", nil, CodeInvalidParams)
			c.shutdown()

			// The session switched away from is closed with a record
			// that says so, and its lock is gone.
			if holder := transcript.Holder(sessionPath(t, w, first)); holder != 0 {
				t.Fatalf("session %s is still held by pid %d", first, holder)
			}
		})
	}
}

func sessionIDs(list []sessionView) string {
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, " ")
}

// cliSessions is the ids `wisp sessions` lists, in its order.
func cliSessions(t *testing.T, w *world) string {
	t.Helper()
	cmd := exec.Command(w.bin, "sessions")
	cmd.Dir, cmd.Env = w.work, w.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wisp sessions: %v", err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
		ids = append(ids, strings.Fields(line)[0])
	}
	return strings.Join(ids, " ")
}

// sessionPath finds a session's transcript in the world's home.
func sessionPath(t *testing.T, w *world, id string) string {
	t.Helper()
	p, err := transcript.Find(filepath.Join(w.home, ".wisp", "sessions"), id)
	if err != nil {
		t.Fatalf("find session %s: %v", id, err)
	}
	return p
}

// checkInvariants checks a log: every agent_start ends with exactly
// one agent_end, every turn_start with one turn_end, every tool
// execution start with exactly one result, and every approval request
// with one decision and then one result.
func checkInvariants(t *testing.T, log []frame) {
	t.Helper()
	open, turns := 0, 0
	started := map[string]int{}
	results := map[string]int{}
	asked := map[string]string{} // call id: what came last
	for _, f := range log {
		id := f.str("call_id")
		switch f.typ() {
		case "agent_start":
			if open != 0 {
				t.Fatalf("agent_start inside a run: %s", f.raw)
			}
			open++
		case "agent_end":
			if open != 1 {
				t.Fatalf("agent_end without its agent_start: %s", f.raw)
			}
			open--
		case "turn_start":
			turns++
		case "turn_end":
			turns--
		case "tool_execution_start":
			started[id]++
		case "approval_request":
			asked[id] = "request"
		case "approval_decision":
			if asked[id] != "request" {
				t.Fatalf("a decision for %s without its request", id)
			}
			asked[id] = "decision"
		case "tool_result":
			results[id]++
			if a, ok := asked[id]; ok && a != "decision" {
				t.Fatalf("call %s has a result before its approval was decided", id)
			}
		}
		if turns < 0 || turns > 1 {
			t.Fatalf("turn markers out of order at %s", f.raw)
		}
	}
	if open != 0 || turns != 0 {
		t.Fatalf("a run or a turn never ended (runs open %d, turns open %d)", open, turns)
	}
	for id, n := range started {
		if n != 1 || results[id] != 1 {
			t.Fatalf("call %s: %d starts, %d results", id, n, results[id])
		}
	}
	for id := range asked {
		if results[id] != 1 {
			t.Fatalf("call %s was asked about and has %d results", id, results[id])
		}
	}
}

// TestApprovalSteerFollowUp approves a call over the wire, steers the
// run while it waits, and queues a follow-up; the steer reaches the
// very next request after the call's result.
func TestApprovalSteerFollowUp(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			w := newWorld(t, format,
				fake.Turn{Text: "Writing.", ToolCalls: []fake.ToolCall{writeCall("a.txt", "one")}},
				fake.Turn{Text: "Written."},
				fake.Turn{Text: "Follow-up done."})
			c := w.start(t)
			c.ok("prompt", map[string]any{"message": "write a.txt"})
			c.fails("prompt", map[string]any{"message": "another"}, CodeBusy)
			req := c.event("approval_request")
			callID := req.str("call_id")
			if req.str("tool") != "write" || callID == "" || req.str("subject") == "" || req.str("level") == "" {
				t.Fatalf("approval_request: %s", req.raw)
			}
			q := c.ok("steer", map[string]any{"message": "STEERING NOTE"})
			if !strings.Contains(string(q["steering"]), "STEERING NOTE") {
				t.Fatalf("steer's queue: %v", q)
			}
			c.ok("follow_up", map[string]any{"message": "FOLLOW UP"})
			if st := c.ok("get_state", nil); string(st["running"]) != "true" || !strings.Contains(string(st["queue"]), "FOLLOW UP") {
				t.Fatalf("get_state during the run: %v", st)
			}
			// An answer naming another session is refused, and leaves the
			// question open.
			c.fails("approve", map[string]any{"call_id": callID, "session": "another", "approved": true}, CodeNoApproval)
			c.ok("approve", map[string]any{"call_id": callID, "session": req.str("session"), "approved": true, "scope": "once"})
			c.fails("approve", map[string]any{"call_id": callID, "approved": true}, CodeNoApproval)
			dec := c.event("approval_decision")
			if string(dec.fields["approved"]) != "true" {
				t.Fatalf("decision: %s", dec.raw)
			}
			res := c.event("tool_result")
			if res.str("outcome") != "ok" {
				t.Fatalf("the approved call did not run: %s", res.raw)
			}
			c.event("agent_end")
			start := c.event("agent_start")
			if !strings.Contains(start.raw, "FOLLOW UP") {
				t.Fatalf("the follow-up did not run next: %s", start.raw)
			}
			c.event("agent_end")
			if data, err := os.ReadFile(filepath.Join(w.work, "a.txt")); err != nil || string(data) != "one" {
				t.Fatalf("a.txt: %q, %v", data, err)
			}
			reqs := w.srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3", len(reqs))
			}
			second := string(reqs[1].Body)
			r, s := strings.Index(second, "wrote"), strings.Index(second, "STEERING NOTE")
			if s < 0 || strings.Contains(string(reqs[0].Body), "STEERING NOTE") {
				t.Fatalf("the steer is not in the request right after the call:\n%s", second)
			}
			if r >= 0 && s < r {
				t.Fatalf("the steer comes before the call's result:\n%s", second)
			}
			checkInvariants(t, c.log)
			c.shutdown()
		})
	}
}

// TestCancelRepairsAndResumes cancels a run while its call waits for
// approval: the call gets its result, the next request is well formed,
// and get_messages equals what --resume loads.
func TestCancelRepairsAndResumes(t *testing.T) {
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			w := newWorld(t, format,
				fake.Turn{Text: "Writing.", ToolCalls: []fake.ToolCall{writeCall("b.txt", "two")}},
				fake.Turn{Text: "After the cancel."})
			c := w.start(t)
			c.ok("prompt", map[string]any{"message": "write b.txt"})
			c.event("approval_request")
			c.ok("follow_up", map[string]any{"message": "never runs"})
			d := c.ok("cancel", nil)
			if string(d["cancelled"]) != "true" || !strings.Contains(string(d["dropped"]), "never runs") {
				t.Fatalf("cancel: %v", d)
			}
			// cancel answers once the run has ended: its agent_end is in.
			if n := len(c.events("agent_end")); n != 1 {
				t.Fatalf("%d agent_end events before cancel's response, want 1", n)
			}
			c.skip()
			c.ok("prompt", map[string]any{"message": "go on"})
			c.event("agent_end")
			checkInvariants(t, c.log)
			reqs := w.srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			wellFormed(t, format, reqs[1].Body)
			before := c.ok("get_messages", nil)
			id := str(c.ok("get_state", nil)["session_id"])
			c.shutdown()

			again := w.start(t, "--resume", id)
			after := again.ok("get_messages", nil)
			if !reflect.DeepEqual(canon(t, before["messages"]), canon(t, after["messages"])) {
				t.Fatalf("get_messages differs from what --resume loads:\nbefore: %s\nresumed: %s", before["messages"], after["messages"])
			}
			again.shutdown()
			last := lastRecord(t, sessionPath(t, w, id))
			if end, ok := last.Event.Event.(event.SessionEnd); !ok || end.Reason != "exit" {
				t.Fatalf("the transcript does not end with the closing record: %+v", last)
			}
		})
	}
}

// wellFormed checks that every tool call in a request has its result
// in the message right after it.
func wellFormed(t *testing.T, format string, body []byte) {
	t.Helper()
	var req struct {
		Messages []struct {
			Role       string                `json:"role"`
			Content    json.RawMessage       `json:"content"`
			ToolCalls  []struct{ ID string } `json:"tool_calls"`
			ToolCallID string                `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	pending := map[string]bool{}
	for _, m := range req.Messages {
		if format == "openai" {
			for _, c := range m.ToolCalls {
				pending[c.ID] = true
			}
			delete(pending, m.ToolCallID)
			continue
		}
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				pending[b.ID] = true
			case "tool_result":
				delete(pending, b.ToolUseID)
			}
		}
	}
	if len(pending) > 0 {
		t.Fatalf("calls without a result in the request after the cancel: %v\n%s", pending, body)
	}
}

func canon(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func lastRecord(t *testing.T, path string) transcript.Record {
	t.Helper()
	_, recs, err := transcript.Load(path)
	if err != nil || len(recs) == 0 {
		t.Fatalf("load %s: %v", path, err)
	}
	return recs[len(recs)-1]
}

// TestFrames sends malformed frames over the wire: each gets a typed
// error response and wisp keeps going; a torn last line is refused and
// the end of input ends wisp with exit code 0.
func TestFrames(t *testing.T) {
	w := newWorld(t, "anthropic")
	c := w.start(t)
	cases := []struct {
		name, raw, code string
	}{
		{"invalid UTF-8", "{\"type\":\"get_state\",\"id\":\"\xff\"}\n", CodeInvalidUTF8},
		{"duplicate key", `{"type":"approve","call_id":"x","approved":false,"approved":true}` + "\n", CodeDuplicateKey},
		{"not JSON", "hello\n", CodeInvalidJSON},
		{"two values", `{"type":"get_state"} {"type":"get_state"}` + "\n", CodeInvalidJSON},
		{"not an object", "[1,2]\n", CodeInvalidRequest},
		{"no type", `{"id":1}` + "\n", CodeInvalidRequest},
		{"object id", `{"id":{},"type":"get_state"}` + "\n", CodeInvalidRequest},
	}
	for _, tc := range cases {
		c.sendRaw(tc.raw)
		f := c.next()
		var e Error
		_ = json.Unmarshal(f.fields["error"], &e)
		if f.typ() != "response" || e.Code != tc.code {
			t.Errorf("%s: got %s, want code %s", tc.name, f.raw, tc.code)
		}
	}
	// A frame over 64 MiB is skipped without being held whole.
	big := bytes.Repeat([]byte("x"), 1<<20)
	for range MaxFrame >> 20 {
		if _, err := c.in.Write(big); err != nil {
			t.Fatal(err)
		}
	}
	c.sendRaw("x\n")
	f := c.next()
	var fe Error
	_ = json.Unmarshal(f.fields["error"], &fe)
	if fe.Code != CodeFrameTooLarge {
		t.Fatalf("a frame over 64 MiB: %s", f.raw)
	}
	// CRLF framing, and U+2028/U+2029 inside a string are no line ends.
	c.sendRaw("{\"id\":\"crlf\",\"type\":\"get_state\"}\r\n")
	if f := c.next(); f.str("id") != "crlf" || string(f.fields["success"]) != "true" {
		t.Fatalf("CRLF frame: %s", f.raw)
	}
	c.sendRaw("{\"id\":\"a\u2028b\u2029c\",\"type\":\"get_queue\"}\n")
	if f := c.next(); f.str("id") != "a\u2028b\u2029c" || string(f.fields["success"]) != "true" {
		t.Fatalf("U+2028 frame: %s", f.raw)
	}
	if f := c.call("get_state", nil); string(f.fields["success"]) != "true" {
		t.Fatalf("wisp did not keep going: %s", f.raw)
	}
	c.sendRaw(`{"id":"torn","type":"get_state"}`)
	_ = c.in.Close()
	f = c.next()
	var e Error
	_ = json.Unmarshal(f.fields["error"], &e)
	if e.Code != CodeTornFrame {
		t.Fatalf("torn last line: %s", f.raw)
	}
	c.wantExit(0)
}

// TestSignalsEndLikeShutdown sends SIGTERM and SIGHUP while a call
// waits for approval: the run ends with its agent_end, and the
// transcript's closing record names the signal.
func TestSignalsEndLikeShutdown(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			w := newWorld(t, "anthropic", fake.Turn{Text: "Writing.", ToolCalls: []fake.ToolCall{writeCall("c.txt", "x")}})
			c := w.start(t)
			id := str(c.ok("get_state", nil)["session_id"])
			c.ok("prompt", map[string]any{"message": "write"})
			c.event("approval_request")
			if err := c.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			c.wantExit(128 + int(sig))
			checkInvariants(t, c.log)
			name := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[sig]
			if last := lastRecord(t, sessionPath(t, w, id)); !isEnd(last, name) {
				t.Fatalf("closing record: %+v", last)
			}
		})
	}
}

// TestEOFLetsTheRunFinish: input that ends right after a prompt (a
// client piping its commands in) still gets the whole run, and the
// follow-up it queued, before wisp closes the session and exits 0.
func TestEOFLetsTheRunFinish(t *testing.T) {
	w := newWorld(t, "anthropic",
		fake.Turn{Text: "first answer", DelayMS: 300},
		fake.Turn{Text: "second answer"})
	c := w.start(t)
	c.sendRaw(`{"type":"prompt","message":"one"}` + "\n" + `{"type":"follow_up","message":"two"}` + "\n")
	_ = c.in.Close()
	c.wantExit(0)
	ends := c.events("agent_end")
	if len(ends) != 2 {
		t.Fatalf("%d runs ended, want 2 (the prompt and its follow-up):\n%s", len(ends), c.tail(20))
	}
	for _, e := range ends {
		if e.str("error") != "" {
			t.Errorf("a run ended with an error: %s", e.raw)
		}
	}
}

// isEnd says whether r is the session_end record with the reason why.
func isEnd(r transcript.Record, why string) bool {
	end, ok := r.Event.Event.(event.SessionEnd)
	return ok && end.Reason == why
}
