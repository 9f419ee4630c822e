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
			sink(event.Event{Type: event.ToolCall, Tool: "bash" + h.text, Args: args})
			sink(event.Event{Type: event.ToolResult, Tool: "bash", Result: h.text, IsError: true})
			sink(event.Event{Type: event.Retry, Error: h.text, Attempt: 1})
			sink(event.Event{Type: event.Error, Error: h.text})
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
				sink(event.Event{Type: event.MessageDelta, Delta: h.text[i:min(i+3, len(h.text))]})
			}
			args, _ := json.Marshal(map[string]string{"command": h.text})
			sink(event.Event{Type: event.ToolCall, Tool: "bash", Args: args})
			sink(event.Event{Type: event.ToolResult, Tool: "bash", Result: h.text})
			sink(event.Event{Type: event.ToolResult, Tool: "bash", Result: h.text, IsError: true})
			if out := b.String(); strings.Contains(out, h.banned) {
				t.Errorf("the terminal got %q:\n%q", h.banned, out)
			}
		})
	}
}
