package event

import (
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp/internal/chat"
)

// The kinds of event, in the order a run emits them.

// AgentStart: a prompt starts a run.
type AgentStart struct {
	Header
	// Message is the prompt, as a user message.
	Message chat.Message `json:"message"`
	// Queued: the prompt waited in the session's queue (a follow-up, or
	// a steer that found no boundary) rather than being sent directly.
	Queued bool `json:"queued,omitempty"`
}

// TurnStart: a provider request is about to be sent.
type TurnStart struct {
	Header
}

// MessageStart: the assistant message begins streaming.
type MessageStart struct {
	Header
}

// MessageDelta: a piece of streamed assistant text.
type MessageDelta struct {
	Header
	Delta string `json:"delta,omitempty"`
}

// MessageEnd: a message joined the conversation: the prompt, each answer, the tool results sent back.
type MessageEnd struct {
	Header
	// Message is absent only in the transcript, which keeps the
	// message as a record of its own.
	Message *chat.Message `json:"message,omitempty"`
	// Usage and StopReason are an assistant message's.
	Usage      *chat.Usage `json:"usage,omitempty"`
	StopReason string      `json:"stop_reason,omitempty"`
}

// ToolCall: the model asked for a tool call.
type ToolCall struct {
	Header
	CallID string          `json:"call_id,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Class  string          `json:"class,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
}

