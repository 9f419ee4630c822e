package shell

import (
	"strings"
)

// Text renders a verdict for people: the level and why, then every part
// with its level, program and reasons.
func (v Verdict) Text() string {
	var b strings.Builder
	b.WriteString(v.Level.String())
	b.WriteByte('\n')
	for _, r := range v.Reasons {
		b.WriteString("  - ")
		b.WriteString(r)
		b.WriteByte('\n')
	}
	if len(v.Parts) == 0 {
		return b.String()
	}
	b.WriteString("parts:\n")
	for _, p := range v.Parts {
		b.WriteString("  [")
		b.WriteString(p.Level.String())
		b.WriteString("] ")
		b.WriteString(oneLine(p.Command))
		if p.Program != "" {
			b.WriteString("  (")
			b.WriteString(p.Program)
			if p.Verb != "" {
				b.WriteByte(' ')
				b.WriteString(p.Verb)
			}
			b.WriteByte(')')
		}
		b.WriteByte('\n')
		for _, r := range p.Reasons {
			b.WriteString("      - ")
			b.WriteString(r)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// oneLine keeps a multi-line command (a here-doc, a continued line) on one
// line of output.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") {
		return s
	}
	r := strings.NewReplacer("\\\n", " ", "\n", "; ", "\r", " ", "\t", " ")
	return r.Replace(s)
}
