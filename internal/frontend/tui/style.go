package tui

import (
	"charm.land/lipgloss/v2"

	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
)

// styles are every look the screen uses. With NO_COLOR set they carry
// no colour at all, only bold, faint and reverse, so that the screen
// still reads in black and white.
type styles struct {
	noColor bool

	user, userMark     lipgloss.Style
	assistant          lipgloss.Style
	heading, bold      lipgloss.Style
	italic, code       lipgloss.Style
	codeBlock, quote   lipgloss.Style
	faint, warn, err   lipgloss.Style
	ok, refused        lipgloss.Style
	add, del, hunk     lipgloss.Style
	cardTitle, cardBox lipgloss.Style
	dialog, dialogKey  lipgloss.Style
	danger             lipgloss.Style
	footer, pending    lipgloss.Style
	selected           lipgloss.Style

	// text is the same looks as render draws markdown and diffs with.
	text render.Styles
}

// newStyles builds the look; noColor drops every colour.
func newStyles(noColor bool) styles {
	c := func(s lipgloss.Style, col string) lipgloss.Style {
		if noColor {
			return s
		}
		return s.Foreground(lipgloss.Color(col))
	}
	n := lipgloss.NewStyle()
	st := styles{noColor: noColor}
	st.user = c(n.Bold(true), "6")
	st.userMark = c(n.Bold(true), "6")
	st.assistant = n
	st.heading = c(n.Bold(true), "5")
	st.bold = n.Bold(true)
	st.italic = n.Italic(true)
	st.code = c(n, "3")
	st.codeBlock = c(n, "3")
	st.quote = c(n.Faint(true), "8")
	st.faint = n.Faint(true)
	st.warn = c(n.Bold(true), "3")
	st.err = c(n.Bold(true), "1")
	st.ok = c(n, "2")
	st.refused = c(n.Bold(true), "1")
	st.add = c(n, "2")
	st.del = c(n, "1")
	st.hunk = c(n.Faint(true), "6")
	st.cardTitle = n.Bold(true)
	st.cardBox = c(n, "8")
	st.dialog = c(n.Bold(true), "3")
	st.dialogKey = c(n.Bold(true), "6")
	st.danger = c(n.Bold(true), "1")
	st.footer = n.Faint(true)
	st.pending = c(n.Italic(true), "4")
	st.selected = n.Reverse(true)
	st.text = render.Styles{Heading: st.heading, Bold: st.bold, Italic: st.italic, Code: st.code, CodeBlock: st.codeBlock,
		Quote: st.quote, Faint: st.faint, Add: st.add, Del: st.del, Hunk: st.hunk}
	return st
}
