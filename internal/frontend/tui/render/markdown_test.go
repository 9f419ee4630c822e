package render

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// plain is the look with NO_COLOR: bold, faint and italic, no colour.
func plain() Styles {
	n := lipgloss.NewStyle()
	return Styles{Heading: n.Bold(true), Bold: n.Bold(true), Italic: n.Italic(true), Code: n, CodeBlock: n,
		Quote: n.Faint(true), Faint: n.Faint(true), Add: n, Del: n, Hunk: n.Faint(true)}
}

func TestRenderMarkdown(t *testing.T) {
	st := plain()
	tests := []struct {
		name, md string
		want     []string // lines, escapes stripped
	}{
		{"heading and paragraph", "# Title\n\nSome *text*.", []string{"Title", "", "Some text."}},
		{"lists", "- one\n* two\n3. three", []string{"• one", "• two", "3. three"}},
		{"code block", "```go\nx := 1 // one\n```", []string{"┌─ go", "│ x := 1 // one", "└─"}},
		{"quote and rule", "> said\n---", []string{"▎ said", strings.Repeat("─", 40)}},
		{"link and inline code", "see [docs](https://x.dev) and `go test`", []string{"see docs (https://x.dev) and go test"}},
		{"unclosed marks stay", "a * b and `c", []string{"a * b and `c"}},
		{"wrapped", "word word word word", []string{"word word", "word word"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			width := 80
			if tt.name == "wrapped" {
				width = 10
			}
			var got []string
			for _, l := range Markdown(tt.md, width, &st) {
				got = append(got, ansi.Strip(l))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestDiffLines(t *testing.T) {
	st := plain()
	got := Diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n", &st)
	var plain []string
	for _, l := range got {
		plain = append(plain, ansi.Strip(l))
	}
	want := []string{"  ⋯", "  b", "  c", "- d", "+ D", "  e", "  f", "  ⋯"}
	if strings.Join(plain, "|") != strings.Join(want, "|") {
		t.Errorf("diff %q, want %q", plain, want)
	}
}

// FuzzRenderMarkdown: whatever a model writes, the drawing fits the
// width and carries no escape the text brought.
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range []string{"# h\n- a\n```\ncode\n```", "**b** _i_ `c` [l](u)", "\x1b]52;c;AA\x07x", "> q\n1. n"} {
		f.Add(s, 20)
	}
	st := plain()
	f.Fuzz(func(t *testing.T, md string, width int) {
		width = 8 + (width&0x7f)%120
		for _, l := range Markdown(Clean(md), width, &st) {
			if w := ansi.StringWidth(l); w > width+2 {
				t.Fatalf("a line of %d cells at width %d: %q", w, width, l)
			}
			if strings.Contains(ansi.Strip(l), "\x1b") {
				t.Fatalf("an escape got through: %q", l)
			}
		}
	})
}
