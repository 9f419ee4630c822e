package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/wisp-agent/wisp/internal/termtext"
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
	return st
}

// clean makes text from a model or a tool safe for the screen: every
// escape sequence and control character goes (termtext drops the
// dangerous ones, then the plain colours go too, since the screen draws
// its own), tabs become spaces and a carriage return ends nothing.
func clean(s string) string {
	s = ansi.Strip(termtext.Clean(s))
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteString("    ")
		case isControl(r):
			// dropped: a stray control character moves nothing on screen
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\t'
}

// wrap breaks s to lines of at most width cells, words kept whole where
// they fit.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for line := range strings.SplitSeq(s, "\n") {
		if ansi.StringWidth(line) <= width {
			out = append(out, line)
			continue
		}
		w := ansi.Wrap(line, width, "")
		out = append(out, strings.Split(w, "\n")...)
	}
	return out
}

// fit cuts or pads one line to exactly width cells.
func fit(s string, width int) string {
	w := ansi.StringWidth(s)
	switch {
	case w > width:
		return ansi.Truncate(s, width, "…")
	case w < width:
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// cut shortens one line to at most width cells.
func cut(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
