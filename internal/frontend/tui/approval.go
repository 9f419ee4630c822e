package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
)

// askMsg is a question of the gate's, with where its answer goes.
type askMsg struct {
	req   gate.Request
	reply chan<- gate.Answer
	// ctx ends when the gate stops waiting (the approval timeout, a
	// cancelled turn); the dialog then closes unanswered.
	ctx context.Context
}

// askGoneMsg closes a dialog whose question nobody waits for any more.
type askGoneMsg struct{ reply chan<- gate.Answer }

// dialog is the approval question on screen. While it is open, every
// key goes to it and nothing else can be typed into.
type dialog struct {
	ask     askMsg
	sandbox string // how commands are confined, as the session says
	// top is the first line of the question shown when it is taller
	// than the screen allows (↑/↓, PgUp/PgDn move it).
	top int
	// reason is what the person types after r: a no with a reason for
	// the model; typing says a reason is being written.
	reason strings.Builder
	typing bool
}

// scopeKey is one answer the dialog offers.
type scopeKey struct {
	key   string
	label string
	scope approval.Scope
	allow bool
}

var (
	allScopes = []scopeKey{
		{"y", "[y]once", approval.ScopeOnce, true},
		{"s", "[s]ession", approval.ScopeSession, true},
		{"p", "[p]roject 30d", approval.ScopeProject, true},
		{"a", "[a]lways 30d", approval.ScopeAlways, true},
		{"n", "[n]o", "", false},
	}
	// A dangerous line is asked about every time: once or no.
	dangerousScopes = []scopeKey{allScopes[0], allScopes[4]}
)

// dangerous says the verdict allows no remembered answer: dangerous, or
// a level the dialog does not know.
func dangerous(l shell.Level) bool { return l >= shell.Dangerous || l < shell.Safe }

func (d *dialog) scopes() []scopeKey {
	if dangerous(d.ask.req.Level) {
		return dangerousScopes
	}
	return allScopes
}

// answer reads a key; ok is false for a key that is no answer. r
// starts a reason for a no, which Enter sends and Esc drops.
func (d *dialog) answer(key, text string) (gate.Answer, bool) {
	if d.typing {
		return d.typeReason(key, text)
	}
	switch key {
	case "esc":
		return gate.Answer{Reason: "denied"}, true
	case "r", "R":
		d.typing = true
		return gate.Answer{}, false
	case "up":
		d.top = max(0, d.top-1)
		return gate.Answer{}, false
	case "down":
		d.top++
		return gate.Answer{}, false
	case "pgup":
		d.top = max(0, d.top-5)
		return gate.Answer{}, false
	case "pgdown":
		d.top += 5
		return gate.Answer{}, false
	}
	for _, s := range d.scopes() {
		if strings.EqualFold(key, s.key) {
			if !s.allow {
				return gate.Answer{Reason: "denied"}, true
			}
			return gate.Answer{Allow: true, Scope: s.scope}, true
		}
	}
	return gate.Answer{}, false
}

// maxReason bounds the reason typed with a no, in runes.
const maxReason = 500

func (d *dialog) typeReason(key, text string) (gate.Answer, bool) {
	switch key {
	case "enter":
		return gate.Answer{Reason: "denied", Note: strings.TrimSpace(d.reason.String())}, true
	case "esc":
		d.typing = false
		d.reason.Reset()
	case "backspace":
		r := []rune(d.reason.String())
		if len(r) > 0 {
			d.reason.Reset()
			d.reason.WriteString(string(r[:len(r)-1]))
		}
	default:
		if text != "" && len([]rune(d.reason.String())) < maxReason {
			d.reason.WriteString(strings.ReplaceAll(render.Clean(text), "\n", " "))
		}
	}
	return gate.Answer{}, false
}

// render draws the dialog: the exact line with its control characters
// shown as escapes, the part asked about, the level and reasons, what a
// remembered answer covers, the sandbox, and the answers allowed.
func (d *dialog) render(width, height int, st *styles) []string {
	r := d.ask.req
	title := "Approval needed: " + approval.Printable(orDefault(r.Tool, "a tool"))
	head := st.dialog.Render(render.Cut("━━ "+title+" "+strings.Repeat("━", max(0, width-len([]rune(title))-4)), width))
	out := d.body(width, st)
	foot := d.keys(st)
	// Taller than the screen: the question scrolls, and says so.
	if room := max(3, height-2); len(out) > room {
		d.top = min(d.top, len(out)-room+1)
		shown := out[d.top : d.top+room-1]
		more := fmt.Sprintf("  ↑↓ %d of %d lines shown; the rest with ↑/↓, PgUp/PgDn", room-1, len(out))
		out = append(append([]string{}, shown...), st.warn.Render(render.Cut(more, width)))
	}
	return append(append([]string{head}, out...), foot)
}

