package judge

import "strings"

// Arg is one word of a simple command with what can be known about it
// before the shell runs: its value when no expansion is involved, and how
// it could change when one is.
type Arg struct {
	Text    string // as written
	Val     string // value after quote removal; exact when known
	Known   bool   // no expansion: val is what the program receives
	Quoted  bool   // some part is quoted
	Escaped bool   // an unquoted backslash escape
	ANSIC   bool   // $'...'
	Glob    bool   // unquoted *, ? or [, or an extended glob
	Brace   bool   // unquoted brace expansion
	Split   bool   // unquoted expansion: may turn into several words, flags included
	Lead    bool   // the first character is only known at run time
	Subst   bool   // holds a command or process substitution
	Stdin   bool   // stands for the arguments xargs reads from standard input
	Home    bool   // val starts with the home directory ("~" or $HOME)
	Parts   int    // number of word parts
}

// FlagUnknown reports whether the word might be, or turn into, an option
// the classifier has not seen.
func (a Arg) FlagUnknown() bool {
	return a.Stdin || (!a.Known && (a.Split || a.Lead))
}

// StdinArg stands for words xargs appends from its input.
var StdinArg = Arg{Text: "{stdin}", Val: "", Stdin: true, Split: true, Lead: true}

// LiteralArg makes an arg out of text already unquoted (a split string).
func LiteralArg(s string) Arg {
	return Arg{Text: s, Val: s, Known: true, Parts: 1}
}

// Normalise joins words as a policy should see them: unquoted where the
// value is known, as written where it is not, one space apart.
func Normalise(args []Arg) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a.Known {
			b.WriteString(a.Val)
		} else {
			b.WriteString(a.Text)
		}
	}
	return b.String()
}

// SubscriptRuns reports whether a literal word is a variable name with a
// subscript that holds a command substitution.
func (a Arg) SubscriptRuns() bool {
	if !a.Known {
		return false
	}
	i := strings.IndexByte(a.Val, '[')
	return i > 0 && (strings.Contains(a.Val[i:], "$(") || strings.Contains(a.Val[i:], "`"))
}

// LitPart is one part of a word for NoteSpanning: the text of an
// unquoted literal (Lit true), or anything else (quotes, expansions).
type LitPart struct {
	Text string
	Lit  bool
}

// NoteSpanning catches a bracket or brace that opens in one literal part
// of a word and closes in a later one, with quotes between: bash still
// reads .[e'x']nv as a glob and .{'e',}nv as a brace expansion (both
// give .env), where each part alone looks like plain text. A bracket
// makes the word a glob (its value, quotes removed, is the pattern); a
// brace makes it unknown, as the expansion is not worked out.
func (a *Arg) NoteSpanning(parts []LitPart) {
	bracket, brace := -1, -1 // the part where one opened
	for i, p := range parts {
		if !p.Lit {
			continue
		}
		for j := 0; j < len(p.Text); j++ {
			switch p.Text[j] {
			case '\\':
				j++
			case '[':
				bracket = i
			case '{':
				brace = i
			case ']':
				a.Glob = a.Glob || bracket >= 0 && bracket < i
			case '}':
				if brace >= 0 && brace < i {
					a.Known, a.Split = false, true
				}
			}
		}
	}
}
