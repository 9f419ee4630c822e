package shell

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/shell/bounds"
	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/programs"
	"github.com/wisp-agent/wisp/internal/shell/rules"
	"github.com/wisp-agent/wisp/internal/shell/secretpath"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// Options tell the classifier where the line runs. Every field may be
// empty: without a workspace, relative paths count as inside it and
// absolute ones as outside; without a home, "~" is outside the workspace.
type Options struct {
	Workdir string // the workspace root, where the line starts
	Home    string // the user's home directory, for ~ and $HOME
	TempDir string // another directory, besides /tmp and /var/tmp, that is scratch space
	// WispHome is wisp's own folder when it is not ~/.wisp: reading it
	// is reading a secret.
	WispHome string
}

// Part is one simple command found in a line, wherever it was: a pipeline
// stage, a substitution, a function body, the string of sh -c, the command
// that find -exec or xargs runs.
type Part struct {
	Command string   `json:"command"`        // the simple command as written
	Program string   `json:"program"`        // the program it runs, wrappers (env, time, nohup...) removed
	Verb    string   `json:"verb,omitempty"` // the subcommand, for programs that have them (git commit)
	Level   Level    `json:"level"`
	Reasons []string `json:"reasons"`
}

// Verdict is the classification of a line: the strictest level of its
// parts and of the line itself, why, and every part.
type Verdict struct {
	Level   Level    `json:"level"`
	Parts   []Part   `json:"parts"`
	Reasons []string `json:"reasons"`
}

// Command is one simple command in the normalised forms a command policy
// matches: Text has quotes removed and words one space apart; Forms holds
// Text and the forms that hide behind it (the command under env or time,
// the program by its base name).
type Command struct {
	Text  string
	Forms []string
}

const (
	maxDepth = 6    // nested sh -c strings, here-docs fed to shells, trap strings
	maxHops  = 16   // wrappers around one command (env nice timeout ...)
	maxParts = 2000 // simple commands in one line
)

// Classify judges a shell line with no workspace given. See ClassifyWith.
func Classify(line string) Verdict {
	return ClassifyWith(line, Options{})
}

// ClassifyWith parses line as bash and judges every simple command in it.
// It never fails: a line it cannot parse or analyse is dangerous.
func ClassifyWith(line string, opts Options) Verdict {
	c := &classifier{opts: opts, table: rules.Default()}
	c.setupRoots()
	c.script(line, nil)
	return c.verdict()
}

// ParseCommands returns every simple command in line, including those in
// substitutions, here-docs fed to shells, sh -c strings, find -exec and
// xargs. It fails only when the line does not parse or nests too deep
// to be analysed.
func ParseCommands(line string) ([]Command, error) {
	c := &classifier{collect: true, table: rules.Default()}
	c.setupRoots()
	if err := c.script(line, nil); err != nil {
		return nil, err
	}
	return c.cmds, nil
}

