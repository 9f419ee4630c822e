package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/shell/rules"
	"github.com/wisp-agent/wisp/internal/shell/secretpath"
)

// res accumulates the judgement of one part.
type res struct {
	lvl     Level
	reasons []string
	program string
	verb    string
	fl      partFlags
	levels  []Level // of each reason
	forms   []string
	later   []func() // nested parts, recorded after this one
	noScan  bool     // arguments are text, not paths: skip the secret scan
	writes  []string // files written, resolved
}

func (r *res) add(l Level, reason string) {
	r.lvl = max(r.lvl, l)
	for i, old := range r.reasons {
		if old == reason {
			r.levels[i] = max(r.levels[i], l)
			return
		}
	}
	r.reasons = append(r.reasons, reason)
	r.levels = append(r.levels, l)
}

// one is a result with a single reason.
func one(l Level, reason string) *res {
	r := &res{}
	r.add(l, reason)
	return r
}

// cmd is a simple command being judged: its program and the words after it.
type cmd struct {
	c     *classifier
	x     ctx
	name  string // the program, by the name rules know it
	args  []arg  // the words after the program
	r     *res
	hops  int
	verbs *rules.Verbs // what the program's table entry says of its verbs
	// valueOpts are the options the program's table entry lists as taking
	// a value (values, optional, posix), worked out once per program; nil
	// for a rule that does not read its entry.
	valueOpts *spec
}

func (k *cmd) add(l Level, reason string) { k.r.add(l, reason) }

// call judges a simple command with its redirections.
func (c *classifier) call(x ctx, s *syntax.Stmt, ce *syntax.CallExpr, rd redirs) {
	r := &res{}
	for _, as := range ce.Assigns {
		c.assign(x, as, r)
		c.proveAssign(as, r)
	}
	if len(ce.Args) == 0 {
		for _, it := range rd.items {
			r.add(it.lvl, it.reason)
		}
		if len(r.reasons) == 0 {
			r.add(Safe, "sets shell variables")
		}
		r.forms = nil
		c.addPart(x.f, s, "", "", r)
		c.runLater(r)
		return
	}
	args := make([]arg, 0, len(ce.Args))
	for _, w := range ce.Args {
		args = appendWord(args, w, x.f.src)
	}
	if c.collect {
		r.forms = append(r.forms, normalise(args))
	}
	c.argv(x, args, r, 0)
	if r.lvl < Dangerous {
		c.proveCall(x, args, r)
	}
	if !r.noScan {
		c.scanSecrets(x.f, args[1:], r)
	}
	for _, it := range rd.items {
		r.add(it.lvl, it.reason)
	}
	if r.fl.net || x.netIn {
		// Remember what came off the network, so that running it later
		// in the line counts as running a download.
		if c.downloads == nil {
			c.downloads = map[string]bool{}
		}
		for _, p := range append(r.writes, rd.paths...) {
			c.downloads[p] = true
		}
	}
	if len(r.reasons) == 0 {
		r.add(Safe, "no effect outside the shell")
	}
	c.addPart(x.f, s, r.program, r.verb, r)
	for _, w := range ce.Args {
		if !plainWord(w) {
			c.expr(x, w)
		}
	}
	c.runLater(r)
}

func (c *classifier) runLater(r *res) {
	for _, f := range r.later {
		f()
	}
}

// argv judges a command given as words, the first being the program.
// Wrappers (env, nice, timeout...) call it again on the command they run.
func (c *classifier) argv(x ctx, args []arg, r *res, hops int) {
	if len(args) == 0 {
		return
	}
	if hops > maxHops {
		r.add(Dangerous, "too many wrappers to analyse")
		return
	}
	name, byPath, ok := c.program(args[0], r)
	if !ok {
		return
	}
	k := &cmd{c: c, x: x, name: name, args: args[1:], r: r, hops: hops}
	if hops > 0 && c.collect {
		r.forms = append(r.forms, normalise(args))
	}
	if c.collect && args[0].known && strings.Contains(args[0].val, "/") {
		base := append([]arg{literalArg(name)}, args[1:]...)
		r.forms = append(r.forms, normalise(base))
	}
	if !byPath {
		r.program = name
		if c.funcs[name] {
			r.add(Safe, "calls a function defined in this line (its body is judged on its own)")
			return
		}
		rl, _ := lookup(name)
		rl(k)
		return
	}
	// A program named by a path that is not a system directory may be
	// anything; judge it by its base name too, and keep that judgement
	// only when it is worse.
	r.program = args[0].val
	r.add(Moderate, "runs a program by path: "+r.program)
	if p, ok := c.resolve(x.f, args[0]); ok && c.downloads[p] {
		r.add(Dangerous, "runs a file downloaded in this line")
	}
	scratch := &res{}
	k.r = scratch
	k.x = x.sub()
	rl, _ := lookup(name)
	rl(k)
	if scratch.lvl == Dangerous {
		for _, reason := range scratch.reasons {
			r.add(Dangerous, reason)
		}
	}
	r.fl.net = r.fl.net || scratch.fl.net
}

