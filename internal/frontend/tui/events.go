package tui

import (
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/frontend"
)

// This file is the only one that reads the session's events: fromEvent
// turns each into one of the screen's own messages below, and the rest
// of the package knows nothing else of package event.

// Messages the session's events become.
type (
	// runStartMsg: a run began; queued says its prompt waited in the
	// session's queue (a follow-up, or a steer that found no boundary).
	runStartMsg struct {
		queued bool
		prompt string
	}
	runEndMsg    struct{ usage usageInfo }
	assistantMsg struct{}
	deltaMsg     struct{ text string }
	assistantEnd struct{ usage *usageInfo }
	toolCallMsg  struct{ id, tool, class, args string }
	toolStartMsg struct{ id string }
	toolEndMsg   struct {
		id      string
		elapsed time.Duration
	}
	toolResultMsg struct {
		id, tool, result string
		// mark is how the call ended as a person reads it (✓, ✗ exit 2,
		// ✗ refused: WHY); refused says nothing ran.
		mark    string
		isError bool
		refused bool
	}
	askedMsg   struct{ id, level, reasons string }
	verdictMsg struct {
		id       string
		approved bool
		reason   string
	}
	noteMsg struct {
		text  string
		isErr bool
	}
)

// usageInfo is what the footer shows of the model's token use.
type usageInfo struct{ input, output int64 }

// fromEvent maps one event to the screen's message; nil for events the
// screen does not show.
func fromEvent(e event.Event) any {
	switch e := e.(type) {
	case event.AgentStart:
		return runStartMsg{queued: e.Queued, prompt: e.Message.TextOf()}
	case event.AgentEnd:
		u := e.Usage
		return runEndMsg{usage: usageInfo{u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens, u.OutputTokens}}
	case event.MessageStart:
		return assistantMsg{}
	case event.MessageDelta:
		return deltaMsg{text: e.Delta}
	case event.MessageEnd:
		m := assistantEnd{}
		if e.Usage != nil {
			m.usage = &usageInfo{e.Usage.InputTokens + e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens, e.Usage.OutputTokens}
		}
		return m
	case event.ToolCall:
		return toolCallMsg{id: e.CallID, tool: e.Tool, class: e.Class, args: string(e.Args)}
	case event.ToolStart:
		return toolStartMsg{id: e.CallID}
	case event.ToolEnd:
		return toolEndMsg{id: e.CallID, elapsed: time.Duration(e.DurationMS) * time.Millisecond}
	case event.ToolResult:
		return toolResultMsg{id: e.CallID, tool: e.Tool, result: e.Result, mark: frontend.Outcome(e),
			isError: e.IsError, refused: e.Outcome == event.OutcomeRefused || e.Outcome == event.OutcomeNotRun}
	case event.ApprovalRequest:
		return askedMsg{id: e.CallID, level: e.Level, reasons: e.Reason}
	case event.ApprovalDecision:
		return verdictMsg{id: e.CallID, reason: e.Reason, approved: e.Approved}
	case event.Retry:
		return noteMsg{text: strings.TrimSpace(frontend.OneLine(e.Error, 200)) + "; retrying"}
	case event.Error:
		return noteMsg{text: "error: " + e.Error, isErr: true}
	}
	return nil
}