// Commands returns the normalised forms of every simple command in line
// (see ParseCommands), or nil when the line does not parse.
func Commands(line string) []string {
	cmds, err := ParseCommands(line)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, f := range c.Forms {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

var parsers = sync.Pool{New: func() any {
	// Comments are kept because the safe grammar looks at them: bash
	// ends a comment at a backslash-newline, the parser does not.
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

func parse(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// classifier holds the state of one classification.
type classifier struct {
	opts  Options
	table *rules.Table
	root  string   // workspace root, or virtualRoot
	home  string   // home directory, or ""
	temps []string // scratch directories

	parts   []Part
	flags   []judge.PartFlags // beside parts
	reasons []string          // about the line as a whole
	rlevels []Level           // the level of each of reasons
	level   Level             // of the line as a whole
	depth   int

	collect   bool // gather cmds for ParseCommands
	cmds      []Command
	funcs     map[string]bool // functions defined in the line
	downloads map[string]bool // files written from the network in the line
}

// frame is one piece of source being walked: the line, or a string that a
// command hands to a shell.
type frame struct {
	src    string
	cwd    string // "" once a cd went somewhere only known at run time
	cdpath bool   // CDPATH may be set: cd to a relative name may go anywhere
	// alts are the directories the line was in before a cd moved it:
	// a cd that fails leaves the line where it was, and bash runs on
	// after ";" and "||", so a relative path may start from any of them.
	alts []string
}

// ctx is what a command inherits from where it sits.
type ctx struct {
	f         *frame
	in        judge.Input
	text      string // the here-doc or here-string, when in == inText
	textKnown bool   // text has no expansions
	netIn     bool   // the pipe carries the output of a network command
}

// fail marks the whole line dangerous.
func (c *classifier) fail(reason string) {
	reason = judge.Clip(reason, judge.MaxReason)
	c.level = Dangerous
	c.reasons = append(c.reasons, reason)
	c.rlevels = append(c.rlevels, Dangerous)
}

// script parses and walks one piece of source. parent is nil for the line
// itself; otherwise it is the frame the string came from.
func (c *classifier) script(src string, parent *frame) error {
	if why := bounds.TooDeepText(src); why != "" {
		c.fail(why)
		return bounds.ErrTooDeep
	}
	file, err := parse(src)
	if err != nil {
		if parent == nil {
			c.fail("cannot parse the line: " + err.Error())
		} else {
			c.fail("cannot parse a nested script: " + err.Error())
		}
		return err
	}
	if why := bounds.TooDeepTree(file, src); why != "" {
		c.fail(why)
		return bounds.ErrTooDeep
	}
	f := &frame{src: src, cwd: c.root}
	if parent != nil {
		f.cwd, f.cdpath = parent.cwd, parent.cdpath
	}
	c.forkBomb(file, src)
	c.stmts(ctx{f: f}, file.Stmts)
	// The grammar can only keep a line from being safe: a line already
	// dangerous needs no proof that it is not read-only.
	if parent == nil && !c.collect && !c.dangerous() {
		c.grammar(file, src)
	}
	return nil
}

// dangerous reports whether the line or any part so far is dangerous.
func (c *classifier) dangerous() bool {
	if c.level == Dangerous {
		return true
	}
	for _, p := range c.parts {
		if p.Level == Dangerous {
			return true
		}
	}
	return false
}

// nested walks a string that a command runs as a script (sh -c, su -c,
// watch, trap, a here-doc fed to bash).
func (c *classifier) nested(x ctx, src string) {
	if c.depth >= maxDepth {
		c.fail(fmt.Sprintf("scripts nested more than %d deep", maxDepth))
		return
	}
	c.depth++
	defer func() { c.depth-- }()
	_ = c.script(src, x.f)
}

func (c *classifier) stmts(x ctx, list []*syntax.Stmt) {
	for _, s := range list {
		c.stmt(x, s)
	}
}

func (c *classifier) stmt(x ctx, s *syntax.Stmt) {
	if s == nil {
		return
	}
	var rd redirs
	for _, r := range s.Redirs {
		c.redirect(&x, r, &rd)
	}
	switch cmd := s.Cmd.(type) {
	case nil:
		c.addRedirPart(x, s, rd, "")
	case *syntax.CallExpr:
		c.call(x, s, cmd, rd)
	case *syntax.BinaryCmd:
		c.addRedirPart(x, s, rd, "")
		if cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll {
			c.pipeline(x, s)
			return
		}
		c.stmt(x, cmd.X)
		c.stmt(x, cmd.Y)
	default:
		c.compound(x, s, rd)
	}
}

// pipeline walks the stages of a pipeline in order, so that a stage knows
// whether anything before it reached the network.
func (c *classifier) pipeline(x ctx, s *syntax.Stmt) {
	var stages []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		stages = append(stages, s)
	}
	flatten(s)
	net := false
	for i, st := range stages {
		// Every stage runs in a subshell: a cd there does not leak out.
		y := x.sub()
		if i > 0 {
			y = ctx{f: y.f, in: judge.InPipe, netIn: net}
		}
		start := len(c.flags)
		c.stmt(y, st)
		for _, fl := range c.flags[start:] {
			net = net || fl.Net
		}
	}
}

// compound walks the commands inside a compound command. Subshells get a
// copy of the frame, so that a cd inside them does not leak out.
func (c *classifier) compound(x ctx, s *syntax.Stmt, rd redirs) {
	c.addRedirPart(x, s, rd, "")
	switch cmd := s.Cmd.(type) {
	case *syntax.Subshell:
		c.stmts(x.sub(), cmd.Stmts)
	case *syntax.Block:
		c.stmts(x, cmd.Stmts)
	case *syntax.IfClause:
		for cl := cmd; cl != nil; cl = cl.Else {
			c.stmts(x, cl.Cond)
			c.stmts(x, cl.Then)
		}
	case *syntax.WhileClause:
		c.stmts(x, cmd.Cond)
		c.stmts(x, cmd.Do)
	case *syntax.ForClause:
		c.expr(x, cmd.Loop)
		if wi, ok := cmd.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			c.assignsVar(x, judge.LiteralArg(wi.Name.Value), programs.RuntimeValue, span(x.f.src, s.Pos(), wi.End()))
		}
		c.stmts(x, cmd.Do)
	case *syntax.CaseClause:
		c.expr(x, cmd.Word)
		for _, item := range cmd.Items {
			for _, p := range item.Patterns {
				c.expr(x, p)
			}
			c.stmts(x, item.Stmts)
		}
	case *syntax.FuncDecl:
		// The body runs whenever the function is called; judge it as if
		// it were, in a copy of the frame since it may run anywhere. A
		// call of the function is then as safe as its body.
		if c.funcs == nil {
			c.funcs = map[string]bool{}
		}
		if cmd.Name != nil {
			c.funcs[cmd.Name.Value] = true
		}
		for _, n := range cmd.Names {
			c.funcs[n.Value] = true
		}
		c.stmt(x.sub(), cmd.Body)
	case *syntax.ArithmCmd:
		c.expr(x, cmd.X)
		c.addPart(x.f, s, "((", "", c.arith(x, cmd, "evaluates arithmetic"))
	case *syntax.TestClause:
		c.expr(x, cmd.X)
		c.addPart(x.f, s, "[[", "", c.arith(x, cmd, "evaluates a test"))
	case *syntax.LetClause:
		for _, e := range cmd.Exprs {
			c.expr(x, e)
		}
		c.addPart(x.f, s, "let", "", c.arith(x, cmd, "evaluates arithmetic"))
	case *syntax.DeclClause:
		c.decl(x, s, cmd)
	case *syntax.TimeClause:
		c.stmt(x, cmd.Stmt)
	case *syntax.CoprocClause:
		c.stmt(x.sub(), cmd.Stmt)
	case *syntax.TestDecl:
		c.stmt(x.sub(), cmd.Body)
	default:
		c.fail(fmt.Sprintf("cannot analyse a %T", s.Cmd))
	}
}

// arith judges a test or arithmetic command. Bash evaluates array
// subscripts in operands as arithmetic, running any command substitution
// in them even when the word was quoted: [[ 1 -eq 'a[$(id)]' ]].
func (c *classifier) arith(x ctx, n syntax.Node, why string) *judge.Result {
	r := judge.One(Safe, why)
	syntax.Walk(n, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if decodeWord(w, x.f.src).SubscriptRuns() {
				r.Add(Dangerous, "an array subscript holds a command substitution, which the shell runs")
			}
			return false
		}
		return true
	})
	return r
}

// sub is the context for a subshell: same input, its own working directory.
func (x ctx) sub() ctx {
	f := *x.f
	x.f = &f
	return x
}

// expr walks any node that is not a statement (words, arithmetic, tests,
// loop headers) for the commands hidden in substitutions.
func (c *classifier) expr(x ctx, n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			c.stmts(ctx{f: x.sub().f}, n.Stmts)
			return false
		case *syntax.ProcSubst:
			c.stmts(ctx{f: x.sub().f}, n.Stmts)
			return false
		case *syntax.Stmt:
			c.stmt(x, n)
			return false
		case *syntax.ParamExp:
			if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P") {
				c.fail("${var@P} runs the command substitutions stored in a variable")
			}
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				val := programs.RuntimeValue
				if n.Exp.Word != nil {
					val = decodeWord(n.Exp.Word, x.f.src)
				}
				c.assignsVar(x, judge.LiteralArg(n.Param.Value), val, span(x.f.src, n.Pos(), n.End()))
			}
		case *syntax.BinaryArithm:
			if arithAssign(n.Op) {
				if w, ok := n.X.(*syntax.Word); ok && w.Lit() != "" {
					c.assignsVar(x, judge.LiteralArg(w.Lit()), programs.RuntimeValue, span(x.f.src, n.Pos(), n.End()))
				}
			}
		}
		return true
	})
}