// systemBin are directories whose programs are the ones rules know.
var systemBin = map[string]bool{
	"/bin": true, "/usr/bin": true, "/sbin": true, "/usr/sbin": true,
	"/usr/local/bin": true, "/usr/local/sbin": true,
}

// program checks the command name. It refuses (ok false, part dangerous)
// names that are computed or disguised, and tells whether the name is a
// path outside the system directories.
func (c *classifier) program(a arg, r *res) (name string, byPath, ok bool) {
	bad := ""
	switch {
	case a.stdin:
		bad = "runs a command read from standard input"
	case a.ansiC:
		bad = "the command name uses $'...' quoting: " + a.text
	case !a.known:
		bad = "the command name is only known at run time: " + a.text
	case a.escaped:
		bad = "the command name is disguised with backslashes: " + a.text
	case a.glob:
		bad = "the command name is a glob: " + a.text
	case a.brace:
		bad = "the command name is a brace expansion: " + a.text
	case a.quoted && a.parts > 1:
		bad = "the command name is split by quotes: " + a.text
	case a.val == "":
		bad = "the command name is empty"
	case strings.ContainsAny(a.val, " \t\n"):
		bad = "the command name holds blanks: " + a.text
	}
	if bad != "" {
		r.program = a.text
		r.add(Dangerous, bad)
		return "", false, false
	}
	v := a.val
	if !strings.Contains(v, "/") {
		return v, false, true
	}
	clean := path.Clean(v)
	dir, base := path.Split(clean)
	if systemBin[strings.TrimSuffix(dir, "/")] {
		return base, false, true
	}
	return base, true, true
}

