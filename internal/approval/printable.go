package approval

import (
	"fmt"
	"strings"
	"unicode"
)

// Printable makes text safe to show on a terminal: escape sequences,
// carriage returns, bidirectional overrides and zero-width characters
// could otherwise hide part of a command from the person approving it, so
// each is shown as an escape. A newline is shown as \n and then starts an
// indented line, so that a multi-line script is visibly several lines and
// still reads as one.
func Printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n` + "\n            ")
		case r == '\t':
			b.WriteString("    ")
		case r == unicode.ReplacementChar:
			b.WriteString(`\ufffd`)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			if r <= 0xff {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
