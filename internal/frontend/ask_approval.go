package frontend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/shell"
)

// ApprovalQuestion is what the terminal question shows.
type ApprovalQuestion struct {
	Tool string // the tool asking: bash, write, a custom or MCP tool
	Line string // the whole line (or, for other tools, what they will do)
	Part string // the simple command asked about; shown when it differs from Line
	// Level and Reasons are the classifier's verdict on Part.
	Level   shell.Level
	Reasons []string
	Pattern string // what a remembered answer covers
}

// ApprovalAnswer is a person's answer. Scope is set only when Allow is.
type ApprovalAnswer struct {
	Allow bool
	Scope approval.Scope
	// Reason says why a denial happened (one of the Reason constants);
	// empty for an allow.
	Reason string
	// Note is what the person wrote after their no (`n use rg instead`),
	// for the model to read; empty when they gave no reason.
	Note string
}

// Why a question ended in a denial.
const (
	ReasonDenied      = "denied"       // the person said no (or just pressed Enter)
	ReasonTimeout     = "timeout"      // the context's deadline passed first
	ReasonCancelled   = "cancelled"    // the context was cancelled first (the turn was interrupted)
	ReasonInputClosed = "input closed" // the terminal closed before an answer
)

const (
	choicesAll       = "[y]once [s]ession [p]roject 30d [a]lways 30d [n]o" + noteHint
	choicesDangerous = "[y]once [n]o" + noteHint
	// noteHint says that a no can carry a reason, which the model is told.
	noteHint = " (n REASON tells the model why)"
)

// maxNote bounds the reason a person gives with a no, in runes.
const maxNote = 500

// maxTypeAhead bounds how many stale lines Prompt discards before asking.
const maxTypeAhead = 1024

// AskApproval asks a person on the terminal whether one simple command may run.
// in carries lines typed on the terminal (closed when the terminal is);
// the question goes to out. It shows the tool, the whole line, the part
// when it differs, the risk level and the reasons, and what a remembered
// answer would cover, then reads one answer: y (once), s (session), p
// (project, 30 days), a (always, 30 days), n (no), case-insensitive, whole
// words too. An empty answer is no. A no may be followed by a reason
// (`n use rg instead`, `no, use rg instead`), returned as the Note; anything
// else asks again.
//
// For a dangerous level only once and no are offered, since a dangerous
// approval is never remembered; s, p and a are then refused and asked
// again.
//
// Lines already waiting in in are discarded before the question is shown,
// so type-ahead can never approve a command the person has not seen.
//
// AskApproval returns as soon as ctx is done, with a denial whose reason is
// ReasonTimeout (deadline) or ReasonCancelled; the caller bounds the wait
// with approval.timeoutSeconds. It returns an error only when out cannot be
// written, and the answer is then a denial.
func AskApproval(ctx context.Context, in <-chan string, out io.Writer, req ApprovalQuestion) (ApprovalAnswer, error) {
	if err := ctx.Err(); err != nil {
		return ApprovalAnswer{Reason: ctxReason(err)}, nil
	}
	closed := discardTypeAhead(in)
	dangerous := req.Level >= shell.Dangerous || !(req.Level >= shell.Safe && req.Level <= shell.Dangerous)
	choices := choicesAll
	if dangerous {
		choices = choicesDangerous
	}
	if _, err := io.WriteString(out, renderRequest(req)+"Allow? "+choices+": "); err != nil {
		return ApprovalAnswer{Reason: ReasonDenied}, fmt.Errorf("show approval question: %w", err)
	}
	if closed {
		return ApprovalAnswer{Reason: ReasonInputClosed}, writeEnd(out, "no answer: the terminal input is closed")
	}
	for {
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			r := ctxReason(ctx.Err())
			return ApprovalAnswer{Reason: r}, writeEnd(out, "no answer: "+r)
		case line, ok = <-in:
		}
		if !ok {
			return ApprovalAnswer{Reason: ReasonInputClosed}, writeEnd(out, "no answer: the terminal input is closed")
		}
		// An answer that races the deadline loses: the caller has already
		// been told the question timed out.
		if err := ctx.Err(); err != nil {
			r := ctxReason(err)
			return ApprovalAnswer{Reason: r}, writeEnd(out, "no answer: "+r)
		}
		a, valid := parseAnswer(line)
		if valid && dangerous && a.Allow && a.Scope != approval.ScopeOnce {
			if _, err := io.WriteString(out, "A dangerous command is asked about every time, never remembered. Allow? "+choices+": "); err != nil {
				return ApprovalAnswer{Reason: ReasonDenied}, fmt.Errorf("show approval question: %w", err)
			}
			continue
		}
		if valid {
			return a, nil
		}
		if _, err := io.WriteString(out, "Please answer "+answerHint(dangerous)+". Allow? "+choices+": "); err != nil {
			return ApprovalAnswer{Reason: ReasonDenied}, fmt.Errorf("show approval question: %w", err)
		}
	}
}