// arithAssign reports whether an arithmetic operator assigns its left
// operand.
func arithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// decl handles export, declare, local, readonly, typeset and nameref.
// Besides plain assignments, bash assigns a quoted or computed word
// ("NAME=value", "$n=value"), and -n makes a name a reference through
// which later assignments set another variable.
func (c *classifier) decl(x ctx, s *syntax.Stmt, d *syntax.DeclClause) {
	r := &judge.Result{}
	nameref := d.Variant.Value == "nameref"
	for _, as := range d.Args {
		if as.Name == nil && as.Naked && as.Value != nil {
			if !plainWord(as.Value) {
				c.expr(x, as.Value)
			}
			w := decodeWord(as.Value, x.f.src)
			nameText, _, hasEq := strings.Cut(w.Text, "=")
			switch {
			case w.Known && (strings.HasPrefix(w.Val, "-") || strings.HasPrefix(w.Val, "+")):
				if w.Val[0] == '-' && strings.Contains(w.Val, "n") {
					nameref = true
				}
			case w.Known && hasEq || !w.Known && hasEq && !strings.ContainsAny(nameText, "$`"):
				name, val, _ := strings.Cut(w.Val, "=")
				v := judge.LiteralArg(val)
				if !w.Known {
					v = programs.RuntimeValue
				}
				programs.SetVar(c.walk(x), judge.LiteralArg(name), v, r)
			case !w.Known:
				programs.SetVar(c.walk(x), w, programs.RuntimeValue, r)
			}
			continue
		}
		if nameref && as.Name != nil && as.Value != nil {
			// Assigning through the reference sets the variable it names.
			programs.SetVar(c.walk(x), decodeWord(as.Value, x.f.src), programs.RuntimeValue, r)
		}
		c.assign(x, as, r)
	}
	variant := d.Variant.Value
	if len(r.Reasons) == 0 {
		r.Add(Safe, "sets shell variables")
	}
	c.addPart(x.f, s, variant, "", r)
	c.runLater(r)
}

