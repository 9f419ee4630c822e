package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/programs"
	"github.com/wisp-agent/wisp/internal/shell/secretpath"
)

// call judges a simple command with its redirections.
func (c *classifier) call(x ctx, s *syntax.Stmt, ce *syntax.CallExpr, rd redirs) {
	r := &judge.Result{}
	for _, as := range ce.Assigns {
		c.assign(x, as, r)
		c.proveAssign(as, r)
	}
	if len(ce.Args) == 0 {
		for _, it := range rd.items {
			r.Add(it.lvl, it.reason)
		}
		if len(r.Reasons) == 0 {
			r.Add(Safe, "sets shell variables")
		}
		r.Forms = nil
		c.addPart(x.f, s, "", "", r)
		c.runLater(r)
		return
	}
	args := make([]judge.Arg, 0, len(ce.Args))
	for _, w := range ce.Args {
		args = appendWord(args, w, x.f.src)
	}
	if c.collect {
		r.Forms = append(r.Forms, judge.Normalise(args))
	}
	c.argv(x, args, r, 0)
	if r.Level < Dangerous {
		c.proveCall(x, args, r)
	}
	if !r.NoScan {
		c.scanSecrets(x.f, args[1:], r)
	}
	for _, it := range rd.items {
		r.Add(it.lvl, it.reason)
	}
	if r.Flags.Net || x.netIn {
		// Remember what came off the network, so that running it later
		// in the line counts as running a download.
		if c.downloads == nil {
			c.downloads = map[string]bool{}
		}
		for _, p := range append(r.Writes, rd.paths...) {
			c.downloads[p] = true
		}
	}
	if len(r.Reasons) == 0 {
		r.Add(Safe, "no effect outside the shell")
	}
	c.addPart(x.f, s, r.Program, r.Verb, r)
	for _, w := range ce.Args {
		if !plainWord(w) {
			c.expr(x, w)
		}
	}
	c.runLater(r)
}

func (c *classifier) runLater(r *judge.Result) {
	for _, f := range r.Later {
		f()
	}
}

// argv judges a command given as words, the first being the program.
// Wrappers (env, nice, timeout...) call it again on the command they run.
func (c *classifier) argv(x ctx, args []judge.Arg, r *judge.Result, hops int) {
	if len(args) == 0 {
		return
	}
	if hops > maxHops {
		r.Add(Dangerous, "too many wrappers to analyse")
		return
	}
	name, byPath, ok := c.program(args[0], r)
	if !ok {
		return
	}
	k := &judge.Cmd{W: walk{c, x}, Name: name, Args: args[1:], R: r, Hops: hops}
	if hops > 0 && c.collect {
		r.Forms = append(r.Forms, judge.Normalise(args))
	}
	if c.collect && args[0].Known && strings.Contains(args[0].Val, "/") {
		base := append([]judge.Arg{judge.LiteralArg(name)}, args[1:]...)
		r.Forms = append(r.Forms, judge.Normalise(base))
	}
	if !byPath {
		r.Program = name
		if c.funcs[name] {
			r.Add(Safe, "calls a function defined in this line (its body is judged on its own)")
			return
		}
		programs.Judge(k)
		return
	}
	// A program named by a path that is not a system directory may be
	// anything; judge it by its base name too, and keep that judgement
	// only when it is worse.
	r.Program = args[0].Val
	r.Add(Moderate, "runs a program by path: "+r.Program)
	if p, ok := c.resolve(x.f, args[0]); ok && c.downloads[p] {
		r.Add(Dangerous, "runs a file downloaded in this line")
	}
	scratch := &judge.Result{}
	k.R = scratch
	k.W = walk{c, x.sub()}
	programs.Judge(k)
	if scratch.Level == Dangerous {
		for _, reason := range scratch.Reasons {
			r.Add(Dangerous, reason)
		}
	}
	r.Flags.Net = r.Flags.Net || scratch.Flags.Net
}

// program checks the command name. It refuses (ok false, part dangerous)
// names that are computed or disguised, and tells whether the name is a
// path outside the system directories.
func (c *classifier) program(a judge.Arg, r *judge.Result) (name string, byPath, ok bool) {
	bad := ""
	switch {
	case a.Stdin:
		bad = "runs a command read from standard input"
	case a.ANSIC:
		bad = "the command name uses $'...' quoting: " + a.Text
	case !a.Known:
		bad = "the command name is only known at run time: " + a.Text
	case a.Escaped:
		bad = "the command name is disguised with backslashes: " + a.Text
	case a.Glob:
		bad = "the command name is a glob: " + a.Text
	case a.Brace:
		bad = "the command name is a brace expansion: " + a.Text
	case a.Quoted && a.Parts > 1:
		bad = "the command name is split by quotes: " + a.Text
	case a.Val == "":
		bad = "the command name is empty"
	case strings.ContainsAny(a.Val, " \t\n"):
		bad = "the command name holds blanks: " + a.Text
	}
	if bad != "" {
		r.Program = a.Text
		r.Add(Dangerous, bad)
		return "", false, false
	}
	v := a.Val
	if !strings.Contains(v, "/") {
		return v, false, true
	}
	clean := path.Clean(v)
	dir, base := path.Split(clean)
	if judge.SystemBin[strings.TrimSuffix(dir, "/")] {
		return base, false, true
	}
	return base, true, true
}

