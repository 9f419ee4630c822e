// Package frontend renders the agent's one event stream for a person or a
// program: print mode's progress lines and answer, the interactive line
// mode's screen, and --mode json's JSON lines. A frontend only renders
// events and writes text; it never runs a turn, decides an approval or
// touches the transcript (internal/cli wires those).
//
// What the model writes and what tools return reach a terminal only
// through package termtext: plain colours stay, every other control
// sequence (OSC clipboard and title, cursor movement, a carriage return
// that overwrites, the hidden attribute) goes. wisp's own text is
// written as it is, after the filtered text has been settled (styles
// reset, an open line ended), so that a question is never shown in a
// state the model left behind.
package frontend

import (
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/termtext"
)

// TermLine squeezes model or tool text onto one line of at most n
// characters and makes it safe for a terminal.
func TermLine(s string, n int) string { return termtext.Clean(OneLine(s, n)) }

// Progress renders the events a person wants to see on stderr while
// print mode works: one line per tool call, refusals, retries and errors.
func Progress(w io.Writer) event.Sink {
	return func(e event.Event) {
		switch e.Type {
		case event.ToolCall:
			fmt.Fprintf(w, "• %s %s\n", TermLine(e.Tool, 80), TermLine(string(e.Args), 160))
		case event.ToolResult:
			if e.IsError {
				fmt.Fprintf(w, "  ✗ %s\n", TermLine(e.Result, 200))
			}
		case event.Retry:
			fmt.Fprintf(w, "wisp: %s; retry %d in %.1fs\n", TermLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
		case event.Error:
			fmt.Fprintf(w, "wisp: error: %s\n", termtext.Clean(e.Error))
		}
	}
}

// WriteAnswer puts print mode's final answer on stdout. On a terminal it
// is filtered and leaves no style behind; into a pipe or a file it is
// data, written byte for byte.
func WriteAnswer(w io.Writer, tty bool, text string) {
	if !tty {
		fmt.Fprintln(w, text)
		return
	}
	tw := termtext.NewWriter(w)
	_, _ = tw.WriteString(text + "\n")
	_ = tw.Settle()
}

// Screen is the interactive terminal: streamed model text and tool lines
// go through one filter, whose state (an open line, a colour in force)
// is settled before wisp writes text of its own.
type Screen struct {
	raw  io.Writer
	text *termtext.Writer
	tty  bool
}

// NewScreen starts a screen on w; tty says w is a terminal.
func NewScreen(w io.Writer, tty bool) *Screen {
	return &Screen{raw: w, text: termtext.NewWriter(w), tty: tty}
}

// Stream writes a piece of streamed model text; a sequence cut between
// two pieces is filtered whole.
func (s *Screen) Stream(delta string) { _, _ = s.text.WriteString(delta) }

// Line writes one line of tool or model text on a line of its own.
func (s *Screen) Line(prefix, text string) {
	s.EndLine()
	_, _ = s.text.WriteString(prefix + text + "\n")
}

// EndLine drops a sequence left unfinished and ends an open line.
func (s *Screen) EndLine() {
	_ = s.text.Flush()
	if s.text.MidLine() {
		_, _ = s.text.WriteString("\n")
	}
}

// Settle brings the terminal back to a plain state on a fresh line before
// wisp writes its own text (the prompt, an approval question). On a
// terminal the reset is written even when no style is known to be on.
func (s *Screen) Settle() {
	styled := s.text.Styled()
	_ = s.text.Settle()
	if s.tty && !styled {
		_, _ = io.WriteString(s.raw, termtext.Reset)
	}
}

// LineMode renders events in the interactive line mode: streamed text
// and tool lines on the screen, retries and errors on errw.
func LineMode(scr *Screen, errw io.Writer) event.Sink {
	return func(e event.Event) {
		switch e.Type {
		case event.MessageDelta:
			scr.Stream(e.Delta)
		case event.ToolCall:
			scr.Line("• "+TermLine(e.Tool, 80)+" ", TermLine(string(e.Args), 160))
		case event.ToolResult:
			if e.IsError {
				scr.Line("  ✗ ", TermLine(e.Result, 200))
			} else {
				scr.Line("  ↳ ", termtext.Clean(resultSummary(e.Result)))
			}
		case event.Retry:
			fmt.Fprintf(errw, "wisp: %s; retry %d in %.1fs\n", TermLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
		case event.Error:
			fmt.Fprintf(errw, "wisp: error: %s\n", termtext.Clean(e.Error))
		}
	}
}

// OneLine squeezes text onto one line of at most n runes.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// resultSummary is one line about a tool result for the person watching:
// its first line and how long it is. The model gets the whole result.
func resultSummary(r string) string {
	r = strings.TrimRight(r, "\n")
	if r == "" {
		return "(empty)"
	}
	lines := strings.Count(r, "\n") + 1
	head, _, _ := strings.Cut(r, "\n")
	if lines == 1 {
		return OneLine(head, 100)
	}
	return fmt.Sprintf("%s … (%d lines)", OneLine(head, 80), lines)
}
