// Package event holds the one vocabulary the agent loop speaks. Every
// frontend (print, JSON, RPC, TUI, SDK), the transcript and the audit log
// consume these events; none of them reaches into the loop.
package event

import (
	"encoding/json"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
)

// Type names an event.
type Type string

const (
	AgentStart       Type = "agent_start"
	AgentEnd         Type = "agent_end"
	TurnStart        Type = "turn_start"
	TurnEnd          Type = "turn_end"
	MessageStart     Type = "message_start"
	MessageDelta     Type = "message_delta"
	MessageEnd       Type = "message_end"
	ToolCall         Type = "tool_call"
	ToolStart        Type = "tool_execution_start"
	ToolEnd          Type = "tool_execution_end"
	ToolResult       Type = "tool_result"
	ApprovalRequest  Type = "approval_request"
	ApprovalDecision Type = "approval_decision"
	Retry            Type = "retry"
	Error            Type = "error"
	// SessionEnd closes a transcript: why the session ended (Reason:
	// "exit", "end of input", "interrupted", "SIGTERM", "SIGHUP",
	// "panic"). It is written to the transcript only.
	SessionEnd Type = "session_end"
)

// How a tool call ended, as a tool_result's outcome says.
const (
	OutcomeOK      = "ok"      // it ran and succeeded (a command exited 0)
	OutcomeExit    = "exit"    // a command ran and exited non-zero
	OutcomeRefused = "refused" // the gate or the policy refused it: nothing ran
	OutcomeError   = "error"   // any other tool error (timed out, bad arguments, …)
	OutcomeNotRun  = "not_run" // never started (Reason "limit": --max-tool-iterations)
)

// Event is one thing that happened. Which fields are set depends on Type;
// docs/events.md lists them.
type Event struct {
	Type    Type      `json:"type"`
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Turn    int       `json:"turn,omitempty"`

	// AgentStart: the prompt waited in the session's queue (a follow-up,
	// or a steer that found no boundary) rather than being sent directly.
	Queued bool `json:"queued,omitempty"`

	// MessageDelta
	Delta string `json:"delta,omitempty"`
	// MessageEnd (the complete message), AgentStart (the prompt).
	Message *chat.Message `json:"message,omitempty"`
	// MessageEnd, AgentEnd
	Usage      *chat.Usage `json:"usage,omitempty"`
	StopReason string      `json:"stop_reason,omitempty"`

	// ToolCall, ToolStart, ToolEnd, ToolResult, Approval*
	CallID string          `json:"call_id,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Class  string          `json:"class,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	// ToolResult
	Result  string `json:"result,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// ToolResult: how the call ended (one of the Outcome constants); the
	// Reason says why for every outcome but OutcomeOK and OutcomeExit.
	Outcome string `json:"outcome,omitempty"`
	// ToolResult: the exit status of a command that ran to its end.
	ExitCode *int `json:"exit_code,omitempty"`
	// ToolEnd
	DurationMS int64 `json:"duration_ms,omitempty"`

	// ApprovalRequest: what is asked (Subject, the shell line or the
	// tool and its arguments), the classifier's verdict (Level) and
	// why (Reason); ApprovalDecision: the answer.
	Subject string `json:"subject,omitempty"`
	Level   string `json:"level,omitempty"`
	// ApprovalRequest: the question's number within its call (1, 2, …):
	// a shell line is asked about one simple command at a time, all
	// under the call's id.
	Ask int `json:"ask,omitempty"`
	// ApprovalRequest: the simple command of the line this question is
	// about, when the line has several.
	Part     string `json:"part,omitempty"`
	Approved *bool  `json:"approved,omitempty"`
	Reason   string `json:"reason,omitempty"`

	// Retry
	Attempt int   `json:"attempt,omitempty"`
	DelayMS int64 `json:"delay_ms,omitempty"`

	// Error, Retry (the cause)
	Error string `json:"error,omitempty"`
}

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
