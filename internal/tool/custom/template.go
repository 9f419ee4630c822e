package custom

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// placeholderRE finds {name}. A match right after $ is the shell's ${name}
// and stays shell text.
var placeholderRE = regexp.MustCompile(`\{([a-z][a-z0-9]*(?:_[a-z0-9]+)*)\}`)

// segment is a piece of a template: literal text, or the slot of an
// argument (arg is its index; -1 for text).
type segment struct {
	text string
	arg  int
}

// placeholder is one {name} in a template, at command[start:end].
type placeholder struct {
	name       string
	start, end int
}

func findPlaceholders(command string) []placeholder {
	var out []placeholder
	for _, m := range placeholderRE.FindAllStringSubmatchIndex(command, -1) {
		if m[0] > 0 && command[m[0]-1] == '$' {
			continue
		}
		out = append(out, placeholder{name: command[m[2]:m[3]], start: m[0], end: m[1]})
	}
	return out
}

// compile checks a template against its arguments and splits it into
// segments once, so that a call's substitution is one pass that never
// looks inside a value.
func compile(command string, args []*Argument) ([]segment, error) {
	if strings.ContainsRune(command, 0) {
		return nil, fmt.Errorf("the command holds a NUL byte")
	}
	phs := findPlaceholders(command)
	index := map[string]int{}
	for i, a := range args {
		index[a.Name] = i
	}
	used := map[string]bool{}
	for _, p := range phs {
		if _, ok := index[p.name]; !ok {
			return nil, fmt.Errorf("the command uses {%s}, which is not a declared argument", p.name)
		}
		used[p.name] = true
	}
	for _, a := range args {
		if !used[a.Name] {
			return nil, fmt.Errorf("argument '%s' is declared but the command never uses {%s}", a.Name, a.Name)
		}
	}
	guarded, err := checkPlacement(command, phs)
	if err != nil {
		return nil, err
	}
	for _, a := range args {
		a.optionProof = true
	}
	for k, p := range phs {
		if !guarded[k] {
			args[index[p.name]].optionProof = false
		}
	}
	var segs []segment
	last := 0
	for _, p := range phs {
		if p.start > last {
			segs = append(segs, segment{text: command[last:p.start], arg: -1})
		}
		segs = append(segs, segment{arg: index[p.name]})
		last = p.end
	}
	if last < len(command) {
		segs = append(segs, segment{text: command[last:], arg: -1})
	}
	return segs, nil
}

// markTemplate replaces each placeholder with a marker word that no other
// text of the template holds: plain letters and digits, which the shell
// reads as one unquoted literal, as it reads the single-quoted value that
// will take its place. The markers are returned in placeholder order.
func markTemplate(command string, phs []placeholder) (string, []string) {
	base := "wispslot"
	for strings.Contains(command, base) {
		base += "x"
	}
	markers := make([]string, len(phs))
	var b strings.Builder
	last := 0
	for k, p := range phs {
		// The trailing z keeps marker 1 from being a prefix of marker 10.
		markers[k] = base + strconv.Itoa(k) + "z"
		b.WriteString(command[last:p.start])
		b.WriteString(markers[k])
		last = p.end
	}
	b.WriteString(command[last:])
	return b.String(), markers
}

func parseShell(line string) (*syntax.File, error) {
	// Bash is the widest of the dialects /bin/sh may be: every quoting
	// context any of them has is one it knows.
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(line), "")
}

// Where a placeholder may not stand, as told to the user.
const (
	whereOK          = ""
	whereQuotes      = "is inside quotes"
	whereLarger      = "is part of a larger word"
	whereCommandName = "command name"
	whereNotArgument = "is neither a command argument nor a redirection target"
)

