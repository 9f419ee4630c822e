package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/wisp-agent/wisp/internal/termtext"
)

// Clean makes text from a model or a tool safe for the screen: every
// escape sequence and control character goes (termtext drops the
// dangerous ones, then the plain colours go too, since the screen draws
// its own), tabs become spaces and a carriage return ends nothing.
func Clean(s string) string {
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

// Wrap breaks s to lines of at most width cells, words kept whole where
// they fit.
func Wrap(s string, width int) []string {
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

// Fit cuts or pads one line to exactly width cells.
func Fit(s string, width int) string {
	w := ansi.StringWidth(s)
	switch {
	case w > width:
		return ansi.Truncate(s, width, "…")
	case w < width:
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// Cut shortens one line to at most width cells.
func Cut(s string, width int) string {
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
