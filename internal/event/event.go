// Package event holds the one vocabulary the agent loop speaks: one Go
// type per kind of event, each carrying only its own fields. Every
// frontend (print, JSON, RPC, TUI, SDK), the transcript and the audit log
// consume these events; none of them reaches into the loop, and this
// package imports nothing of wisp's but the conversation types.
package event

import (
	"time"
)

// Type names an event kind; it is the "type" of the event's JSON form.
type Type string

const (
	TypeAgentStart       Type = "agent_start"
	TypeAgentEnd         Type = "agent_end"
	TypeTurnStart        Type = "turn_start"
	TypeTurnEnd          Type = "turn_end"
	TypeMessageStart     Type = "message_start"
	TypeMessageDelta     Type = "message_delta"
	TypeMessageEnd       Type = "message_end"
	TypeToolCall         Type = "tool_call"
	TypeToolStart        Type = "tool_execution_start"
	TypeToolEnd          Type = "tool_execution_end"
	TypeToolResult       Type = "tool_result"
	TypeApprovalRequest  Type = "approval_request"
	TypeApprovalDecision Type = "approval_decision"
	TypeRetry            Type = "retry"
	TypeError            Type = "error"
	TypeSessionEnd       Type = "session_end"
)

// How a tool call ended, as a tool_result's outcome says.
const (
	OutcomeOK      = "ok"      // it ran and succeeded (a command exited 0)
	OutcomeExit    = "exit"    // a command ran and exited non-zero
	OutcomeRefused = "refused" // the gate or the policy refused it: nothing ran
	OutcomeError   = "error"   // any other tool error (timed out, bad arguments, …)
	OutcomeNotRun  = "not_run" // never started (Reason "limit": --max-tool-iterations)
)

// Event is one thing that happened: one of the types in kinds.go. The
// set is closed (the unexported method), so a type switch over it can
// be complete; docs/events.md lists every kind and its fields.
type Event interface {
	// Kind is the event's type, as its JSON form names it.
	Kind() Type
	// Head is what every event carries: when, which session, which turn.
	Head() Header
	// withHeader is the event with its header replaced; it seals the set.
	withHeader(Header) Event
}

// Header is stamped on every event by whoever emits it.
type Header struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	// Turn is the turn the event belongs to: one provider request and the
	// tool calls it asked for; 0 before the first turn.
	Turn int `json:"turn,omitempty"`
}

// Stamp returns e with its header set to h.
func Stamp(e Event, h Header) Event { return e.withHeader(h) }

// Sink receives events. Implementations must not block for long: the loop
// calls them inline.
type Sink func(Event)

// Fan returns a sink that hands each event to every non-nil sink in order.
func Fan(sinks ...Sink) Sink {
	var live []Sink
	for _, s := range sinks {
		if s != nil {
			live = append(live, s)
		}
	}
	return func(e Event) {
		for _, s := range live {
			s(e)
		}
	}
}
