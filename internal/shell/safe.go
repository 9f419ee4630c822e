package shell

import (
	"maps"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"mvdan.cc/sh/v3/syntax"
)

// The safe grammar. A line may be rated safe only when every construct in
// it is one the classifier understands the way bash does: words made of
// literal text and plain quotes, simple commands, pipelines, && || ;
// lists, ( ) and { } groups, redirections to /dev/null or from workspace
// files, here-documents with literal bodies, and programs the rules table
// knows as read-only. Whatever else a line holds makes it at least
// moderate, with a reason that names the construct. The grammar does not
// judge what the commands do (the rules and the program table do); it
// only decides whether a safe verdict can be trusted at all.

const notProvable = "cannot be shown to be read-only: "

// unprovable raises the line to at least l with a reason naming the
// construct that keeps it from being shown read-only.
func (c *classifier) unprovable(l Level, construct string) {
	c.level = max(c.level, l)
	reason := judge.Clip(notProvable+construct, judge.MaxReason)
	for _, r := range c.reasons {
		if r == reason {
			return
		}
	}
	c.reasons = append(c.reasons, reason)
	c.rlevels = append(c.rlevels, l)
}

// grammar checks the line against the safe grammar.
func (c *classifier) grammar(f *syntax.File, src string) {
	c.rawSource(f, src)
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			c.grammarStmt(n)
		case *syntax.Comment:
			if t := strings.TrimRight(n.Text, "\n"); strings.HasSuffix(t, "\\") {
				c.unprovable(Moderate, "a comment that ends in a backslash")
			}
		case *syntax.Redirect:
			c.grammarRedirect(n)
		case *syntax.Assign:
			c.grammarAssign(n)
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause:
			c.unprovable(Moderate, "arithmetic, which bash evaluates at run time")
			return false
		case syntax.WordPart:
			c.grammarWordPart(n)
		}
		return true
	})
}

// grammarStmt checks the kind of a statement.
func (c *classifier) grammarStmt(s *syntax.Stmt) {
	if s.Background {
		c.unprovable(Moderate, "a command run in the background")
	}
	if s.Coprocess {
		c.unprovable(Moderate, "a coprocess")
	}
	switch cmd := s.Cmd.(type) {
	case nil, *syntax.CallExpr, *syntax.Subshell, *syntax.Block:
	case *syntax.BinaryCmd:
		// && || | |& are all lists and pipelines bash and the parser agree on.
	case *syntax.ArithmCmd, *syntax.LetClause:
		// The walk names the arithmetic itself.
	case *syntax.IfClause:
		c.unprovable(Moderate, "an if statement")
	case *syntax.WhileClause:
		c.unprovable(Moderate, "a loop")
	case *syntax.ForClause:
		c.unprovable(Moderate, "a for loop")
	case *syntax.CaseClause:
		c.unprovable(Moderate, "a case statement")
	case *syntax.FuncDecl:
		c.unprovable(Moderate, "a function definition")
	case *syntax.TestClause:
		c.unprovable(Moderate, "a [[ ]] test, which can evaluate arithmetic")
	case *syntax.DeclClause:
		c.unprovable(Moderate, cmd.Variant.Value+", which can evaluate what it assigns")
	case *syntax.TimeClause:
		c.unprovable(Moderate, "time")
	default:
		c.unprovable(Moderate, "a compound command")
	}
}

// grammarWordPart checks one part of a word.
func (c *classifier) grammarWordPart(p syntax.WordPart) {
	switch p := p.(type) {
	case *syntax.Lit:
	case *syntax.SglQuoted:
		if p.Dollar {
			c.unprovable(Moderate, "$'...' quoting")
		}
	case *syntax.DblQuoted:
		if p.Dollar {
			c.unprovable(Moderate, `$"..." quoting`)
		}
	case *syntax.ParamExp:
		c.unprovable(Moderate, "a parameter expansion, whose value is only known at run time")
	case *syntax.CmdSubst:
		c.unprovable(Moderate, "a command substitution")
	case *syntax.ProcSubst:
		c.unprovable(Moderate, "a process substitution")
	case *syntax.ExtGlob:
		c.unprovable(Moderate, "an extended glob, which bash may expand differently")
	case *syntax.BraceExp:
		c.unprovable(Moderate, "a brace expansion")
	default:
		c.unprovable(Moderate, "a word the classifier does not understand")
	}
}

// grammarAssign checks an assignment's form; which names may be set is
// the variable table's part (see proveAssign).
func (c *classifier) grammarAssign(as *syntax.Assign) {
	switch {
	case as.Array != nil:
		c.unprovable(Moderate, "an array assignment")
	case as.Index != nil:
		c.unprovable(Moderate, "an array subscript, which bash evaluates as arithmetic")
	}
}

// safeSinks are where output may go in a safe line.
var safeSinks = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