func answerHint(dangerous bool) string {
	if dangerous {
		return "y or n"
	}
	return "y, s, p, a or n (or n and a reason)"
}

func writeEnd(out io.Writer, msg string) error {
	if _, err := io.WriteString(out, "\n"+msg+"; denied.\n"); err != nil {
		return fmt.Errorf("show approval question: %w", err)
	}
	return nil
}

func ctxReason(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return ReasonTimeout
	}
	return ReasonCancelled
}

// discardTypeAhead empties in without waiting and reports whether it was
// closed.
func discardTypeAhead(in <-chan string) (closed bool) {
	for range maxTypeAhead {
		select {
		case _, ok := <-in:
			if !ok {
				return true
			}
		default:
			return false
		}
	}
	return false
}

// parseAnswer reads one answer line. valid is false for anything that is
// not an answer, which is asked again.
func parseAnswer(line string) (a ApprovalAnswer, valid bool) {
	if note, ok := denialNote(line); ok {
		return ApprovalAnswer{Reason: ReasonDenied, Note: note}, true
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes", "once":
		return ApprovalAnswer{Allow: true, Scope: approval.ScopeOnce}, true
	case "s", "session":
		return ApprovalAnswer{Allow: true, Scope: approval.ScopeSession}, true
	case "p", "project":
		return ApprovalAnswer{Allow: true, Scope: approval.ScopeProject}, true
	case "a", "always":
		return ApprovalAnswer{Allow: true, Scope: approval.ScopeAlways}, true
	case "", "n", "no":
		return ApprovalAnswer{Reason: ReasonDenied}, true
	}
	return ApprovalAnswer{}, false
}

// denialNote reads a no followed by a reason: the first word is n or no
// (any case), set off by a space or by one of , : ; - and the rest is the
// reason, which may be empty (`no,`). Control characters in the reason
// become spaces, and it is cut to maxNote runes. ok is false for anything
// else, a bare no included.
func denialNote(line string) (note string, ok bool) {
	s := strings.TrimSpace(line)
	end := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",:;-", r) })
	if end < 0 {
		return "", false
	}
	if w := strings.ToLower(s[:end]); w != "n" && w != "no" {
		return "", false
	}
	rest := strings.TrimLeftFunc(s[end:], func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",:;-", r) })
	rest = strings.Join(strings.FieldsFunc(rest, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
	}), " ")
	if r := []rune(rest); len(r) > maxNote {
		rest = string(r[:maxNote-1]) + "…"
	}
	return rest, true
}

// renderRequest lays the request out, one labelled line each.
func renderRequest(req ApprovalQuestion) string {
	var b strings.Builder
	tool := req.Tool
	if tool == "" {
		tool = "a tool"
	}
	fmt.Fprintf(&b, "Approval needed: %s\n", approval.Printable(tool))
	field := func(label, value string) {
		fmt.Fprintf(&b, "  %-9s %s\n", label+":", approval.Printable(value))
	}
	field("line", req.Line)
	if p := strings.TrimSpace(req.Part); p != "" && p != strings.TrimSpace(req.Line) {
		field("command", p)
	}
	risk := req.Level.String()
	if len(req.Reasons) > 0 {
		risk += " (" + strings.Join(req.Reasons, "; ") + ")"
	}
	field("risk", risk)
	if req.Pattern != "" {
		field("covers", req.Pattern)
	}
	return b.String()
}