// keys is the dialog's last line: the answers the gate allows, or the
// reason being typed.
func (d *dialog) keys(st *styles) string {
	if d.typing {
		return "  " + st.dialogKey.Render("no, because: ") + d.reason.String() + "█" + st.faint.Render("  (enter sends · esc back)")
	}
	var keys []string
	for _, s := range d.scopes() {
		keys = append(keys, st.dialogKey.Render(s.label))
	}
	return "  " + strings.Join(keys, " ") + st.faint.Render("  (esc: no · r: no, with a reason)")
}

// body is the question's fields, one labelled line each (a long value
// wraps), and a file tool's preview.
func (d *dialog) body(width int, st *styles) []string {
	r := d.ask.req
	var out []string
	field := func(label, value string) {
		lead := "  " + label + strings.Repeat(" ", max(1, 10-len(label)))
		for i, l := range render.Wrap(value, max(10, width-len(lead))) {
			if i == 0 {
				out = append(out, st.faint.Render(lead)+l)
			} else {
				out = append(out, strings.Repeat(" ", len(lead))+l)
			}
		}
	}
	field("line:", approval.Printable(r.Subject))
	if p := strings.TrimSpace(r.Part); p != "" && p != strings.TrimSpace(r.Subject) {
		field("command:", approval.Printable(p))
	}
	risk := r.Level.String()
	if len(r.Reasons) > 0 {
		risk += " (" + approval.Printable(strings.Join(r.Reasons, "; ")) + ")"
	}
	if dangerous(r.Level) {
		risk = st.danger.Render(risk)
	}
	field("risk:", risk)
	if r.Pattern != "" {
		field("covers:", approval.Printable(r.Pattern))
	}
	field("sandbox:", d.profile())
	if r.Preview != "" {
		lines := strings.Split(strings.TrimRight(render.Clean(r.Preview), "\n"), "\n")
		if len(lines) > 8 {
			lines = append(lines[:8:8], "…")
		}
		for _, l := range lines {
			out = append(out, "    "+render.Cut(l, max(1, width-4)))
		}
	}
	return out
}

// profile says where the call will run if allowed.
func (d *dialog) profile() string {
	if d.ask.req.Class != tool.Command {
		return "file tools stay inside the workspace; protected paths are refused"
	}
	switch note := orDefault(d.sandbox, "unknown"); note {
	case "disabled", "unavailable", "unknown":
		return "none: commands run unconfined (the sandbox is " + note + ")"
	default:
		return "the approved profile (" + note + "): writes to the workspace and temp folders only, network as sandbox.allowNetwork says"
	}
}

func orDefault(s, d string) string {
	if strings.TrimSpace(s) == "" {
		return d
	}
	return s
}

// openDialog shows a question; the input is blocked until it is
// answered, and the dialog closes by itself once the gate stops
// waiting.
func (m *Model) openDialog(a askMsg) tea.Cmd {
	m.dialogs = append(m.dialogs, &dialog{ask: a, sandbox: m.sandbox})
	m.input.Blur()
	m.compl = completion{}
	m.scroll = 0
	ctx, reply := a.ctx, a.reply
	return func() tea.Msg {
		<-ctx.Done()
		return askGoneMsg{reply: reply}
	}
}

// answerDialog answers the oldest open question with a key; other keys
// do nothing.
func (m *Model) answerDialog(key, text string) {
	d := m.dialogs[0]
	ans, ok := d.answer(key, text)
	if !ok {
		return
	}
	select {
	case d.ask.reply <- ans:
	default:
	}
	m.closeDialog(d.ask.reply)
}

// closeDialog takes the question that answers go to reply off screen.
func (m *Model) closeDialog(reply chan<- gate.Answer) {
	for i, d := range m.dialogs {
		if d.ask.reply == reply {
			m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
			break
		}
	}
	if len(m.dialogs) == 0 {
		m.input.Focus()
	}
	m.layout()
}

// denyDialogs says no to every open question.
func (m *Model) denyDialogs() {
	for _, d := range m.dialogs {
		select {
		case d.ask.reply <- gate.Answer{Reason: "cancelled"}:
		default:
		}
	}
	m.dialogs = nil
	m.input.Focus()
}