// ApprovalRequest: the gate asks before a mutating or command call.
type ApprovalRequest struct {
	Header
	CallID string `json:"call_id,omitempty"`
	// Ask numbers the call's questions (1, 2, …): a shell line is asked
	// about one simple command at a time, all under the call's id.
	Ask   int    `json:"ask,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Class string `json:"class,omitempty"`
	// Subject is the shell line, or the tool and its arguments.
	Subject string `json:"subject,omitempty"`
	// Part is the simple command asked about, when the line has several.
	Part string `json:"part,omitempty"`
	// Level is the classifier's verdict, Reason its reasons.
	Level  string `json:"level,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// ApprovalDecision: the answer to a question (print mode without --yes is a denial).
type ApprovalDecision struct {
	Header
	CallID   string `json:"call_id,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Class    string `json:"class,omitempty"`
	Subject  string `json:"subject,omitempty"`
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"`
}

// ToolStart: the call starts.
type ToolStart struct {
	Header
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Class  string `json:"class,omitempty"`
}

// ToolEnd: the call finished.
type ToolEnd struct {
	Header
	CallID     string `json:"call_id,omitempty"`
	Tool       string `json:"tool,omitempty"`
	IsError    bool   `json:"is_error,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
}

// ToolResult: what the model is sent back for a call, also for one that never ran.
type ToolResult struct {
	Header
	CallID  string `json:"call_id,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Result  string `json:"result,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	// Outcome is how the call ended (an Outcome constant); Reason says
	// why for every outcome but OutcomeOK and OutcomeExit.
	Outcome string `json:"outcome,omitempty"`
	// ExitCode is the exit status of a command that ran to its end.
	ExitCode *int   `json:"exit_code,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Retry: a failed provider request is sent again after a delay.
type Retry struct {
	Header
	Attempt int   `json:"attempt,omitempty"`
	DelayMS int64 `json:"delay_ms,omitempty"`
	// Error is the cause.
	Error string `json:"error,omitempty"`
}

// Error: a provider failure after retries, the tool iteration limit, a tool's panic, an audit log that failed.
type Error struct {
	Header
	// CallID and Tool name the call, for an error inside one.
	CallID string `json:"call_id,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Error  string `json:"error,omitempty"`
}

// TurnEnd: the turn is over.
type TurnEnd struct {
	Header
}

// AgentEnd: the run is over.
type AgentEnd struct {
	Header
	// Usage is the run's total.
	Usage chat.Usage `json:"usage"`
	// Error says why the run failed.
	Error string `json:"error,omitempty"`
}

// SessionEnd: the session was closed (transcript only).
type SessionEnd struct {
	Header
	// Reason: "exit", "end of input", "interrupted", "SIGINT",
	// "SIGTERM", "SIGHUP" or "panic".
	Reason string `json:"reason,omitempty"`
}

func (AgentStart) Kind() Type                  { return TypeAgentStart }
func (e AgentStart) Head() Header              { return e.Header }
func (e AgentStart) withHeader(h Header) Event { e.Header = h; return e }
func (e AgentStart) MarshalJSON() ([]byte, error) {
	type plain AgentStart
	return marshal(e.Kind(), plain(e))
}

func (TurnStart) Kind() Type                  { return TypeTurnStart }
func (e TurnStart) Head() Header              { return e.Header }
func (e TurnStart) withHeader(h Header) Event { e.Header = h; return e }
func (e TurnStart) MarshalJSON() ([]byte, error) {
	type plain TurnStart
	return marshal(e.Kind(), plain(e))
}

func (MessageStart) Kind() Type                  { return TypeMessageStart }
func (e MessageStart) Head() Header              { return e.Header }
func (e MessageStart) withHeader(h Header) Event { e.Header = h; return e }
func (e MessageStart) MarshalJSON() ([]byte, error) {
	type plain MessageStart
	return marshal(e.Kind(), plain(e))
}

func (MessageDelta) Kind() Type                  { return TypeMessageDelta }
func (e MessageDelta) Head() Header              { return e.Header }
func (e MessageDelta) withHeader(h Header) Event { e.Header = h; return e }
func (e MessageDelta) MarshalJSON() ([]byte, error) {
	type plain MessageDelta
	return marshal(e.Kind(), plain(e))
}

func (MessageEnd) Kind() Type                  { return TypeMessageEnd }
func (e MessageEnd) Head() Header              { return e.Header }
func (e MessageEnd) withHeader(h Header) Event { e.Header = h; return e }
func (e MessageEnd) MarshalJSON() ([]byte, error) {
	type plain MessageEnd
	return marshal(e.Kind(), plain(e))
}

func (ToolCall) Kind() Type                  { return TypeToolCall }
func (e ToolCall) Head() Header              { return e.Header }
func (e ToolCall) withHeader(h Header) Event { e.Header = h; return e }
func (e ToolCall) MarshalJSON() ([]byte, error) {
	type plain ToolCall
	return marshal(e.Kind(), plain(e))
}

func (ApprovalRequest) Kind() Type                  { return TypeApprovalRequest }
func (e ApprovalRequest) Head() Header              { return e.Header }
func (e ApprovalRequest) withHeader(h Header) Event { e.Header = h; return e }
func (e ApprovalRequest) MarshalJSON() ([]byte, error) {
	type plain ApprovalRequest
	return marshal(e.Kind(), plain(e))
}

func (ApprovalDecision) Kind() Type                  { return TypeApprovalDecision }
func (e ApprovalDecision) Head() Header              { return e.Header }
func (e ApprovalDecision) withHeader(h Header) Event { e.Header = h; return e }
func (e ApprovalDecision) MarshalJSON() ([]byte, error) {
	type plain ApprovalDecision
	return marshal(e.Kind(), plain(e))
}

func (ToolStart) Kind() Type                  { return TypeToolStart }
func (e ToolStart) Head() Header              { return e.Header }
func (e ToolStart) withHeader(h Header) Event { e.Header = h; return e }
func (e ToolStart) MarshalJSON() ([]byte, error) {
	type plain ToolStart
	return marshal(e.Kind(), plain(e))
}

func (ToolEnd) Kind() Type                  { return TypeToolEnd }
func (e ToolEnd) Head() Header              { return e.Header }
func (e ToolEnd) withHeader(h Header) Event { e.Header = h; return e }
func (e ToolEnd) MarshalJSON() ([]byte, error) {
	type plain ToolEnd
	return marshal(e.Kind(), plain(e))
}

func (ToolResult) Kind() Type                  { return TypeToolResult }
func (e ToolResult) Head() Header              { return e.Header }
func (e ToolResult) withHeader(h Header) Event { e.Header = h; return e }
func (e ToolResult) MarshalJSON() ([]byte, error) {
	type plain ToolResult
	return marshal(e.Kind(), plain(e))
}

func (Retry) Kind() Type                     { return TypeRetry }
func (e Retry) Head() Header                 { return e.Header }
func (e Retry) withHeader(h Header) Event    { e.Header = h; return e }
func (e Retry) MarshalJSON() ([]byte, error) { type plain Retry; return marshal(e.Kind(), plain(e)) }

func (Error) Kind() Type                     { return TypeError }
func (e Error) Head() Header                 { return e.Header }
func (e Error) withHeader(h Header) Event    { e.Header = h; return e }
func (e Error) MarshalJSON() ([]byte, error) { type plain Error; return marshal(e.Kind(), plain(e)) }

func (TurnEnd) Kind() Type                  { return TypeTurnEnd }
func (e TurnEnd) Head() Header              { return e.Header }
func (e TurnEnd) withHeader(h Header) Event { e.Header = h; return e }
func (e TurnEnd) MarshalJSON() ([]byte, error) {
	type plain TurnEnd
	return marshal(e.Kind(), plain(e))
}

func (AgentEnd) Kind() Type                  { return TypeAgentEnd }
func (e AgentEnd) Head() Header              { return e.Header }
func (e AgentEnd) withHeader(h Header) Event { e.Header = h; return e }
func (e AgentEnd) MarshalJSON() ([]byte, error) {
	type plain AgentEnd
	return marshal(e.Kind(), plain(e))
}

func (SessionEnd) Kind() Type                  { return TypeSessionEnd }
func (e SessionEnd) Head() Header              { return e.Header }
func (e SessionEnd) withHeader(h Header) Event { e.Header = h; return e }
func (e SessionEnd) MarshalJSON() ([]byte, error) {
	type plain SessionEnd
	return marshal(e.Kind(), plain(e))
}

// marshal writes v, a kind's fields, as a JSON object that starts with
// its "type". Hand-written because encoding/json has no way to add a
// constant field to a struct without a second struct per kind.
func marshal(t Type, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding a %s event: %w", t, err)
	}
	out := make([]byte, 0, len(b)+len(t)+12)
	out = append(out, `{"type":"`...)
	out = append(out, t...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// Decode reads one event from its JSON form; an unknown type is an error
// that names it.
func Decode(data []byte) (Event, error) {
	var head struct {
		Type Type `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("reading an event: %w", err)
	}
	switch head.Type {
	case TypeAgentStart:
		return decode[AgentStart](data)
	case TypeTurnStart:
		return decode[TurnStart](data)
	case TypeMessageStart:
		return decode[MessageStart](data)
	case TypeMessageDelta:
		return decode[MessageDelta](data)
	case TypeMessageEnd:
		return decode[MessageEnd](data)
	case TypeToolCall:
		return decode[ToolCall](data)
	case TypeApprovalRequest:
		return decode[ApprovalRequest](data)
	case TypeApprovalDecision:
		return decode[ApprovalDecision](data)
	case TypeToolStart:
		return decode[ToolStart](data)
	case TypeToolEnd:
		return decode[ToolEnd](data)
	case TypeToolResult:
		return decode[ToolResult](data)
	case TypeRetry:
		return decode[Retry](data)
	case TypeError:
		return decode[Error](data)
	case TypeTurnEnd:
		return decode[TurnEnd](data)
	case TypeAgentEnd:
		return decode[AgentEnd](data)
	case TypeSessionEnd:
		return decode[SessionEnd](data)
	}
	return nil, fmt.Errorf("reading an event: unknown type %q", head.Type)
}

func decode[T Event](data []byte) (Event, error) {
	var e T
	// The kinds have no UnmarshalJSON; "type" is ignored as unknown.
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("reading a %s event: %w", e.Kind(), err)
	}
	return e, nil
}

// Any holds an event of any kind where a JSON field needs one (the
// transcript's event records): it encodes as the event does, and decodes
// by the event's type.
type Any struct{ Event }

func (a Any) MarshalJSON() ([]byte, error) {
	if a.Event == nil {
		return []byte("null"), nil
	}
	return json.Marshal(a.Event)
}

func (a *Any) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		a.Event = nil
		return nil
	}
	e, err := Decode(data)
	if err != nil {
		return err
	}
	a.Event = e
	return nil
}
