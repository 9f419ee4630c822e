package frontend

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/event"
)

// hostile is text a model or a tool could produce to act on the terminal
// instead of being shown, each with what must not reach the terminal.
var hostile = []struct {
	name, text, banned string
}{
	{"OSC 52 clipboard", "ok\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b]52"},
	{"OSC 52 with ST", "ok\x1b]52;c;cm0gLXJmIH4=\x1b\\", "\x1b]"},
	{"title set", "\x1b]0;wisp: all tests pass\x07ok", "\x1b]0"},
	{"cursor up and erase", "evil\x1b[1A\x1b[2Kok", "\x1b[1A"},
	{"cursor position", "\x1b[1;1Hok", "\x1b[1;1H"},
	{"carriage return overwrite", "rm -rf ~\rok      ", "\r"},
	{"hidden attribute", "ok\x1b[8m", "\x1b[8m"},
	{"C1 CSI", "ok\u009b2J", "\u009b"},
	{"bell and backspace", "ok\x07\x08", "\x07"},
}

func TestProgressLinesAreClean(t *testing.T) {
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			var b strings.Builder
			sink := Progress(&b)
			args, _ := json.Marshal(map[string]string{"command": h.text})
			sink(event.ToolCall{CallID: "c1", Tool: "bash" + h.text, Args: args})
			sink(event.ToolStart{CallID: "c1", Tool: "bash" + h.text})
			sink(event.ToolResult{CallID: "c1", Tool: "bash", Result: h.text, IsError: true})
			sink(event.ToolResult{CallID: "c2", Tool: "bash", Outcome: event.OutcomeRefused, Reason: h.text, IsError: true})
			sink(event.Retry{Error: h.text, Attempt: 1})
			sink(event.Error{Error: h.text})
			out := b.String()
			if strings.Contains(out, h.banned) {
				t.Errorf("stderr carries %q:\n%q", h.banned, out)
			}
			if strings.Count(out, "\n") != 4 || !strings.Contains(out, "ok") {
				t.Errorf("want four lines showing the text:\n%q", out)
			}
		})
	}
}

func TestAnswerOnStdout(t *testing.T) {
	const answer = "done \x1b]52;c;Zm9v\x07\x1b[31mred\x1b[8m\rx"
	t.Run("to a terminal: filtered, no style left on", func(t *testing.T) {
		var b strings.Builder
		WriteAnswer(&b, true, answer)
		if want := "done \x1b[31mredx\n\x1b[0m"; b.String() != want {
			t.Errorf("got %q, want %q", b.String(), want)
		}
	})
	t.Run("to a pipe: the bytes as they are", func(t *testing.T) {
		var b strings.Builder
		WriteAnswer(&b, false, answer)
		if b.String() != answer+"\n" {
			t.Errorf("got %q, want the answer unchanged", b.String())
		}
	})
}

func TestInteractiveScreenIsClean(t *testing.T) {
	for _, h := range hostile {
		t.Run(h.name, func(t *testing.T) {
			var b strings.Builder
			scr := NewScreen(&b, true)
			sink := LineMode(scr, &b)
			// Streamed in small pieces, so sequences are split.
			for i := 0; i < len(h.text); i += 3 {
				sink(event.MessageDelta{Delta: h.text[i:min(i+3, len(h.text))]})
			}
			args, _ := json.Marshal(map[string]string{"command": h.text})
			sink(event.ToolCall{Tool: "bash", Args: args})
			sink(event.ToolResult{Tool: "bash", Result: h.text})
			sink(event.ToolResult{Tool: "bash", Result: h.text, IsError: true})
			if out := b.String(); strings.Contains(out, h.banned) {
				t.Errorf("the terminal got %q:\n%q", h.banned, out)
			}
		})
	}
}

func code(n int) *int { return &n }

