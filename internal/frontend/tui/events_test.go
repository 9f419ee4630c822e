package tui

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
)

func TestFromEvent(t *testing.T) {
	yes, code := true, 2
	tests := []struct {
		name string
		e    event.Event
		want any
	}{
		{"queued prompt", event.AgentStart{Queued: true, Message: chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: "then test"}}}}, runStartMsg{queued: true, prompt: "then test"}},
		{"delta", event.MessageDelta{Delta: "hi"}, deltaMsg{text: "hi"}},
		{"message end with usage", event.MessageEnd{Usage: &chat.Usage{InputTokens: 10, CacheReadTokens: 5, OutputTokens: 3}}, assistantEnd{usage: &usageInfo{input: 15, output: 3}}},
		{"call", event.ToolCall{CallID: "c", Tool: "bash", Class: "command", Args: json.RawMessage(`{"command":"ls"}`)}, toolCallMsg{id: "c", tool: "bash", class: "command", args: `{"command":"ls"}`}},
		{"call ends", event.ToolEnd{CallID: "c", DurationMS: 1500}, toolEndMsg{id: "c", elapsed: 1500 * time.Millisecond}},
		{"exit status", event.ToolResult{CallID: "c", Tool: "bash", Result: "x", IsError: true, Outcome: event.OutcomeExit, ExitCode: &code}, toolResultMsg{id: "c", tool: "bash", result: "x", mark: "✗ exit 2", isError: true}},
		{"refused", event.ToolResult{CallID: "c", Tool: "bash", IsError: true, Outcome: event.OutcomeRefused, Reason: "policy denies rm"}, toolResultMsg{id: "c", tool: "bash", mark: "✗ refused: policy denies rm", isError: true, refused: true}},
		{"asked", event.ApprovalRequest{CallID: "c", Level: "moderate", Reason: "writes"}, askedMsg{id: "c", level: "moderate", reasons: "writes"}},
		{"approved", event.ApprovalDecision{CallID: "c", Approved: yes}, verdictMsg{id: "c", approved: true}},
		{"error", event.Error{Error: "boom"}, noteMsg{text: "error: boom", isErr: true}},
		{"not shown", event.TurnStart{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fromEvent(tt.e); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("fromEvent = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestTrustQuestion(t *testing.T) {
	tests := []struct {
		key           tea.KeyPressMsg
		answered, yes bool
	}{
		{tea.KeyPressMsg{Code: 'y', Text: "y"}, true, true},
		{tea.KeyPressMsg{Code: 'n', Text: "n"}, true, false},
		{tea.KeyPressMsg{Code: tea.KeyEnter}, true, false},
		{tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.key.String(), func(t *testing.T) {
			tm := &trustModel{project: "/work/proj", noColor: true}
			tm.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			view := ansi.Strip(tm.View().Content)
			if !strings.Contains(view, "Do you trust the files in /work/proj? [y/n]") {
				t.Fatalf("the question is not the spec's:\n%s", view)
			}
			_, cmd := tm.Update(tt.key)
			if cmd == nil {
				t.Fatal("the answer did not end the question")
			}
			if tm.answered != tt.answered || tm.yes != tt.yes {
				t.Errorf("answered %v yes %v", tm.answered, tm.yes)
			}
		})
	}
}

func TestSignals(t *testing.T) {
	t.Run("SIGTERM ends the session", func(t *testing.T) {
		m, f := busyModel(t)
		if !run(m, signalMsg{sig: syscall.SIGTERM}) || m.end.reason != "SIGTERM" || m.end.sig != syscall.SIGTERM {
			t.Fatalf("end %+v", m.end)
		}
		if f.cancelled != 1 {
			t.Error("the turn was not cancelled")
		}
	})
	t.Run("SIGINT is a Ctrl+C", func(t *testing.T) {
		m, f := busyModel(t)
		if run(m, signalMsg{sig: syscall.SIGINT}) {
			t.Fatal("one SIGINT quit")
		}
		if f.cancelled != 1 {
			t.Error("the turn was not cancelled")
		}
	})
}

func TestApproveWithoutScreen(t *testing.T) {
	u := &ui{}
	a, err := u.approve(context.Background(), gate.Request{Tool: "bash", Subject: "ls"})
	if err != nil || a.Allow {
		t.Fatalf("answer %+v, %v; want a no", a, err)
	}
}