// redirs collects what a statement's redirections do.
type redirs struct {
	items []redirItem
	paths []string // files written, resolved
}

type redirItem struct {
	lvl    Level
	reason string
}

func (rd *redirs) add(l Level, reason string) {
	rd.items = append(rd.items, redirItem{l, reason})
}

// redirect judges one redirection and records the command's new standard
// input in x.
func (c *classifier) redirect(x *ctx, r *syntax.Redirect, rd *redirs) {
	if r.Word != nil {
		c.expr(*x, r.Word)
	}
	if r.Hdoc != nil {
		c.expr(*x, r.Hdoc)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		x.in, x.text, x.textKnown = judge.InText, "", true
		if r.Hdoc != nil {
			x.text, x.textKnown = hdocBody(r.Hdoc, quotedDelim(r.Word))
		}
		return
	case syntax.WordHdoc:
		a := decodeWord(r.Word, x.f.src)
		x.in, x.text, x.textKnown = judge.InText, a.Val+"\n", a.Known
		return
	case syntax.DplIn, syntax.DplOut:
		a := decodeWord(r.Word, x.f.src)
		if a.Known && (a.Val == "-" || judge.IsDigits(a.Val) || strings.HasSuffix(a.Val, "-") && judge.IsDigits(strings.TrimSuffix(a.Val, "-"))) {
			return // duplicating or closing a descriptor
		}
		if r.Op == syntax.DplIn {
			c.readTarget(x, a, rd)
			return
		}
	case syntax.RdrIn:
		a := decodeWord(r.Word, x.f.src)
		c.readTarget(x, a, rd)
		x.in = judge.InFile
		return
	}
	// Everything else opens its target for writing: > >> >| &> &>> <> >&file.
	if len(r.Word.Parts) == 1 {
		if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
			return // > >(cmd): a pipe into a command judged on its own
		}
	}
	a := decodeWord(r.Word, x.f.src)
	if p, ok := c.resolve(x.f, a); ok {
		rd.paths = append(rd.paths, p)
	}
	l, reason := c.writeTo(x.f, a)
	if reason != "" {
		rd.add(l, "redirects output: "+reason)
	}
}

