package transcript

import (
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// FromEvent turns an event of the loop into the records a transcript
// keeps, or none. A finished message becomes a message record, and its
// usage and stop reason a message_end event record without the message.
// A tool result becomes a message record of its own (a user message with
// that one tool_result block): it is the call's durable result, and a
// resumed conversation joins such records into one tool-result message.
// A call's start (tool_execution_start) is kept so that resuming can
// tell a call that was cut short from one that never ran. Tool calls,
// approvals, retries, errors and the run's end are kept too, except that
// a tool call's arguments are left out: the assistant message holds
// them. Deltas, tool_execution_end and the turn markers are dropped.
func FromEvent(e event.Event) []Record {
	t := e.Head().Time
	if t.IsZero() {
		t = time.Now()
	}
	t = t.UTC()
	keep := func(e event.Event) []Record { return []Record{{Type: TypeEvent, Time: t, Event: event.Any{Event: e}}} }
	switch e := e.(type) {
	case event.MessageEnd:
		var out []Record
		if e.Message != nil {
			// Copies, so a record does not change when the loop later
			// updates what the event pointed at.
			m := *e.Message
			out = append(out, Record{Type: TypeMessage, Time: t, Message: &m})
		}
		if e.Usage != nil || e.StopReason != "" {
			e.Message = nil
			if e.Usage != nil {
				u := *e.Usage
				e.Usage = &u
			}
			out = append(out, keep(e)...)
		}
		return out
	case event.ToolResult:
		m := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: e.CallID, Text: e.Result, IsError: e.IsError}}}
		return []Record{{Type: TypeMessage, Time: t, Message: &m}}
	case event.ToolCall:
		e.Args = nil
		return keep(e)
	case event.ToolStart, event.ApprovalRequest, event.ApprovalDecision, event.Retry, event.Error, event.AgentEnd, event.SessionEnd:
		return keep(e)
	}
	return nil
}
