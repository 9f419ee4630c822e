package line

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host"
)

// Terminal is the line-mode frontend's hold on the terminal: what the
// person types, and the screen model and tool text go through. While a
// turn runs, a line typed is an answer when a question is pending, and a
// steering message (or a /followup) otherwise.
type Terminal struct {
	lines   <-chan string
	answers chan string
	asking  atomic.Bool
	eof     sync.Once
	screen  *frontend.Screen
	// later holds commands typed while a turn ran, in order; the
	// frontend's loop runs them when the turn is done.
	later []string
}

// NewTerminal takes hold of the terminal of sys.
func NewTerminal(sys host.IO) *Terminal {
	return &Terminal{lines: readLines(sys.Stdin), answers: make(chan string, 64), screen: frontend.NewScreen(sys.Stdout, sys.StdoutTTY)}
}

// Approver asks the gate's questions on the terminal; the answers come
// through the turn's reader of what is typed (interactive.go).
func (t *Terminal) Approver(out io.Writer) gate.Approver {
	ask := terminalApprover(t.answers, out, t.screen.Settle)
	return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		t.asking.Store(true)
		defer t.asking.Store(false)
		return ask.Approve(ctx, r)
	})
}

// answer hands a line typed during a turn to the pending question, and
// says whether there was one.
func (t *Terminal) answer(line string) bool {
	if !t.asking.Load() {
		return false
	}
	select {
	case t.answers <- line:
	default: // 64 unread answers: the question is not reading them
	}
	return true
}

// closed ends the questions' input once the person's input ends.
func (t *Terminal) closed() { t.eof.Do(func() { close(t.answers) }) }

// readLines delivers the lines a person types, until stdin closes.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// terminalApprover asks the person at the terminal, one simple command at
// a time, with the remembered-answer scopes. settle runs first, so that
// the question starts on a fresh line with no style of the model's on.
func terminalApprover(lines <-chan string, out io.Writer, settle func()) gate.Approver {
	return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		settle()
		if r.Preview != "" {
			fmt.Fprintf(out, "\n%s\n", printable(r.Preview))
		}
		ans, err := frontend.AskApproval(ctx, lines, out, frontend.ApprovalQuestion{
			Tool: r.Tool, Line: r.Subject, Part: r.Part, Level: r.Level, Reasons: r.Reasons, Pattern: r.Pattern,
		})
		if err != nil {
			return gate.Answer{Reason: err.Error()}, nil
		}
		return gate.Answer{Allow: ans.Allow, Scope: ans.Scope, Reason: ans.Reason, Note: ans.Note}, nil
	})
}

// printable keeps text from a model harmless on a terminal: control
// characters other than newline and tab, and bidirectional overrides,
// are shown as escapes.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// AskTrust asks on the terminal whether the project's files may be read.
func (t *Terminal) AskTrust(ctx context.Context, out io.Writer, project string) (bool, error) {
	return frontend.AskTrust(ctx, t.lines, out, project)
}