// readTarget judges an input redirection.
func (c *classifier) readTarget(x *ctx, a judge.Arg, rd *redirs) {
	if a.Subst && !a.Known {
		return // <(cmd): the command is judged on its own
	}
	pl, shown := c.where(x.f, a)
	switch {
	case pl == judge.PlaceNetwork:
		rd.add(Dangerous, "reads from a network connection: "+shown)
	case pl == judge.PlaceUnknown && secretpath.Mentions(a.Text):
		rd.add(Dangerous, "may read a secret: "+a.Text)
	case pl == judge.PlaceUnknown:
		rd.add(Moderate, "reads from a path only known at run time: "+a.Text)
	default:
		p, ok := c.resolve(x.f, a)
		switch {
		case ok && c.secret(p):
			rd.add(Dangerous, "reads a secret: "+shown)
		case pl != judge.PlaceWorkspace && pl != judge.PlaceSink:
			rd.add(Moderate, notProvable+"input read from outside the workspace: "+shown)
		}
	}
}

// hdocBody returns the text a here-doc hands to the command, and whether
// it is known before the line runs. With a quoted delimiter the body is
// literal; otherwise the shell expands it and takes out the backslashes
// before $, ` and \.
func hdocBody(w *syntax.Word, quoted bool) (string, bool) {
	var b strings.Builder
	known := true
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			known = false
			continue
		}
		if quoted {
			b.WriteString(l.Value)
			continue
		}
		s := l.Value
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				switch s[i+1] {
				case '$', '`', '\\':
					i++
				case '\n':
					i++
					continue
				}
			}
			b.WriteByte(s[i])
		}
	}
	return b.String(), known
}

// quotedDelim reports whether a here-doc delimiter is quoted, which keeps
// the body from being expanded.
func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.Contains(l.Value, "\\") {
			return true
		}
	}
	return false
}

// writeTo judges writing to a path argument; reason is "" when nothing is
// written (a sink).
func (c *classifier) writeTo(f *frame, a judge.Arg) (Level, string) {
	if a.Glob && !a.Known {
		return Dangerous, "writes to a path only known at run time: " + a.Text
	}
	pl, shown := c.where(f, a)
	switch pl {
	case judge.PlaceSink:
		return Safe, ""
	case judge.PlaceUnknown:
		return Dangerous, "writes to a path only known at run time: " + a.Text
	case judge.PlaceNetwork:
		return Dangerous, "sends data over the network: " + shown
	case judge.PlaceDevice:
		return Dangerous, "writes to a device: " + shown
	case judge.PlaceOutside:
		p, _ := c.resolve(f, a)
		if judge.InGitDir(p) {
			return Dangerous, judge.GitDirReason + shown
		}
		if judge.Plants(p) {
			return Dangerous, "writes a file that runs commands later: " + shown
		}
		return Dangerous, "writes outside the workspace: " + shown
	}
	p, _ := c.resolve(f, a)
	if judge.InGitDir(p) {
		return Dangerous, judge.GitDirReason + shown
	}
	if judge.Plants(p) {
		return Dangerous, "writes a file that runs commands later: " + shown
	}
	if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(c.root, "/")+"/"); ok {
		if why, ok := workspace.RunsOutside(rel); ok {
			return Dangerous, "writes a file that runs outside the sandbox (" + why + "): " + shown
		}
	}
	return Moderate, "writes " + shown
}

// addRedirPart records the redirections of a statement that is not a
// simple command ({ ...; } > file, or a bare > file).
func (c *classifier) addRedirPart(x ctx, s *syntax.Stmt, rd redirs, _ string) {
	if len(rd.items) == 0 {
		if s.Cmd == nil && len(s.Redirs) > 0 {
			c.addPart(x.f, s, "", "", judge.One(Safe, "opens files"))
		}
		return
	}
	text := ""
	if s.Cmd == nil {
		text = span(x.f.src, s.Pos(), s.End())
	} else if len(s.Redirs) > 0 {
		text = span(x.f.src, s.Redirs[0].Pos(), redirEnd(s.Redirs[len(s.Redirs)-1]))
	}
	r := &judge.Result{}
	for _, it := range rd.items {
		r.Add(it.lvl, it.reason)
	}
	c.addPartText(text, "", "", r)
}