// TestProgressOutcomes: each call's line ends with how it went, on the
// same line when nothing came between, else on a line of its own that
// names the call when another call's line came between.
func TestProgressOutcomes(t *testing.T) {
	call := func(id, cmd string) event.Event {
		return event.ToolCall{CallID: id, Tool: "bash", Args: json.RawMessage(`{"command":"` + cmd + `"}`)}
	}
	start := func(id string) event.Event { return event.ToolStart{CallID: id, Tool: "bash"} }
	result := func(id, outcome string, exit *int, reason string) event.Event {
		return event.ToolResult{CallID: id, Tool: "bash", Outcome: outcome, ExitCode: exit, Reason: reason,
			IsError: outcome != event.OutcomeOK && outcome != event.OutcomeExit}
	}
	tests := []struct {
		name   string
		events []event.Event
		want   string
	}{
		{"success", []event.Event{call("a", "ls"), start("a"), result("a", event.OutcomeOK, code(0), "")},
			"• bash {\"command\":\"ls\"} ✓\n"},
		{"non-zero exit", []event.Event{call("a", "go test"), start("a"), result("a", event.OutcomeExit, code(1), "")},
			"• bash {\"command\":\"go test\"} ✗ exit 1\n"},
		{"refused by policy", []event.Event{call("a", "sudo id"), start("a"), result("a", event.OutcomeRefused, nil, "policy rule privilege-escalation")},
			"• bash {\"command\":\"sudo id\"} ✗ refused: policy rule privilege-escalation\n"},
		{"long refusal loses its parenthesis", []event.Event{call("a", "touch x"), start("a"),
			result("a", event.OutcomeRefused, nil, "not approved: print mode runs mutating and command tools only with --yes (alias --allow-unsafe-tool-execution)")},
			"• bash {\"command\":\"touch x\"} ✗ refused: not approved: print mode runs mutating and command tools only with --yes\n"},
		{"other error", []event.Event{call("a", "sleep 99"), start("a"), result("a", event.OutcomeError, nil, "timed out")},
			"• bash {\"command\":\"sleep 99\"} ✗ timed out\n"},
		{"skipped by the limit", []event.Event{call("a", "ls"), call("b", "pwd"),
			result("a", event.OutcomeNotRun, nil, "limit"), result("b", event.OutcomeNotRun, nil, "limit")},
			"• bash {\"command\":\"ls\"} – not run (limit)\n• bash {\"command\":\"pwd\"} – not run (limit)\n"},
		{"an error between", []event.Event{call("a", "ls"), start("a"), event.Error{Error: "boom"}, result("a", event.OutcomeOK, code(0), "")},
			"• bash {\"command\":\"ls\"}\nwisp: error: boom\n  ↳ ✓\n"},
		{"calls side by side", []event.Event{call("a", "ls"), call("b", "pwd"), start("a"), start("b"),
			result("a", event.OutcomeOK, code(0), ""), result("b", event.OutcomeExit, code(2), "")},
			"• bash {\"command\":\"ls\"}\n• bash {\"command\":\"pwd\"}\n  ↳ bash {\"command\":\"ls\"} ✓\n  ↳ bash {\"command\":\"pwd\"} ✗ exit 2\n"},
		{"side by side, each finishing after the other started", []event.Event{call("a", "ls"), call("b", "pwd"), start("a"), start("b"),
			result("a", event.OutcomeOK, code(0), ""), result("b", event.OutcomeOK, code(0), "")},
			"• bash {\"command\":\"ls\"}\n• bash {\"command\":\"pwd\"}\n  ↳ bash {\"command\":\"ls\"} ✓\n  ↳ bash {\"command\":\"pwd\"} ✓\n"},
		{"an open line ends with the turn", []event.Event{call("a", "ls"), start("a"), event.TurnEnd{}},
			"• bash {\"command\":\"ls\"}\n"},
		{"no outcome given: is_error decides", []event.Event{call("a", "x"), start("a"),
			event.ToolResult{CallID: "a", Result: "error: bad arguments\nmore", IsError: true}},
			"• bash {\"command\":\"x\"} ✗ bad arguments\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			sink := Progress(&b)
			for _, e := range tt.events {
				sink(e)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestLineModeOutcomes(t *testing.T) {
	tests := []struct {
		name string
		e    event.Event
		want string
	}{
		{"ok with the output's first line", event.ToolResult{Outcome: event.OutcomeOK, ExitCode: code(0), Result: "exit_code: 0\nhello\n"}, "  ↳ ✓ exit_code: 0 … (2 lines)\n"},
		{"exit", event.ToolResult{Outcome: event.OutcomeExit, ExitCode: code(1), Result: "exit_code: 1\n"}, "  ↳ ✗ exit 1 exit_code: 1\n"},
		{"refused", event.ToolResult{Outcome: event.OutcomeRefused, Reason: "the user denied this call: use rg", IsError: true}, "  ↳ ✗ refused: the user denied this call: use rg\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			LineMode(NewScreen(&b, false), &b)(tt.e)
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}
