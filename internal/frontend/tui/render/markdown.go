package render

import (
	"strings"
	"unicode"
)

// Markdown is drawn by this small renderer rather than by glamour:
// glamour brings chroma's lexers and styles, whose package
// initialisation costs about 10 MB of resident memory in every wisp
// process, print mode included (see docs/tui.md). What a model writes
// in an answer needs headings, lists, quotes, emphasis, inline code,
// links and fenced code blocks, and that is all this draws; code blocks
// get a light highlight of comments, strings and keywords.

// Markdown draws md (already cleaned of escapes) in lines of at most
// width cells.
func Markdown(md string, width int, st *Styles) []string {
	var out []string
	inCode := false
	for line := range strings.SplitSeq(strings.TrimRight(md, "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inCode = !inCode
			if inCode {
				lang := strings.TrimSpace(strings.Trim(trimmed, "`~"))
				out = append(out, st.Faint.Render(Cut("┌─ "+lang, width)))
			} else {
				out = append(out, st.Faint.Render("└─"))
			}
			continue
		}
		if inCode {
			for _, l := range Wrap(line, max(1, width-2)) {
				out = append(out, st.Faint.Render("│ ")+highlight(l, st))
			}
			continue
		}
		out = append(out, markdownLine(line, width, st)...)
	}
	return out
}

// markdownLine draws one line outside a code block.
func markdownLine(line string, width int, st *Styles) []string {
	trimmed := strings.TrimSpace(line)
	indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
	switch {
	case trimmed == "":
		return []string{""}
	case strings.HasPrefix(trimmed, "#"):
		h := strings.TrimSpace(strings.TrimLeft(trimmed, "#"))
		return StyleAll(Wrap(inline(h, st), width), st.Heading)
	case trimmed == "---" || trimmed == "***" || trimmed == "___":
		return []string{st.Faint.Render(strings.Repeat("─", max(1, min(width, 40))))}
	case strings.HasPrefix(trimmed, "> ") || trimmed == ">":
		q := strings.TrimSpace(strings.TrimPrefix(trimmed, ">"))
		return Prefixed(Wrap(inline(q, st), max(1, width-2)), st.Quote.Render("▎ "), "  ")
	}
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if rest, ok := strings.CutPrefix(trimmed, bullet); ok {
			lead := indent + "• "
			return Prefixed(Wrap(inline(rest, st), max(1, width-len(lead))), lead, strings.Repeat(" ", len(lead)))
		}
	}
	if n := numbered(trimmed); n > 0 {
		lead := indent + trimmed[:n]
		rest := strings.TrimSpace(trimmed[n:])
		return Prefixed(Wrap(inline(rest, st), max(1, width-len(lead)-1)), lead+" ", strings.Repeat(" ", len(lead)+1))
	}
	return Wrap(inline(line, st), width)
}

// numbered is the length of a list number and its dot ("12."), or 0.
func numbered(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') && i+1 < len(s) && s[i+1] == ' ' {
		return i + 1
	}
	return 0
}

// Prefixed puts first before the first line and rest before the others.
func Prefixed(lines []string, first, rest string) []string {
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return lines
}

// StyleAll renders every line in s.
func StyleAll(lines []string, s interface{ Render(...string) string }) []string {
	for i := range lines {
		lines[i] = s.Render(lines[i])
	}
	return lines
}

// inline draws emphasis, inline code and links within one line.
func inline(s string, st *Styles) string {
	if !strings.ContainsAny(s, "*_`[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			if end := strings.IndexByte(s[i+1:], '`'); end >= 0 {
				b.WriteString(st.Code.Render(s[i+1 : i+1+end]))
				i += end + 2
				continue
			}
		case strings.HasPrefix(s[i:], "**") || strings.HasPrefix(s[i:], "__"):
			mark := s[i : i+2]
			if end := strings.Index(s[i+2:], mark); end > 0 {
				b.WriteString(st.Bold.Render(s[i+2 : i+2+end]))
				i += end + 4
				continue
			}
		case (s[i] == '*' || s[i] == '_') && i+1 < len(s) && s[i+1] != ' ' && (i == 0 || !isWordByte(s[i-1])):
			if end := strings.IndexByte(s[i+1:], s[i]); end > 0 && s[i+end] != ' ' {
				b.WriteString(st.Italic.Render(s[i+1 : i+1+end]))
				i += end + 2
				continue
			}
		case s[i] == '[':
			if text, url, n, ok := link(s[i:]); ok {
				b.WriteString(st.Bold.Render(text) + st.Faint.Render(" ("+url+")"))
				i += n
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c))
}

// link reads "[text](url)" at the start of s.
func link(s string) (text, url string, n int, ok bool) {
	close := strings.Index(s, "](")
	if close < 1 {
		return "", "", 0, false
	}
	end := strings.IndexByte(s[close+2:], ')')
	if end < 0 {
		return "", "", 0, false
	}
	return s[1:close], s[close+2 : close+2+end], close + 3 + end, true
}

// keywords are the words a code block shows in bold, across the
// languages a model writes most.
var keywords = map[string]bool{
	"func": true, "return": true, "if": true, "else": true, "for": true, "range": true,
	"package": true, "import": true, "var": true, "const": true, "type": true, "struct": true,
	"def": true, "class": true, "let": true, "fn": true, "while": true, "switch": true,
	"case": true, "from": true, "export": true, "function": true, "pub": true, "impl": true,
}

// highlight lights a line of code: a comment faint, strings and
// keywords marked.
func highlight(line string, st *Styles) string {
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "--") {
		return st.Faint.Render(line)
	}
	var b strings.Builder
	word := func(w string) {
		if keywords[w] {
			b.WriteString(st.Bold.Render(w))
		} else {
			b.WriteString(w)
		}
	}
	start := -1
	for i := 0; i < len(line); i++ {
		c := line[i]
		if isWordByte(c) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			word(line[start:i])
			start = -1
		}
		if c == '"' || c == '\'' {
			if end := strings.IndexByte(line[i+1:], c); end >= 0 {
				b.WriteString(st.CodeBlock.Render(line[i : i+end+2]))
				i += end + 1
				continue
			}
		}
		b.WriteByte(c)
	}
	if start >= 0 {
		word(line[start:])
	}
	return b.String()
}
