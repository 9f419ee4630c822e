package transcript

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// A server may reuse call ids across responses: an earlier call's start
// must not make a later call of the same id, which never started, look
// interrupted.
func TestStartedCallsAreScopedToTheirResponse(t *testing.T) {
	call := chat.Block{Type: chat.ToolUse, ID: "call_0", Name: "bash"}
	msg := func(role chat.Role, b chat.Block) Record {
		return Record{Type: TypeMessage, Message: &chat.Message{Role: role, Content: []chat.Block{b}}}
	}
	branch := []Record{
		msg(chat.User, chat.Block{Type: chat.Text, Text: "first"}),
		msg(chat.Assistant, call),
		{Type: TypeEvent, Event: event.Any{Event: event.ToolStart{CallID: "call_0"}}},
		msg(chat.User, chat.Block{Type: chat.ToolResult, ToolUseID: "call_0", Text: "done"}),
		msg(chat.User, chat.Block{Type: chat.Text, Text: "second"}),
		msg(chat.Assistant, call),
	}
	msgs := conversation(branch)
	last := msgs[len(msgs)-1]
	if last.Role == chat.User && strings.Contains(last.TextOf()+last.Content[0].Text, "interrupted") {
		t.Fatalf("the second call_0 never started, yet reads as interrupted: %+v", last)
	}
	started := append(branch, Record{Type: TypeEvent, Event: event.Any{Event: event.ToolStart{CallID: "call_0"}}})
	msgs = conversation(started)
	last = msgs[len(msgs)-1]
	if last.Role != chat.User || !strings.Contains(last.Content[0].Text, "interrupted") {
		t.Fatalf("the second call_0 started and has no result, yet does not read as interrupted: %+v", msgs)
	}
}

func TestAfterPiped(t *testing.T) {
	for in, want := range map[string]string{
		"why?":                               "why?",
		"```\nlog\n```\n\nwhy does it fail?": "why does it fail?",
		"````\na ``` b\n````\n\nq":           "q",
		"```\nonly a block\n```":             "```\nonly a block\n```",
		"```\nunclosed":                      "```\nunclosed",
	} {
		if got := afterPiped(in); got != want {
			t.Errorf("afterPiped(%q) = %q, want %q", in, got, want)
		}
	}
}

// A call stopped while its approval question waited never ran: resuming
// leaves it without a result, for the agent's repair to answer "not run"
// (tool_execution_start comes before the gate asks), rather than calling
// it Interrupted ("may have partly run"). An approved question makes it
// started again.
func TestUnansweredQuestionIsNotRun(t *testing.T) {
	call := chat.Block{Type: chat.ToolUse, ID: "c1", Name: "bash"}
	ev := func(e event.Event) Record { return Record{Type: TypeEvent, Event: event.Any{Event: e}} }
	base := func(more ...Record) []Record {
		return append([]Record{
			{Type: TypeMessage, Message: &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: "go"}}}},
			{Type: TypeMessage, Message: &chat.Message{Role: chat.Assistant, Content: []chat.Block{call}}},
			ev(event.ToolStart{CallID: "c1"}),
			ev(event.ApprovalRequest{CallID: "c1", Ask: 1}),
		}, more...)
	}
	tests := []struct {
		name        string
		branch      []Record
		interrupted bool
	}{
		{"asked, no answer", base(), false},
		{"asked, denied", base(ev(event.ApprovalDecision{CallID: "c1", Approved: false})), false},
		{"asked, approved", base(ev(event.ApprovalDecision{CallID: "c1", Approved: true})), true},
		{"approved, then a second question waits", base(ev(event.ApprovalDecision{CallID: "c1", Approved: true}), ev(event.ApprovalRequest{CallID: "c1", Ask: 2})), false},
		{"started, never asked", base()[:3], true},
	}
	for _, tt := range tests {
		msgs := conversation(tt.branch)
		last := msgs[len(msgs)-1]
		got := last.Role == chat.User && len(last.Content) > 0 && last.Content[0].Text == Interrupted
		if got != tt.interrupted {
			t.Errorf("%s: interrupted = %v, want %v (%+v)", tt.name, got, tt.interrupted, last)
		}
	}
}

// A transcript with records deleted by hand still resumes as a history a
// provider takes: it opens with the user, and each call's result follows
// its call even when the next record on file is another answer.
func TestHandEditedBranchStaysWellFormed(t *testing.T) {
	msg := func(role chat.Role, b ...chat.Block) Record {
		return Record{Type: TypeMessage, Message: &chat.Message{Role: role, Content: b}}
	}
	call := chat.Block{Type: chat.ToolUse, ID: "c1", Name: "bash"}
	branch := []Record{
		// The prompt's record is gone: the branch starts with an answer.
		msg(chat.Assistant, call),
		{Type: TypeEvent, Event: event.Any{Event: event.ToolStart{CallID: "c1"}}},
		// c1's result record is gone too: the next answer follows.
		msg(chat.Assistant, chat.Block{Type: chat.Text, Text: "done"}),
		msg(chat.User, chat.Block{Type: chat.Text, Text: "thanks"}),
	}
	msgs := conversation(branch)
	if len(msgs) == 0 || msgs[0].Role != chat.User || msgs[0].Content[0].Text != MissingStart {
		t.Fatalf("the history does not open with the user: %+v", msgs)
	}
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == msgs[i-1].Role && msgs[i].Role == chat.Assistant {
			t.Errorf("two answers in a row at %d: %+v", i, msgs)
		}
		for _, c := range msgs[i].ToolUses() {
			next := msgs[min(i+1, len(msgs)-1)]
			if i+1 >= len(msgs) || next.Role != chat.User || next.Content[0].ToolUseID != c.ID {
				t.Errorf("call %s is not answered right after it: %+v", c.ID, msgs)
			}
		}
	}
}
