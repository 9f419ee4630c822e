package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
)

// maxPendingLines bounds the pending steers and follow-ups shown.
const maxPendingLines = 3

// layout fits the input to the width.
func (m *Model) layout() {
	m.input.SetWidth(max(10, m.width-2))
}

// bottom is what sits under the conversation: the dialog, or the
// separator and the input.
func (m *Model) bottom() []string {
	if len(m.dialogs) > 0 {
		return m.dialogs[0].render(m.width, m.height-2, &m.st)
	}
	sep := m.st.faint.Render(strings.Repeat("─", m.width))
	lines := []string{sep}
	for i, l := range strings.Split(m.input.View(), "\n") {
		lead := "  "
		if i == 0 {
			lead = m.st.userMark.Render("› ")
		}
		lines = append(lines, lead+l)
	}
	return lines
}

// convHeight is how many lines the conversation gets.
func (m *Model) convHeight() int {
	return max(1, m.height-2-len(m.bottom())-min(len(m.pendings), maxPendingLines))
}

// View draws the whole screen, exactly as high as the terminal.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Frame())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	return v
}

// Frame is the screen's text: conversation, completion list, status,
// pending messages, input or dialog, footer.
func (m *Model) Frame() string {
	bottom := m.bottom()
	n := max(1, m.height-2-len(bottom)-min(len(m.pendings), maxPendingLines))
	frame := spinnerFrames[m.frame%len(spinnerFrames)]
	now := m.now()
	conv, total := m.conv.tail(n, m.scroll, m.width, &m.st, m.expanded, frame, now)
	if total >= 0 && m.scroll > max(0, total-n) {
		// Scrolled past the top: stop there.
		m.scroll = max(0, total-n)
		conv, _ = m.conv.tail(n, m.scroll, m.width, &m.st, m.expanded, frame, now)
	}
	lines := make([]string, 0, m.height)
	for range n - len(conv) {
		lines = append(lines, "")
	}
	lines = append(lines, conv...)
	if list := m.completionLines(); len(list) > 0 {
		k := min(len(list), len(lines))
		copy(lines[len(lines)-k:], list[len(list)-k:])
	}
	lines = append(lines, m.statusLine(frame, now))
	for i, p := range m.pendings {
		if i == maxPendingLines {
			break
		}
		what := "steer"
		if p.follow {
			what = "follow-up"
		}
		lines = append(lines, m.st.pending.Render(render.Cut(fmt.Sprintf("  ⋯ %s (pending): %s", what, render.Clean(oneLine(p.text))), m.width)))
	}
	lines = append(lines, bottom...)
	lines = append(lines, m.footer())
	for i := range lines {
		lines[i] = render.Cut(lines[i], m.width)
	}
	if len(lines) > m.height {
		lines = lines[len(lines)-m.height:]
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// completionLines draws the completion list, the chosen item reversed.
func (m *Model) completionLines() []string {
	var out []string
	for i, item := range m.compl.items {
		text := item
		if !m.compl.file {
			for _, c := range commands {
				if c.name == item {
					text = fmt.Sprintf("%-10s %s", c.name, c.help)
				}
			}
		}
		text = render.Fit(" "+render.Clean(text), min(m.width, 60))
		if i == m.compl.sel {
			text = m.st.selected.Render(text)
		}
		out = append(out, text)
	}
	return out
}

// statusLine says what works and for how long, or where the view is.
func (m *Model) statusLine(frame string, now time.Time) string {
	switch {
	case len(m.dialogs) > 0:
		return m.st.dialog.Render("  waiting for your answer")
	case m.busy:
		return m.st.faint.Render(fmt.Sprintf("%s working %s · Enter steers · /followup queues · Esc cancels", frame, since(now.Sub(m.busySince))))
	case m.scroll > 0:
		return m.st.faint.Render(fmt.Sprintf("  ↑ %d lines up · PgDn goes back", m.scroll))
	}
	return ""
}

// footer is the last line: model, session, context use, queue, sandbox.
func (m *Model) footer() string {
	parts := []string{render.Clean(m.model)}
	if m.sessionID != "" {
		parts = append(parts, "session "+shortID(m.sessionID))
	}
	ctx := "ctx " + tokens(m.ctxTokens)
	if m.conf.Window > 0 {
		ctx += fmt.Sprintf(" (%d%%)", m.ctxTokens*100/int64(m.conf.Window))
	}
	parts = append(parts, ctx)
	if q := len(m.pendings); q > 0 {
		parts = append(parts, fmt.Sprintf("queue %d", q))
	}
	if m.sandbox != "" {
		parts = append(parts, "sandbox: "+render.Clean(m.sandbox))
	}
	return m.st.footer.Render(render.Cut(" "+strings.Join(parts, " · "), m.width))
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// tokens is a count as a person reads it: 950, 12.3k, 1.2M.
func tokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