// redirEnd is where a redirection ends on its own line (a here-doc body
// comes later).
func redirEnd(r *syntax.Redirect) syntax.Pos {
	if r.Word != nil {
		return r.Word.End()
	}
	return r.End()
}

// addPart records a part whose text is the statement's.
func (c *classifier) addPart(f *frame, s *syntax.Stmt, program, verb string, r *judge.Result) {
	end := s.End()
	if s.Cmd != nil {
		end = s.Cmd.End()
	}
	for _, rd := range s.Redirs {
		if e := redirEnd(rd); e.After(end) {
			end = e
		}
	}
	text := strings.TrimSpace(span(f.src, s.Pos(), end))
	c.addPartText(text, program, verb, r)
}

// addPartText records a part. Its reasons go strongest first.
func (c *classifier) addPartText(text, program, verb string, r *judge.Result) {
	if len(c.parts) >= maxParts {
		if len(c.parts) == maxParts {
			c.fail(fmt.Sprintf("more than %d commands", maxParts))
			c.parts = append(c.parts, Part{}) // marks the failure as reported
		}
		return
	}
	if len(r.Reasons) == 0 {
		r.Add(Safe, "no effect")
	}
	reasons, levels := r.Reasons, r.Levels
	sorted := true
	for i := 1; i < len(levels); i++ {
		if levels[i] > levels[i-1] {
			sorted = false
			break
		}
	}
	if !sorted {
		reasons = make([]string, 0, len(r.Reasons))
		levels = make([]Level, 0, len(r.Reasons))
		for l := Dangerous; l >= Safe; l-- {
			for i, reason := range r.Reasons {
				if r.Levels[i] == l {
					reasons = append(reasons, reason)
					levels = append(levels, l)
				}
			}
		}
	}
	// The whole line is shown beside a part: a part quotes a bounded
	// piece of it, or nested parts would hold it once per level.
	text = judge.Clip(text, bounds.MaxPartText)
	program = bounds.ProgramName(program)
	c.parts = append(c.parts, Part{Command: text, Program: program, Verb: verb, Level: r.Level, Reasons: reasons})
	fl := r.Flags
	fl.Levels = levels
	c.flags = append(c.flags, fl)
	if c.collect && len(r.Forms) > 0 {
		c.cmds = append(c.cmds, Command{Text: r.Forms[0], Forms: r.Forms})
	}
}

// verdict sums up the parts.
func (c *classifier) verdict() Verdict {
	parts := c.parts
	if len(parts) > maxParts {
		parts = parts[:maxParts]
	}
	v := Verdict{Level: c.level, Parts: parts}
	for _, p := range parts {
		v.Level = max(v.Level, p.Level)
	}
	for i, r := range c.reasons {
		if c.rlevels[i] == v.Level {
			v.Reasons = append(v.Reasons, r)
		}
	}
	if v.Parts == nil {
		v.Parts = []Part{}
	}
	if v.Level == Safe {
		if len(parts) == 0 {
			v.Reasons = append(v.Reasons, "nothing to run")
		} else {
			v.Reasons = append(v.Reasons, "every command only reads, or changes nothing outside the shell")
		}
		return v
	}
	seen := func(r string) bool {
		for _, old := range v.Reasons {
			if old == r {
				return true
			}
		}
		return false
	}
	for i, p := range parts {
		if p.Level != v.Level {
			continue
		}
		for j, r := range p.Reasons {
			if c.flags[i].Levels[j] != v.Level {
				continue
			}
			if p.Program != "" {
				r = p.Program + ": " + r
			}
			if !seen(r) {
				v.Reasons = append(v.Reasons, r)
			}
		}
	}
	// What keeps the line from being safe, when something worse decided
	// its level, comes last.
	for i, r := range c.reasons {
		if c.rlevels[i] < v.Level {
			v.Reasons = append(v.Reasons, r)
		}
	}
	return v
}
