package rules

import (
	"strings"
	"testing"
)

// TestLoad checks the built-in table: it parses, and every rule accepts
// its match examples and refuses its not_match examples.
func TestLoad(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	m, nm := tb.Examples()
	if len(m) < 100 || len(nm) < 80 {
		t.Fatalf("only %d match and %d not_match examples", len(m), len(nm))
	}
}

// TestParseRefusesBadRules: a rule whose examples do not hold, or text
// the format does not know, does not load.
func TestParseRefusesBadRules(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"match refused", "program cat\nflags -n\nmatch cat -x f\nnot_match cat -z\n", "not accepted"},
		{"not_match accepted", "program cat\nflags -n\nmatch cat f\nnot_match cat -n\n", "is accepted"},
		{"no examples", "program cat\nflags -n\n", "needs match"},
		{"no not_match", "program cat\nflags -n\nmatch cat\n", "needs not_match"},
		{"unknown keyword", "program cat\nfrobs -n\n", "unknown keyword"},
		{"effect without why", "program cat\nwrites -o\n", "no reason"},
		{"keyword before program", "flags -n\n", "before any program"},
		{"duplicate option", "program cat\nflags -n -n\n", "twice"},
		{"sub without parent", "program git log\n", "style subcommands"},
		{"bad operands", "program cat\noperands many\n", "operand kind"},
		{"unterminated", "program cat\nmatch cat 'x\nnot_match cat -z\n", "unterminated"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.text, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line  string
		want  Effect
		reads string
	}{
		{"cat a b", Read, "a b"},
		{"grep -f pats.txt x.go", Read, "pats.txt x.go"},
		{"grep foo x.go", Read, "x.go"},
		{"grep --exclude-from=ex.txt foo", Read, "ex.txt"},
		{"sort -o out x", Writes, ""},
		{"sort --out=o x", Writes, ""},  // an abbreviation of --output
		{"sort --ch x", Read, "x"},      // --check, not --compress-program
		{"sort --co=sh x", Runs, ""},    // ambiguous, one of them runs
		{"rg --pr cat x", Runs, ""},     // --pre or --pretty: the worst counts
		{"ps eww", Secret, ""},          // the environment of other processes
		{"ps aux", Unknown, ""},         // command lines: never read-only
		{"find . -exec id ;", Runs, ""}, // runs a command
		{"git -c core.pager=id log", Runs, ""},
		{"git log --output=x", Writes, ""},
		{"git push", Unknown, ""},
		{"frob", Unknown, ""},
		{"echo -e --- -n", Read, ""},
		{"head -20 x", Read, "x"},
		{"go version", Runs, ""},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			words, err := Split(tc.line)
			if err != nil {
				t.Fatal(err)
			}
			r := tb.Check(words)
			if got := r.Worst(); got != tc.want || (tc.want == Read) != r.ReadOnly() {
				t.Fatalf("effect %d (read-only %v), want %d: %v", got, r.ReadOnly(), tc.want, r.Findings)
			}
			if tc.want == Read && strings.Join(r.Reads, " ") != tc.reads {
				t.Fatalf("reads %q, want %q", r.Reads, tc.reads)
			}
		})
	}
}

func TestVariable(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]Effect{
		"LC_ALL": Read, "LANG": Read, "TZ": Read, "NO_COLOR": Read, "COLUMNS": Read,
		"PAGER": Runs, "GIT_PAGER": Runs, "GIT_DIR": Runs, "GIT_CONFIG_COUNT": Runs, "TAR_OPTIONS": Runs,
		"LESSOPEN": Runs, "PYTHONPATH": Runs, "LD_PRELOAD": Runs, "BASH_ENV": Runs, "IFS": Runs,
		"PATH": Runs, "BASH_CMDS": Runs, "FOO": Unknown, "LC": Unknown,
	}
	for name, want := range cases {
		if got, why := tb.Variable(name); got != want || why == "" {
			t.Errorf("Variable(%s) = %d %q, want %d", name, got, why, want)
		}
	}
}

// TestAbbreviationIsStable: an abbreviation that several long options
// share is judged the same way every time, whatever order the table's
// map yields them in (sort --fi: --field-separator or --files0-from).
func TestAbbreviationIsStable(t *testing.T) {
	tb, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	first := tb.Check([]string{"sort", "--fi", "v", "x"})
	if first.ReadOnly() {
		t.Fatalf("sort --fi v x is read-only; --fi may be --files0-from")
	}
	for range 200 {
		got := tb.Check([]string{"sort", "--fi", "v", "x"})
		if len(got.Findings) != len(first.Findings) || got.Findings[0] != first.Findings[0] {
			t.Fatalf("sort --fi judged %v, then %v", first.Findings, got.Findings)
		}
	}
}
