package cli

import (
	"fmt"
	"io"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/termtext"
)

// What the model writes and what tools return reach a terminal only
// through package termtext: plain colours stay, every other control
// sequence (OSC clipboard and title, cursor movement, a carriage return
// that overwrites, the hidden attribute) goes. wisp's own text is
// written as it is, after the filtered text has been settled (styles
// reset, an open line ended), so that a question is never shown in a
// state the model left behind.

// termLine squeezes model or tool text onto one line of at most n
// characters and makes it safe for a terminal.
func termLine(s string, n int) string { return termtext.Clean(oneLine(s, n)) }

// progressLines renders the events a person wants to see on stderr while
// print mode works: one line per tool call, refusals, retries and errors.
func progressLines(w io.Writer) event.Sink {
	return func(e event.Event) {
		switch e.Type {
		case event.ToolCall:
			fmt.Fprintf(w, "• %s %s\n", termLine(e.Tool, 80), termLine(string(e.Args), 160))
		case event.ToolResult:
			if e.IsError {
				fmt.Fprintf(w, "  ✗ %s\n", termLine(e.Result, 200))
			}
		case event.Retry:
			fmt.Fprintf(w, "wisp: %s; retry %d in %.1fs\n", termLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
		case event.Error:
			fmt.Fprintf(w, "wisp: error: %s\n", termtext.Clean(e.Error))
		}
	}
}

// writeAnswer puts print mode's final answer on stdout. On a terminal it
// is filtered and leaves no style behind; into a pipe or a file it is
// data, written byte for byte.
func writeAnswer(w io.Writer, tty bool, text string) {
	if !tty {
		fmt.Fprintln(w, text)
		return
	}
	tw := termtext.NewWriter(w)
	_, _ = tw.WriteString(text + "\n")
	_ = tw.Settle()
}

// screen is the interactive terminal: streamed model text and tool lines
// go through one filter, whose state (an open line, a colour in force)
// is settled before wisp writes text of its own.
type screen struct {
	raw  io.Writer
	text *termtext.Writer
	tty  bool
}

func newScreen(w io.Writer, tty bool) *screen {
	return &screen{raw: w, text: termtext.NewWriter(w), tty: tty}
}

// stream writes a piece of streamed model text; a sequence cut between
// two pieces is filtered whole.
func (s *screen) stream(delta string) { _, _ = s.text.WriteString(delta) }

// line writes one line of tool or model text on a line of its own.
func (s *screen) line(prefix, text string) {
	s.endLine()
	_, _ = s.text.WriteString(prefix + text + "\n")
}

// endLine drops a sequence left unfinished and ends an open line.
func (s *screen) endLine() {
	_ = s.text.Flush()
	if s.text.MidLine() {
		_, _ = s.text.WriteString("\n")
	}
}

// settle brings the terminal back to a plain state on a fresh line before
// wisp writes its own text (the prompt, an approval question). On a
// terminal the reset is written even when no style is known to be on.
func (s *screen) settle() {
	styled := s.text.Styled()
	_ = s.text.Settle()
	if s.tty && !styled {
		_, _ = io.WriteString(s.raw, termtext.Reset)
	}
}

// lineFrontend renders events in the interactive line mode: streamed text
// and tool lines on the screen, retries and errors on errw.
func lineFrontend(scr *screen, errw io.Writer) event.Sink {
	return func(e event.Event) {
		switch e.Type {
		case event.MessageDelta:
			scr.stream(e.Delta)
		case event.ToolCall:
			scr.line("• "+termLine(e.Tool, 80)+" ", termLine(string(e.Args), 160))
		case event.ToolResult:
			if e.IsError {
				scr.line("  ✗ ", termLine(e.Result, 200))
			} else {
				scr.line("  ↳ ", termtext.Clean(resultSummary(e.Result)))
			}
		case event.Retry:
			fmt.Fprintf(errw, "wisp: %s; retry %d in %.1fs\n", termLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
		case event.Error:
			fmt.Fprintf(errw, "wisp: error: %s\n", termtext.Clean(e.Error))
		}
	}
}