// scanSecrets marks a command that names a credential file in its
// arguments: whatever it does with it, the contents may reach the model or
// leave the machine.
func (c *classifier) scanSecrets(f *frame, args []judge.Arg, r *judge.Result) {
	for _, a := range args {
		if a.Known && wholeTree[r.Program] {
			if p, ok := c.resolve(f, a); ok && (p == "/" || p == c.home || p == "/\x00home" || c.home != "" && within(c.home, p)) {
				r.Add(Dangerous, "reads everything under "+c.show(p)+", credentials included")
				return
			}
		}
		if a.Known && a.Glob {
			if c.secretGlob(f, a) {
				r.Add(Dangerous, "a glob that can match a secret: "+a.Text)
				return
			}
			continue
		}
		if !a.Known && secretpath.Mentions(a.Text) {
			r.Add(Dangerous, "may touch a secret: "+a.Text)
			return
		}
		// After a cd, a plain name may be a file in a credential folder.
		if !a.Known || a.Val == "" || f.cwd == c.root && !secretpath.MaybeSecret(a.Val) || strings.ContainsAny(a.Val, " \t\n") {
			continue
		}
		cands := [4]string{a.Val}
		if a.Val == "-" || a.Val == "--" {
			continue
		}
		if i := strings.LastIndexByte(a.Val, '='); i >= 0 {
			cands[1] = a.Val[i+1:]
		}
		if i := strings.LastIndexByte(a.Val, ':'); i >= 0 {
			cands[3] = a.Val[i+1:] // rev:path, host:path
		}
		if strings.HasPrefix(cands[1], "@") || strings.HasPrefix(cands[1], "<") {
			cands[2] = cands[1][1:]
		} else if strings.HasPrefix(a.Val, "@") {
			cands[2] = a.Val[1:]
		}
		for j := len(cands) - 1; j >= 0; j-- {
			s := cands[j]
			if s == "" {
				continue
			}
			b := judge.Arg{Val: s, Known: true, Home: strings.HasPrefix(s, "~")}
			if p, ok := c.resolve(f, b); ok && c.secret(p) {
				r.Add(Dangerous, "touches a secret: "+c.show(p))
				return
			}
		}
	}
}

// wholeTree are programs that read a whole directory tree's contents and
// send them somewhere: given the home directory or the root, they take
// the credentials in it along.
var wholeTree = map[string]bool{
	"tar": true, "zip": true, "7z": true, "rsync": true, "scp": true, "cp": true, "grep": true,
	"egrep": true, "rg": true, "ag": true, "ack": true, "curl": true, "base64": true, "cpio": true,
}

// secretGlob reports whether a glob argument can match a credential file.
// A bare * does not count (it skips dot files, and matching every name
// is no sign of intent); a glob inside a credential directory does.
func (c *classifier) secretGlob(f *frame, a judge.Arg) bool {
	if !a.Known {
		return false
	}
	if p, ok := c.resolve(f, a); ok && (c.secret(path.Join(path.Dir(p), "x")) || c.secret(p)) {
		return true
	}
	base := path.Base(a.Val)
	if strings.Trim(base, "*?") == "" {
		return false
	}
	return secretpath.GlobMayName(base)
}

// assign judges a variable assignment (FOO=bar cmd, FOO=bar, export FOO=bar).
func (c *classifier) assign(x ctx, as *syntax.Assign, r *judge.Result) {
	if as.Value != nil && !plainWord(as.Value) {
		c.expr(x, as.Value)
	}
	if as.Array != nil {
		c.expr(x, as.Array)
	}
	if as.Index != nil {
		c.expr(x, as.Index)
	}
	if as.Name == nil {
		return
	}
	var val judge.Arg
	if as.Value != nil {
		val = decodeWord(as.Value, x.f.src)
	} else if as.Array != nil {
		val = judge.Arg{Text: "(...)"}
	} else if as.Naked {
		return // export NAME: no new value
	} else {
		val = judge.Arg{Known: true}
	}
	if val.SubscriptRuns() {
		r.Add(Dangerous, "the value holds an array subscript with a command substitution, which arithmetic would run")
	}
	programs.EnvVar(c.walk(x), as.Name.Value, val, r)
}

// assignsVar judges an assignment that is not a command of its own
// (${NAME:=value}, ((NAME=1)), for NAME in): a part is recorded only
// when setting the variable matters.
func (c *classifier) assignsVar(x ctx, name, val judge.Arg, text string) {
	r := &judge.Result{}
	programs.SetVar(c.walk(x), name, val, r)
	if r.Level > Safe {
		c.addPartText(text, "", "", r)
	}
	c.runLater(r)
}

// maxBraceWords bounds the words one brace expansion may turn into before
// the classifier gives up on knowing them.
const maxBraceWords = 64

// appendWord decodes w, expanding braces (mkdir -p src/{a,b}) into the
// words the program will see.
func appendWord(args []judge.Arg, w *syntax.Word, src string) []judge.Arg {
	a := decodeWord(w, src)
	if !a.Brace {
		return append(args, a)
	}
	cp := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	if !syntax.SplitBraces(cp) {
		return append(args, a)
	}
	n := 0
	start := len(args)
	for ew, err := range expand.BracesSeq(nil, cp) {
		n++
		if err != nil || n > maxBraceWords {
			args = args[:start]
			a.Known, a.Split, a.Lead = false, true, true
			return append(args, a)
		}
		b := decodeWord(ew, src)
		b.Text = a.Text
		b.Home = b.Home || a.Home && strings.HasPrefix(b.Val, "~")
		args = append(args, b)
	}
	return args
}

// plainWord reports whether a word is only literal text and single
// quotes, so nothing in it can hide a command.
func plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}
