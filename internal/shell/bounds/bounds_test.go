package bounds

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestTooDeep(t *testing.T) {
	cases := []struct {
		name       string
		src        string
		text, tree bool // refused before parsing, after parsing
	}{
		{"short line", "( (ls) )", false, false},
		{"shallow long line", "ls " + strings.Repeat("a ", 5000), false, false},
		{"parentheses past the bound", strings.Repeat("(", MaxParens+1) + "ls" + strings.Repeat(")", MaxParens+1), true, false},
		{"parentheses at the bound", strings.Repeat("(", MaxParens) + "ls" + strings.Repeat(")", MaxParens), false, false},
		{"balanced pairs do not add up", strings.Repeat("(ls); ", 3000), false, false},
		{"deep blocks", strings.Repeat("{ ", 3000) + "ls; " + strings.Repeat("} ", 3000), false, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := TooDeepText(tc.src) != ""; got != tc.text {
				t.Fatalf("TooDeepText = %v, want %v", got, tc.text)
			}
			if tc.text {
				return
			}
			f, err := syntax.NewParser().Parse(strings.NewReader(tc.src), "")
			if err != nil {
				t.Fatal(err)
			}
			if got := TooDeepTree(f, tc.src) != ""; got != tc.tree {
				t.Fatalf("TooDeepTree = %v, want %v", got, tc.tree)
			}
		})
	}
}

func TestProgramName(t *testing.T) {
	short := "./tool"
	if got := ProgramName(short); got != short {
		t.Errorf("ProgramName(%q) = %q", short, got)
	}
	a, b := ProgramName(strings.Repeat("x", 400)+"1"), ProgramName(strings.Repeat("x", 400)+"2")
	if a == b || len(a) > MaxProgramText+16 {
		t.Errorf("long names: %q and %q", a, b)
	}
}
