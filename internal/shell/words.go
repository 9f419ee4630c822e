package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"mvdan.cc/sh/v3/syntax"
)

// decodeWord works out what the shell will make of w.
func decodeWord(w *syntax.Word, src string) judge.Arg {
	a := judge.Arg{Known: true, Parts: len(w.Parts), Text: span(src, w.Pos(), w.End())}
	if len(w.Parts) == 1 {
		// The common case, a plain word, needs no copy.
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			a.Val = l.Value
			a.Home = l.Value == "~" || strings.HasPrefix(l.Value, "~/")
			if strings.ContainsAny(l.Value, "*?[{") {
				unquoteLit(l.Value, nil, &a)
			}
			return a
		}
	}
	var b strings.Builder
	for i, part := range w.Parts {
		first := b.Len() == 0 && !a.Lead
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				a.Home = p.Value == "~" || strings.HasPrefix(p.Value, "~/")
			}
			unquoteLit(p.Value, &b, &a)
		case *syntax.SglQuoted:
			decodeSingle(p, first, &b, &a)
		case *syntax.DblQuoted:
			decodeDouble(p, &b, &a)
		case *syntax.ParamExp:
			if !expandKnownParam(p, first, &b, &a) {
				a.Known = false
				a.Split = true
				a.Lead = a.Lead || first
				a.Subst = a.Subst || hasSubst(p)
			}
		case *syntax.CmdSubst, *syntax.ArithmExp:
			a.Known = false
			a.Split = true
			a.Lead = a.Lead || first
			a.Subst = a.Subst || hasSubst(p)
		case *syntax.ProcSubst:
			a.Known = false
			a.Lead = a.Lead || first
			a.Subst = true
		case *syntax.ExtGlob:
			a.Glob = true
			b.WriteString(span(src, p.Pos(), p.End()))
		default:
			a.Known = false
			a.Split = true
			a.Lead = a.Lead || first
		}
	}
	a.Val = b.String()
	if len(w.Parts) > 1 {
		lits := make([]judge.LitPart, len(w.Parts))
		for i, p := range w.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				lits[i] = judge.LitPart{Text: l.Value, Lit: true}
			}
		}
		a.NoteSpanning(lits)
	}
	return a
}

// decodeSingle adds a single-quoted part ('x' or $'x') to the word.
func decodeSingle(p *syntax.SglQuoted, first bool, b *strings.Builder, a *judge.Arg) {
	a.Quoted = true
	if !p.Dollar {
		b.WriteString(p.Value)
		return
	}
	a.ANSIC = true
	s, ok := decodeANSIC(p.Value)
	if !ok {
		a.Known = false
		a.Lead = a.Lead || first
	}
	b.WriteString(s)
}

// decodeDouble adds a double-quoted part to the word: its expansions are
// not split, but still unknown unless they are the few fixed ones.
func decodeDouble(p *syntax.DblQuoted, b *strings.Builder, a *judge.Arg) {
	a.Quoted = true
	for _, q := range p.Parts {
		qfirst := b.Len() == 0 && !a.Lead
		switch q := q.(type) {
		case *syntax.Lit:
			unquoteDouble(q.Value, b)
		case *syntax.ParamExp:
			if !expandKnownParam(q, qfirst, b, a) {
				a.Known = false
				a.Lead = a.Lead || qfirst
				a.Subst = a.Subst || hasSubst(q)
			}
		default:
			a.Known = false
			a.Lead = a.Lead || qfirst
			a.Subst = a.Subst || hasSubst(q)
		}
	}
}

// expandKnownParam writes the value of the few parameters whose meaning is
// fixed for the classifier: $HOME at the start of a word is the home
// directory and $PWD the current directory.
func expandKnownParam(p *syntax.ParamExp, first bool, b *strings.Builder, a *judge.Arg) bool {
	if !first || p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Exp != nil || p.Names != 0 || p.Flags != nil || p.NestedParam != nil {
		return false
	}
	switch p.Param.Value {
	case "HOME":
		b.WriteString("~")
		a.Home = true
		return true
	case "PWD":
		b.WriteString(".")
		return true
	}
	return false
}

// unquoteLit removes the backslashes of an unquoted literal and notes glob
// and brace characters that the shell would expand. b may be nil when
// only the notes are wanted.
func unquoteLit(s string, b *strings.Builder, a *judge.Arg) {
	open := false // after an unescaped '{'
	sep := false
	write := func(c byte) {
		if b != nil {
			b.WriteByte(c)
		}
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' {
			a.Escaped = true
			if i+1 < len(s) {
				i++
				write(s[i])
			} else {
				write(ch)
			}
			continue
		}
		switch ch {
		case '*', '?':
			a.Glob = true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				a.Glob = true
			}
		case '{':
			open, sep = true, false
		case ',':
			if open {
				sep = true
			}
		case '.':
			if open && i+1 < len(s) && s[i+1] == '.' {
				sep = true
			}
		case '}':
			if open && sep {
				a.Brace = true
			}
			open = false
		}
		write(ch)
	}
}

// unquoteDouble removes the backslashes that keep their meaning inside
// double quotes.
func unquoteDouble(s string, b *strings.Builder) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
}

// decodeANSIC decodes the body of a $'...' string as bash does. It reports
// false for a NUL, which truncates the word in bash.
func decodeANSIC(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			} else {
				b.WriteString("\\c")
			}
		case 'x', 'u', 'U':
			max := 2
			if c == 'u' {
				max = 4
			} else if c == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			i = j - 1
			if n == 0 {
				return b.String(), false
			}
			if c == 'x' {
				b.WriteByte(byte(n))
			} else if r := rune(n); utf8.ValidRune(r) {
				b.WriteRune(r)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			i = j - 1
			if n&0xff == 0 {
				return b.String(), false
			}
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// hasSubst reports whether n holds a command or process substitution.
func hasSubst(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}

// span returns the source text between two positions, or "" when they do
// not fit src (nodes made up by the parser's recovery).
func span(src string, from, to syntax.Pos) string {
	a, b := int(from.Offset()), int(to.Offset())
	if a < 0 || b > len(src) || a > b {
		return ""
	}
	return src[a:b]
}
