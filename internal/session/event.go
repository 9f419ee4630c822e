package session

import (
	"time"

	"github.com/wisp-agent/wisp/internal/event"
)

// FromEvent turns an event of the loop into the records a transcript
// keeps, or none. A finished message becomes a message record, and its
// usage and stop reason a message_end event record without the message.
// Tool calls, tool results, approvals, retries, errors and the run's end
// are kept, except that a tool call's arguments and a tool result's
// output are left out: the assistant message and the tool-result message
// already hold them, and a file written or read by a tool would otherwise
// be stored twice. Deltas and the start/end markers are dropped.
func FromEvent(e event.Event) []Record {
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	t = t.UTC()
	// Copies, so a record does not change when the loop later updates
	// what the event pointed at (AgentEnd points at a running total).
	ev := e
	if e.Usage != nil {
		u := *e.Usage
		ev.Usage = &u
	}
	switch e.Type {
	case event.MessageEnd:
		var out []Record
		if e.Message != nil {
			m := *e.Message
			out = append(out, Record{Type: TypeMessage, Time: t, Message: &m})
		}
		if ev.Usage != nil || ev.StopReason != "" {
			ev.Message = nil
			out = append(out, Record{Type: TypeEvent, Time: t, Event: &ev})
		}
		return out
	case event.ToolCall:
		ev.Args = nil
	case event.ToolResult:
		ev.Result = ""
	case event.ApprovalRequest, event.ApprovalDecision, event.Retry, event.Error, event.AgentEnd:
	default:
		return nil
	}
	return []Record{{Type: TypeEvent, Time: t, Event: &ev}}
}
