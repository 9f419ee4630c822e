package event

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
)

// every holds one event of each kind with its fields set.
func every() []Event {
	h := Header{Time: time.Date(2026, 12, 2, 3, 4, 5, 6, time.UTC), Session: "s1", Turn: 2}
	code := 3
	msg := chat.UserText("hi")
	return []Event{
		AgentStart{Header: h, Message: msg, Queued: true},
		TurnStart{Header: h},
		MessageStart{Header: h},
		MessageDelta{Header: h, Delta: "he"},
		MessageEnd{Header: h, Message: &msg, Usage: &chat.Usage{InputTokens: 5}, StopReason: "end_turn"},
		ToolCall{Header: h, CallID: "c1", Tool: "bash", Class: "command", Args: json.RawMessage(`{"command":"ls"}`)},
		ApprovalRequest{Header: h, CallID: "c1", Ask: 2, Tool: "bash", Class: "command", Subject: "rm -rf x", Part: "rm -rf x", Level: "dangerous", Reason: "deletes"},
		ApprovalDecision{Header: h, CallID: "c1", Tool: "bash", Class: "command", Subject: "rm -rf x", Approved: false, Reason: "no"},
		ToolStart{Header: h, CallID: "c1", Tool: "bash", Class: "command"},
		ToolEnd{Header: h, CallID: "c1", Tool: "bash", IsError: true, DurationMS: 12},
		ToolResult{Header: h, CallID: "c1", Tool: "bash", Result: "out", IsError: true, Outcome: OutcomeExit, ExitCode: &code, Reason: "r"},
		Retry{Header: h, Attempt: 1, DelayMS: 500, Error: "429"},
		Error{Header: h, CallID: "c1", Tool: "bash", Error: "boom"},
		TurnEnd{Header: h},
		AgentEnd{Header: h, Usage: chat.Usage{OutputTokens: 7}, Error: "failed"},
		SessionEnd{Header: h, Reason: "exit"},
	}
}

// TestRoundTrip: each kind encodes with its type first and decodes back
// to the same value, also inside Any.
func TestRoundTrip(t *testing.T) {
	seen := map[Type]bool{}
	for _, e := range every() {
		seen[e.Kind()] = true
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Kind(), err)
		}
		if want := `{"type":"` + string(e.Kind()) + `","time":`; !strings.HasPrefix(string(b), want) {
			t.Errorf("%s encodes as %s, want it to start with %s", e.Kind(), b, want)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", e.Kind(), err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("%s: decoded %#v, want %#v", e.Kind(), back, e)
		}
		var a Any
		if err := json.Unmarshal(b, &a); err != nil || !reflect.DeepEqual(a.Event, e) {
			t.Errorf("%s through Any: %#v, %v", e.Kind(), a.Event, err)
		}
	}
	if len(seen) != 16 {
		t.Errorf("%d kinds covered, want 16", len(seen))
	}
}

// TestOnlyOwnFields: a kind carries only its fields, and leaves out the
// empty ones (approved is the exception: a no is an answer).
func TestOnlyOwnFields(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{TurnEnd{}, `{"type":"turn_end","time":"0001-01-01T00:00:00Z"}`},
		{ApprovalDecision{CallID: "c"}, `{"type":"approval_decision","time":"0001-01-01T00:00:00Z","call_id":"c","approved":false}`},
		{MessageDelta{Header: Header{Turn: 1}, Delta: "x"}, `{"type":"message_delta","time":"0001-01-01T00:00:00Z","turn":1,"delta":"x"}`},
	} {
		b, err := json.Marshal(c.e)
		if err != nil || string(b) != c.want {
			t.Errorf("%s: %s (%v), want %s", c.e.Kind(), b, err, c.want)
		}
	}
}

func TestStamp(t *testing.T) {
	h := Header{Session: "s", Turn: 4}
	e := Stamp(ToolStart{CallID: "c"}, h)
	if e.Head() != h || e.(ToolStart).CallID != "c" {
		t.Errorf("stamped %#v", e)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, in := range []string{`{"type":"nope"}`, `{}`, `[`, `{"type":"tool_result","is_error":"yes"}`} {
		if _, err := Decode([]byte(in)); err == nil || !strings.Contains(err.Error(), "event") {
			t.Errorf("Decode(%s) = %v, want an error about the event", in, err)
		}
	}
}

// FuzzDecode: any input decodes or fails cleanly, and what decodes
// encodes and decodes again to the same event.
func FuzzDecode(f *testing.F) {
	for _, e := range every() {
		b, _ := json.Marshal(e)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Decode(data)
		if err != nil {
			return
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("re-encoding %#v: %v", e, err)
		}
		back, err := Decode(b)
		if err != nil {
			t.Fatalf("decoding %s again: %v", b, err)
		}
		b2, _ := json.Marshal(back)
		if string(b2) != string(b) {
			t.Fatalf("not stable: %s then %s", b, b2)
		}
	})
}