// scanSecrets marks a command that names a credential file in its
// arguments: whatever it does with it, the contents may reach the model or
// leave the machine.
func (c *classifier) scanSecrets(f *frame, args []arg, r *res) {
	for _, a := range args {
		if a.known && wholeTree[r.program] {
			if p, ok := c.resolve(f, a); ok && (p == "/" || p == c.home || p == "/\x00home" || c.home != "" && within(c.home, p)) {
				r.add(Dangerous, "reads everything under "+c.show(p)+", credentials included")
				return
			}
		}
		if a.known && a.glob {
			if c.secretGlob(f, a) {
				r.add(Dangerous, "a glob that can match a secret: "+a.text)
				return
			}
			continue
		}
		if !a.known && secretpath.Mentions(a.text) {
			r.add(Dangerous, "may touch a secret: "+a.text)
			return
		}
		// After a cd, a plain name may be a file in a credential folder.
		if !a.known || a.val == "" || f.cwd == c.root && !secretpath.MaybeSecret(a.val) || strings.ContainsAny(a.val, " \t\n") {
			continue
		}
		cands := [4]string{a.val}
		if a.val == "-" || a.val == "--" {
			continue
		}
		if i := strings.LastIndexByte(a.val, '='); i >= 0 {
			cands[1] = a.val[i+1:]
		}
		if i := strings.LastIndexByte(a.val, ':'); i >= 0 {
			cands[3] = a.val[i+1:] // rev:path, host:path
		}
		if strings.HasPrefix(cands[1], "@") || strings.HasPrefix(cands[1], "<") {
			cands[2] = cands[1][1:]
		} else if strings.HasPrefix(a.val, "@") {
			cands[2] = a.val[1:]
		}
		for j := len(cands) - 1; j >= 0; j-- {
			s := cands[j]
			if s == "" {
				continue
			}
			b := arg{val: s, known: true, home: strings.HasPrefix(s, "~")}
			if p, ok := c.resolve(f, b); ok && c.secret(p) {
				r.add(Dangerous, "touches a secret: "+c.show(p))
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
func (c *classifier) secretGlob(f *frame, a arg) bool {
	if !a.known {
		return false
	}
	if p, ok := c.resolve(f, a); ok && (c.secret(path.Join(path.Dir(p), "x")) || c.secret(p)) {
		return true
	}
	base := path.Base(a.val)
	if strings.Trim(base, "*?") == "" {
		return false
	}
	return secretpath.GlobMayName(base)
}

// assign judges a variable assignment (FOO=bar cmd, FOO=bar, export FOO=bar).
func (c *classifier) assign(x ctx, as *syntax.Assign, r *res) {
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
	var val arg
	if as.Value != nil {
		val = decodeWord(as.Value, x.f.src)
	} else if as.Array != nil {
		val = arg{text: "(...)"}
	} else if as.Naked {
		return // export NAME: no new value
	} else {
		val = arg{known: true}
	}
	if subscriptRuns(val) {
		r.add(Dangerous, "the value holds an array subscript with a command substitution, which arithmetic would run")
	}
	c.envVar(x, as.Name.Value, val, r)
}

// setVar judges setting a variable named by a word (read NAME, printf -v
// NAME, declare "NAME=value", for NAME in): a name only known at run time
// could be any variable.
func (c *classifier) setVar(x ctx, name, val arg, r *res) {
	if !name.known {
		r.add(Dangerous, "sets a variable whose name is only known at run time: "+name.text)
		return
	}
	n := name.val
	if i := strings.IndexByte(n, '['); i >= 0 {
		n = n[:i] // an array element: $NAME is element 0
	}
	c.envVar(x, n, val, r)
}

// runtimeValue stands for a value read or computed when the line runs.
var runtimeValue = arg{text: "(a value only known at run time)"}

// setsVars judges a builtin that stores input in the variables it names
// (read, mapfile, getopts, printf -v).
func (k *cmd) setsVars(names []arg) {
	for _, n := range names {
		k.c.setVar(k.x, n, runtimeValue, k.r)
	}
}

// assignsVar judges an assignment that is not a command of its own
// (${NAME:=value}, ((NAME=1)), for NAME in): a part is recorded only
// when setting the variable matters.
func (c *classifier) assignsVar(x ctx, name, val arg, text string) {
	r := &res{}
	c.setVar(x, name, val, r)
	if r.lvl > Safe {
		c.addPartText(text, "", "", r)
	}
	c.runLater(r)
}

// envVar judges setting one environment or shell variable, as
// assignments.rules says; a name the table does not hold adds nothing.
func (c *classifier) envVar(x ctx, name string, val arg, r *res) {
	e, ok := rules.DefaultAssignments().Lookup(name)
	if !ok {
		return
	}
	if e.Judge == "" {
		r.add(levelNamed(e.Level), "sets "+name+", which "+e.Why)
		return
	}
	k := &cmd{c: c, x: x, name: name, r: r}
	switch e.Judge {
	case "command", "command-text":
		c.commandVar(x, name, val, e.Judge == "command", r)
	case "program":
		k.runsProgram(val, "sets "+name+", which", true)
	case "cgo":
		switch {
		case !strings.Contains(name, "FLAGS"):
		case strings.HasSuffix(name, "_ALLOW") || strings.HasSuffix(name, "_DISALLOW"):
			r.add(Moderate, "sets "+name+", which changes the C compiler flags go lets source files use")
		default:
			k.ccFlags(val, "sets "+name+", which")
		}
	case "goflags":
		k.goflagsVar(val)
	case "goroot":
		c.gorootVar(x, val, r)
	case "gotoolchain":
		if !val.known || (val.val != "local" && val.val != "auto" && val.val != "") {
			r.add(Moderate, "sets GOTOOLCHAIN, which can download and run another Go toolchain")
		}
	case "cdpath":
		if !val.known || val.val != "" {
			x.f.cdpath = true
		}
		r.add(Moderate, "sets "+name+", which changes which programs or files are used")
	default:
		// A judgement the code does not have fails closed; the table's
		// examples, checked by the package's tests, catch it first.
		r.add(Dangerous, "sets "+name+", which the classifier cannot judge ("+e.Judge+")")
	}
}

// commandVar judges setting a variable that holds a command line other
// programs run (PAGER, GIT_SSH_COMMAND): parse says whether the
// classifier can read that line as a shell would.
func (c *classifier) commandVar(x ctx, name string, val arg, parse bool, r *res) {
	switch {
	case val.known && strings.TrimSpace(val.val) == "":
	case !parse:
		r.add(Dangerous, "sets "+name+", which makes a program run a command")
	case !val.known:
		r.add(Dangerous, "sets "+name+" to a command only known at run time")
	default:
		r.add(Safe, "sets "+name+", a command that other programs run (judged on its own)")
		src := val.val
		r.later = append(r.later, func() { c.nested(x, src) })
	}
}

// goflagsVar judges GOFLAGS as the go build flags it adds.
func (k *cmd) goflagsVar(val arg) {
	r := k.r
	if !val.known {
		r.add(Moderate, "sets GOFLAGS to a value only known at run time, which can make go run other programs")
		return
	}
	words := strings.Fields(val.val)
	args := make([]arg, len(words))
	for i, w := range words {
		args[i] = literalArg(w)
	}
	flags, _ := goFlags(args)
	scratch := &res{}
	g := &cmd{c: k.c, x: k.x, name: "go", r: scratch}
	g.goBuildFlags(flags)
	for i, reason := range scratch.reasons {
		r.add(scratch.levels[i], "sets GOFLAGS, where "+reason)
	}
	r.later = append(r.later, scratch.later...)
}

// gorootVar judges GOROOT by where the compiler go would run lives.
func (c *classifier) gorootVar(x ctx, val arg, r *res) {
	b := val
	b.home = b.home || strings.HasPrefix(val.val, "~")
	switch pl, shown := c.where(x.f, b); {
	case val.known && val.val == "":
	case pl == placeOutside:
		r.add(Moderate, "sets GOROOT, which makes go run the compiler and linker found there: "+shown)
	default:
		r.add(Dangerous, "sets GOROOT, which makes go run the compiler and linker found there, a place commands here can write or only known at run time: "+shown)
	}
}

// spec says which options of a program take a value.
type spec struct {
	shortVal string   // short options that take a value: -o FILE, -oFILE
	shortOpt string   // short options whose value is optional and attached: -i.bak
	longVal  []string // long options that take a value: --output FILE, --output=FILE
	posix    bool     // options end at the first operand
}

// option is one option found by scan.
type option struct {
	name string // "-o" or "--output" (as given, possibly abbreviated)
	val  arg
	has  bool
}

// is reports whether the option is one of the given names. Long names match
// the unambiguous abbreviations GNU programs accept.
func (o option) is(names ...string) bool {
	for _, n := range names {
		if o.name == n {
			return true
		}
		if strings.HasPrefix(n, "--") && strings.HasPrefix(o.name, "--") && len(o.name) > 3 && strings.HasPrefix(n, o.name) {
			return true
		}
	}
	return false
}

// scan splits arguments into options and operands.
func (sp spec) scan(args []arg) (opts []option, ops []arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.known || len(a.val) < 2 || a.val[0] != '-' {
			ops = append(ops, a)
			if sp.posix {
				return opts, append(ops, args[i+1:]...)
			}
			continue
		}
		if a.val == "--" {
			return opts, append(ops, args[i+1:]...)
		}
		if strings.HasPrefix(a.val, "--") {
			name, val, hasEq := strings.Cut(a.val, "=")
			o := option{name: name}
			if hasEq {
				o.val, o.has = literalArg(val), true
				o.val.known = a.known
			} else if sp.takesLong(name) && i+1 < len(args) {
				i++
				o.val, o.has = args[i], true
			}
			opts = append(opts, o)
			continue
		}
		cluster := a.val[1:]
		for j := 0; j < len(cluster); j++ {
			ch := cluster[j]
			o := option{name: "-" + string(ch)}
			if strings.IndexByte(sp.shortVal, ch) >= 0 {
				if rest := cluster[j+1:]; rest != "" {
					o.val, o.has = literalArg(rest), true
				} else if i+1 < len(args) {
					i++
					o.val, o.has = args[i], true
				}
				opts = append(opts, o)
				break
			}
			if strings.IndexByte(sp.shortOpt, ch) >= 0 {
				o.val, o.has = literalArg(cluster[j+1:]), true
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
	}
	return opts, ops
}

func (sp spec) takesLong(name string) bool {
	for _, l := range sp.longVal {
		full := "--" + l
		if name == full || len(name) > 3 && strings.HasPrefix(full, name) {
			return true
		}
	}
	return false
}

// firstOperand returns the index of the first word that is not an option,
// skipping the values of the options in sp. It returns len(args) when
// there is none.
func (sp spec) firstOperand(args []arg) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.known || len(a.val) < 2 || a.val[0] != '-' {
			return i
		}
		if a.val == "--" {
			return i + 1
		}
		if strings.HasPrefix(a.val, "--") {
			if !strings.Contains(a.val, "=") && sp.takesLong(a.val) {
				i++
			}
			continue
		}
		cluster := a.val[1:]
		for j := 0; j < len(cluster); j++ {
			if strings.IndexByte(sp.shortVal, cluster[j]) >= 0 {
				if j == len(cluster)-1 {
					i++
				}
				break
			}
			if strings.IndexByte(sp.shortOpt, cluster[j]) >= 0 {
				break
			}
		}
	}
	return len(args)
}

// unknownArgs reports whether any word might be an option nobody checked.
func unknownArgs(args []arg) (arg, bool) {
	for _, a := range args {
		if a.flagUnknown() {
			return a, true
		}
	}
	return arg{}, false
}

// write judges writing to a path argument.
func (k *cmd) write(a arg) {
	if a.stdin {
		k.add(Dangerous, "writes to a path read from standard input")
		return
	}
	if p, ok := k.c.resolve(k.x.f, a); ok {
		k.r.writes = append(k.r.writes, p)
	}
	if l, reason := k.c.writeTo(k.x.f, a); reason != "" {
		k.add(l, reason)
	}
}

// writeInside judges a write that is harmless inside the workspace (a
// build output, undone by deleting it): safe there, as write elsewhere. A
// temporary directory is shared with other programs, which may run what
// lands there, so writing one is moderate as any write.
func (k *cmd) writeInside(a arg, what string) {
	if pl, shown := k.c.where(k.x.f, a); pl == placeWorkspace {
		if p, _ := k.c.resolve(k.x.f, a); !plants(p) && !inGitDir(p) {
			k.add(Safe, what+" "+shown)
			return
		}
	}
	k.write(a)
}

// remove judges deleting a path argument (rm, mv's source, find -delete).
func (k *cmd) remove(a arg, verb string) {
	c := k.c
	if a.stdin || !a.known {
		k.add(Dangerous, verb+" a path only known at run time: "+a.text)
		return
	}
	pl, shown := c.where(k.x.f, a)
	p, _ := c.resolve(k.x.f, a)
	switch {
	case pl == placeUnknown:
		k.add(Dangerous, verb+" a path only known at run time: "+a.text)
	case pl == placeSink || pl == placeDevice || pl == placeNetwork:
		k.add(Dangerous, verb+" a device file: "+shown)
	case c.wide(p):
		k.add(Dangerous, verb+" everything in "+shown)
	case pl == placeOutside:
		k.add(Dangerous, verb+" outside the workspace: "+shown)
	default:
		switch {
		case path.Base(p) == ".git" || strings.HasSuffix(p, "/.git/objects") || strings.HasSuffix(p, "/.git/refs"):
			k.add(Dangerous, verb+" the git history: "+shown)
		case plants(p):
			k.add(Dangerous, verb+" a file git or the shell obeys: "+shown)
		default:
			k.add(Moderate, verb+" "+shown)
		}
	}
}

// nestedArgv records a command that this one runs (find -exec, xargs,
// sudo) as a part of its own.
func (k *cmd) nestedArgv(args []arg) {
	if len(args) == 0 {
		return
	}
	c, x, hops := k.c, k.x, k.hops
	k.r.later = append(k.r.later, func() {
		r := &res{}
		if c.collect {
			r.forms = []string{normalise(args)}
		}
		c.argv(x, args, r, hops+1)
		if !r.noScan {
			c.scanSecrets(x.f, args[1:], r)
		}
		if len(r.reasons) == 0 {
			r.add(Safe, "no effect outside the shell")
		}
		c.addPartText(displayArgs(args), r.program, r.verb, r)
		c.runLater(r)
	})
}

// displayArgs renders words as written, one space apart.
func displayArgs(args []arg) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.text)
	}
	return b.String()
}

// nestedScript records a string that this command hands to a shell.
func (k *cmd) nestedScript(a arg, what string) {
	if !a.known {
		k.add(Dangerous, what+" only known at run time: "+a.text)
		return
	}
	c, x, src := k.c, k.x, a.val
	k.r.later = append(k.r.later, func() { c.nested(x, src) })
}

// wrap judges the command a wrapper runs as if it stood alone.
func (k *cmd) wrap(args []arg) {
	k.c.argv(k.x, args, k.r, k.hops+1)
}

// maxBraceWords bounds the words one brace expansion may turn into before
// the classifier gives up on knowing them.
const maxBraceWords = 64

// appendWord decodes w, expanding braces (mkdir -p src/{a,b}) into the
// words the program will see.
func appendWord(args []arg, w *syntax.Word, src string) []arg {
	a := decodeWord(w, src)
	if !a.brace {
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
			a.known, a.split, a.lead = false, true, true
			return append(args, a)
		}
		b := decodeWord(ew, src)
		b.text = a.text
		b.home = b.home || a.home && strings.HasPrefix(b.val, "~")
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