// checkPlacement refuses a template where a single-quoted value could be
// anything but one inert word: it parses the template with markers in
// place of the placeholders and looks at where each marker landed. For
// each placeholder it also reports whether a value there can never be
// read as an option (guarded): see optionGuarded.
func checkPlacement(command string, phs []placeholder) (guarded []bool, err error) {
	if len(phs) == 0 {
		if _, err := parseShell(command); err != nil {
			return nil, fmt.Errorf("the command does not parse as a shell line: %v", err)
		}
		return nil, nil
	}
	marked, markers := markTemplate(command, phs)
	f, err := parseShell(marked)
	if err != nil {
		msg := err.Error()
		for k, m := range markers {
			msg = strings.ReplaceAll(msg, m, "{"+phs[k].name+"}")
		}
		return nil, fmt.Errorf("the command does not parse as a shell line: %s", msg)
	}
	where := make([]string, len(phs))
	seen := make([]bool, len(phs))
	var stack []syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		var text string
		switch x := n.(type) {
		case *syntax.Lit:
			text = x.Value
		case *syntax.SglQuoted:
			text = x.Value
		case *syntax.Comment:
			text = x.Text
		default:
			return true
		}
		for k, m := range markers {
			if !strings.Contains(text, m) {
				continue
			}
			w := placement(stack, m)
			if !seen[k] || where[k] == whereOK {
				where[k] = w
			}
			seen[k] = true
		}
		return true
	})
	for k, p := range phs {
		w := where[k]
		if !seen[k] {
			w = whereNotArgument
		}
		switch w {
		case whereOK:
			continue
		case whereCommandName:
			return nil, fmt.Errorf("{%s} cannot be the command name; a value may only be an argument or a redirection target", p.name)
		}
		return nil, fmt.Errorf("{%s} %s in the command; single-quoting only protects a value that stands as its own word", p.name, w)
	}
	return optionGuarded(f, markers), nil
}

// optionGuarded reports, per marker, whether every place it stands keeps
// a value from being read as an option: after a `--` argument of the same
// simple command (which ends a program's options), or as a redirection
// target (which the shell opens itself and no program parses). A value
// that begins with '-' anywhere else is refused when the tool is called,
// since the program would take it for an option (-rf, --exec=…).
func optionGuarded(f *syntax.File, markers []string) []bool {
	guarded := make([]bool, len(markers))
	seen := make([]bool, len(markers))
	mark := func(w *syntax.Word, ok bool) {
		for k, m := range markers {
			if w != nil && w.Lit() == m {
				guarded[k] = (guarded[k] || !seen[k]) && ok
				seen[k] = true
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			dashes := false
			for i, w := range x.Args {
				if i > 0 {
					mark(w, dashes)
				}
				dashes = dashes || (i > 0 && unquoted(w) == "--")
			}
		case *syntax.Redirect:
			mark(x.Word, true)
		}
		return true
	})
	return guarded
}

// unquoted is a word's value when it is plain text, quoted or not ("--",
// '--' and -- alike), else "".
func unquoted(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return ""
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(l.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}

// placement judges a marker found in the node on top of stack (a Lit,
// a single-quoted string or a comment; the stack runs from the file
// down to it). The innermost quoting or expansion context decides; a
// marker outside them must be a whole word that is an argument of a
// simple command (not its name) or the target of a redirection.
func placement(stack []syntax.Node, marker string) string {
	n := len(stack)
	var lit *syntax.Lit
	switch x := stack[n-1].(type) {
	case *syntax.SglQuoted:
		return whereQuotes
	case *syntax.Comment:
		return "is inside a comment"
	case *syntax.Lit:
		lit = x
	}
	for i := n - 2; i >= 0; i-- {
		switch x := stack[i].(type) {
		case *syntax.DblQuoted:
			return whereQuotes
		case *syntax.CmdSubst:
			if x.Backquotes {
				return "is inside backticks"
			}
			return "is inside a command substitution"
		case *syntax.ProcSubst:
			return "is inside a process substitution"
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop,
			*syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
			return "is inside an arithmetic expression"
		case *syntax.TestClause:
			return "is inside a [[ ]] test"
		case *syntax.ParamExp:
			if l, ok := stack[i+1].(*syntax.Lit); ok && l == x.Param {
				// $a{x}: the shell reads a variable named a followed by
				// the marker's letters.
				return whereLarger
			}
			return "is inside a parameter expansion"
		case *syntax.Assign, *syntax.ArrayExpr:
			return "is in an assignment"
		case *syntax.Redirect:
			if w, ok := stack[i+1].(*syntax.Word); ok && w == x.Hdoc {
				return "is inside a here-document"
			}
			if x.Op == syntax.Hdoc || x.Op == syntax.DashHdoc {
				return "is a here-document delimiter"
			}
		}
	}
	if n < 3 {
		return whereNotArgument
	}
	word, ok := stack[n-2].(*syntax.Word)
	if !ok {
		return whereNotArgument
	}
	if len(word.Parts) != 1 || lit.Value != marker {
		return whereLarger
	}
	switch p := stack[n-3].(type) {
	case *syntax.CallExpr:
		if p.Args[0] == word {
			return whereCommandName
		}
		return whereOK
	case *syntax.Redirect:
		if p.Word == word {
			return whereOK
		}
	}
	return whereNotArgument
}