// grammarRedirect checks a redirection. Inputs from files are judged
// where the command is (readTarget); here only the form.
func (c *classifier) grammarRedirect(r *syntax.Redirect) {
	if r.N != nil && !judge.IsDigits(r.N.Value) {
		c.unprovable(Moderate, "a redirection that assigns a descriptor to a variable")
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
		if r.Word == nil || !plainWord(r.Word) || !safeSinks[r.Word.Lit()] {
			c.unprovable(Moderate, "output redirected to a file")
		}
	case syntax.DplOut, syntax.DplIn:
		if w := r.Word.Lit(); w != "-" && !judge.IsDigits(w) {
			c.unprovable(Moderate, "a descriptor duplicated to a file")
		}
	case syntax.RdrIn, syntax.WordHdoc:
	case syntax.Hdoc, syntax.DashHdoc:
		c.grammarHeredoc(r)
	default:
		c.unprovable(Moderate, "a redirection that opens a file for writing")
	}
}

// grammarHeredoc accepts a here-document whose delimiter is a plain word
// and whose body bash hands over as written.
func (c *classifier) grammarHeredoc(r *syntax.Redirect) {
	if r.Word == nil || len(r.Word.Parts) != 1 {
		c.unprovable(Moderate, "a here-document delimiter that is not a plain word")
		return
	}
	quoted := false
	switch p := r.Word.Parts[0].(type) {
	case *syntax.Lit:
		if strings.ContainsAny(p.Value, "\\$`") {
			c.unprovable(Moderate, "a here-document delimiter with a backslash or expansion")
			return
		}
	case *syntax.SglQuoted:
		quoted = !p.Dollar
	}
	if r.Hdoc == nil {
		return
	}
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || !quoted && strings.ContainsAny(l.Value, "\\$`") {
			c.unprovable(Moderate, "a here-document body that bash expands")
			return
		}
	}
}

// rawSource checks what the parser may not see as bash does: control
// characters, and backslash-newline anywhere but between words at the top
// level (in a comment it ends the comment for bash, not for the parser;
// inside words, quotes and here-documents the two fold it differently).
func (c *classifier) rawSource(f *syntax.File, src string) {
	for i := 0; i < len(src); i++ {
		if b := src[i]; b < 0x20 && b != '\n' && b != '\t' || b == 0x7f {
			c.unprovable(Moderate, "a control character")
			break
		}
	}
	if !strings.Contains(src, "\\\n") {
		return
	}
	var spans [][2]int
	heredoc := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word, *syntax.Comment:
			spans = append(spans, [2]int{int(n.Pos().Offset()), int(n.End().Offset())})
			return false
		case *syntax.Redirect:
			heredoc = heredoc || n.Hdoc != nil
		}
		return true
	})
	if heredoc {
		// Where bash reads a here-document's body relative to a
		// continued line is not something to prove.
		c.unprovable(Moderate, "a backslash-newline in a line with a here-document")
		return
	}
	for i := strings.Index(src, "\\\n"); i >= 0; {
		inside := i == 0 || src[i-1] != ' ' && src[i-1] != '\t' || i > 1 && src[i-2] == '\\'
		for _, s := range spans {
			inside = inside || i >= s[0] && i < s[1]
		}
		if inside {
			c.unprovable(Moderate, "a backslash-newline that is not between words")
			return
		}
		j := strings.Index(src[i+2:], "\\\n")
		if j < 0 {
			break
		}
		i += 2 + j
	}
}

// forkBomb marks a line whose functions call one another without end,
// directly or through others: :(){ :|:& };: starts processes until the
// machine stops.
func (c *classifier) forkBomb(f *syntax.File, src string) {
	if !mayDefineFunc(src) {
		return
	}
	calls := map[string][]string{}
	syntax.Walk(f, func(n syntax.Node) bool {
		fd, ok := n.(*syntax.FuncDecl)
		if !ok {
			return true
		}
		names := []string{}
		if fd.Name != nil {
			names = append(names, fd.Name.Value)
		}
		for _, n := range fd.Names {
			names = append(names, n.Value)
		}
		var callees []string
		syntax.Walk(fd.Body, func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
				callees = append(callees, ce.Args[0].Lit())
			}
			return true
		})
		for _, name := range names {
			calls[name] = append(calls[name], callees...)
		}
		return true
	})
	// Sorted, so that the reason names the same function every time.
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		if reaches(calls, name, name, map[string]bool{}) {
			c.fail("a function that calls itself without end, which starts processes until the machine stops (a fork bomb): " + name)
			return
		}
	}
}

// mayDefineFunc reports whether src could define a function: there is
// no definition without "()" (blanks allowed inside) or "function".
func mayDefineFunc(src string) bool {
	if strings.Contains(src, "function") {
		return true
	}
	for i := strings.IndexByte(src, '('); i >= 0; {
		j := i + 1
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j < len(src) && src[j] == ')' {
			return true
		}
		k := strings.IndexByte(src[j:], '(')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// reaches reports whether function from calls function to, directly or
// through other functions of the line.
func reaches(calls map[string][]string, from, to string, seen map[string]bool) bool {
	for _, callee := range calls[from] {
		if callee == to {
			return true
		}
		if !seen[callee] {
			seen[callee] = true
			if reaches(calls, callee, to, seen) {
				return true
			}
		}
	}
	return false
}
