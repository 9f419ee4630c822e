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
	"sync"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/termtext"
)

// TermLine squeezes model or tool text onto one line of at most n
// characters and makes it safe for a terminal.
func TermLine(s string, n int) string { return termtext.Clean(OneLine(s, n)) }

// Progress renders the events a person wants to see on stderr while
// print mode works: one line per tool call that ends with how the call
// went (see Outcome), refusals, retries and errors.
//
// A call's line is written when the call starts, without its newline, and
// finished with the outcome when the result arrives, so that a long
// command shows what runs while it runs. When another line came between
// (calls that run side by side, a retry), the outcome goes on a line of
// its own, `  ↳ ✓`, naming the call unless its line was the last one
// written. No cursor movement is used: the text reads the same in a pipe.
func Progress(w io.Writer) event.Sink {
	p := &progress{w: w, calls: map[string]string{}, started: map[string]bool{}}
	return p.handle
}

// progress is Progress's state: the calls announced and the line left open.
type progress struct {
	mu sync.Mutex
	w  io.Writer
	// calls holds the line of each announced call by id; a started call's
	// id is also in started.
	calls   map[string]string
	started map[string]bool
	// open is the call whose line awaits its outcome, last the call whose
	// line was written last ("": none).
	open, last string
}

func (p *progress) handle(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case event.ToolCall:
		p.calls[e.CallID] = "• " + TermLine(e.Tool, 80) + " " + TermLine(string(e.Args), 160)
	case event.ToolStart:
		p.endLine()
		fmt.Fprint(p.w, p.line(e.CallID, e.Tool))
		p.started[e.CallID] = true
		p.open, p.last = e.CallID, e.CallID
	case event.ToolResult:
		p.result(e)
	case event.Retry:
		p.endLine()
		fmt.Fprintf(p.w, "wisp: %s; retry %d in %.1fs\n", TermLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
	case event.Error:
		p.endLine()
		fmt.Fprintf(p.w, "wisp: error: %s\n", termtext.Clean(e.Error))
	case event.TurnEnd, event.AgentEnd:
		p.endLine()
	}
}

// line is the call's line as announced, or made up from the event when
// the call was not announced.
func (p *progress) line(callID, tool string) string {
	if l, ok := p.calls[callID]; ok && callID != "" {
		return l
	}
	return "• " + TermLine(tool, 80)
}

// result finishes a call's line with its outcome, or writes the outcome
// on a line of its own when other text came between.
func (p *progress) result(e event.ToolResult) {
	mark := Outcome(e)
	switch {
	case p.open != "" && p.open == e.CallID:
		fmt.Fprintf(p.w, " %s\n", mark)
		p.open = ""
	case !p.started[e.CallID]:
		// Never started (the tool iteration limit): the whole line now.
		p.endLine()
		fmt.Fprintf(p.w, "%s %s\n", p.line(e.CallID, e.Tool), mark)
		p.last = e.CallID
	case p.last == e.CallID:
		p.endLine()
		fmt.Fprintf(p.w, "  ↳ %s\n", mark)
	default:
		p.endLine()
		fmt.Fprintf(p.w, "  ↳ %s %s\n", strings.TrimPrefix(OneLine(p.line(e.CallID, e.Tool), 80), "• "), mark)
		// This line is about another call than the one above it.
		p.last = ""
	}
	delete(p.calls, e.CallID)
	delete(p.started, e.CallID)
}

// endLine ends a call's line left open.
func (p *progress) endLine() {
	if p.open != "" {
		fmt.Fprintln(p.w)
		p.open = ""
	}
}

// Outcome is the mark a person reads at the end of a call's line: ✓ for
// a success, ✗ exit N for a command that exited non-zero, ✗ refused: WHY
// when the gate or the policy refused it, ✗ ERROR for another error and
// – not run (WHY) for a call that never started.
func Outcome(e event.ToolResult) string {
	switch e.Outcome {
	case event.OutcomeOK:
		return "✓"
	case event.OutcomeExit:
		if e.ExitCode != nil {
			return fmt.Sprintf("✗ exit %d", *e.ExitCode)
		}
		return "✗ exit status unknown"
	case event.OutcomeRefused:
		return "✗ refused: " + shortReason(e.Reason)
	case event.OutcomeNotRun:
		return "– not run (" + shortReason(e.Reason) + ")"
	case event.OutcomeError:
		return "✗ " + shortError(e.Reason)
	}
	// An emitter that does not say the outcome: judged by is_error alone.
	if e.IsError {
		first, _, _ := strings.Cut(strings.TrimSpace(e.Result), "\n")
		return "✗ " + shortError(strings.TrimSpace(strings.TrimPrefix(first, "error:")))
	}
	return "✓"
}

// shortError fits an error on the end of a line; an error keeps more of
// its words than a refusal, since they say what to fix.
func shortError(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		s = "error"
	}
	return TermLine(s, 200)
}

// shortReason fits a refusal's reason on the end of a line: a long one
// loses its closing parenthesis (the alias of a flag, say) and is cut at
// 100 characters.
func shortReason(s string) string {
	s = OneLine(s, 1000)
	if i := strings.LastIndex(s, " ("); utf8.RuneCountInString(s) > 80 && i > 0 && strings.HasSuffix(s, ")") {
		s = s[:i]
	}
	if s == "" {
		s = "error"
	}
	return TermLine(s, 100)
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
		switch e := e.(type) {
		case event.AgentStart:
			if e.Queued {
				// A queued prompt runs now: show it as if typed.
				scr.Line("› ", TermLine(e.Message.TextOf(), 200))
			}
		case event.AgentEnd:
			scr.EndLine()
		case event.MessageDelta:
			scr.Stream(e.Delta)
		case event.ToolCall:
			scr.Line("• "+TermLine(e.Tool, 80)+" ", TermLine(string(e.Args), 160))
		case event.ToolResult:
			switch mark := Outcome(e); {
			case e.Outcome == event.OutcomeOK || e.Outcome == event.OutcomeExit:
				scr.Line("  ↳ "+mark+" ", termtext.Clean(resultSummary(e.Result)))
			case e.IsError && e.Outcome == "":
				scr.Line("  ✗ ", TermLine(e.Result, 200))
			default:
				scr.Line("  ↳ ", mark)
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
