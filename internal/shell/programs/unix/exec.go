package unix

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/sublang"
)

// Shells, interpreters and the programs that carry small programs of their
// own (sed, awk, find).

func ruleShell(k *cmd) {
	args := k.Args
	cmdMode, stdinMode, noexec := false, false, false
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.Known {
			break
		}
		v := a.Val
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			switch v {
			case "--rcfile", "--init-file":
				i++
				k.Add(Moderate, "runs a start-up file")
			case "--version", "--help":
				k.Add(Safe, "prints version or help")
				return
			}
			continue
		case len(v) < 2 || v[0] != '-' && v[0] != '+':
			break options
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c':
				cmdMode = true
			case 's':
				stdinMode = true
			case 'n':
				noexec = true
			case 'o', 'O':
				if j == len(v)-1 {
					i++
				}
			}
		}
	}
	var ops []judge.Arg
	if i < len(args) {
		ops = args[i:]
	}
	switch {
	case noexec && !cmdMode:
		k.Add(Safe, "checks syntax only")
	case cmdMode:
		if len(ops) == 0 {
			k.Add(Safe, "does nothing: -c without a script")
			return
		}
		k.Add(Safe, "runs the script given on its command line (judged on its own)")
		k.NestedScript(ops[0], "runs a script")
	case len(ops) > 0 && !stdinMode && !stdinPath(ops[0]):
		script := ops[0]
		if !script.Known {
			k.Add(Dangerous, "runs a script produced at run time: "+script.Text)
			return
		}
		if k.runsFile(script) {
			return
		}
		k.Add(Moderate, "runs the script "+script.Val)
	default:
		k.stdinScript()
	}
}

// stdinScript judges a shell that reads its commands from standard input.
func (k *cmd) stdinScript() {
	in := k.W.Stdin()
	switch in.In {
	case judge.InText:
		if !in.Known {
			k.Add(Dangerous, "runs a here-doc built at run time")
			return
		}
		k.Add(Safe, "runs the here-doc (judged on its own)")
		k.NestedScript(judge.LiteralArg(in.Text), "runs a script")
	case judge.InPipe:
		if in.Net {
			k.Add(Dangerous, "runs a download: pipes the network into a shell")
			return
		}
		k.Add(Dangerous, "runs commands read from a pipe, which cannot be analysed")
	case judge.InFile:
		k.Add(Moderate, "runs a script from a file")
	default:
		k.Add(Dangerous, "reads commands from standard input, which cannot be analysed")
	}
}

func ruleEval(k *cmd) {
	k.Add(Dangerous, "runs a string as code")
	if len(k.Args) == 0 {
		return
	}
	for _, a := range k.Args {
		if !a.Known {
			return
		}
	}
	k.NestedScript(judge.LiteralArg(judge.Normalise(k.Args)), "runs a script")
}

func ruleSource(k *cmd) {
	if len(k.Args) > 0 && !k.Args[0].Known {
		k.Add(Dangerous, "runs code produced at run time in this shell: "+k.Args[0].Text)
		return
	}
	k.Add(Dangerous, "runs a script inside this shell, which cannot be analysed")
}

// lang describes an interpreter's command line.
type lang struct {
	inline  string   // short options whose value is code: python -c, perl -e
	long    []string // long options whose value is code: node --eval
	value   string   // short options that take a value
	longVal []string // long options that take a value
	digits  string   // short options followed by optional digits only: perl -l, -0
	inplace byte     // in-place editing: perl -i, ruby -i
	module  byte     // runs a module: python -m
	check   byte     // only checks syntax: ruby -c, php -l
	server  byte     // serves over the network: php -S
}

var langs = map[string]lang{
	"python":    {inline: "c", value: "WXQ", module: 'm'},
	"perl":      {inline: "eE", value: "IMmxdDFC", digits: "l0", inplace: 'i', check: 'c'},
	"ruby":      {inline: "e", value: "rICEFxWK", digits: "l0", inplace: 'i', check: 'c'},
	"node":      {inline: "ep", long: []string{"eval", "print"}, value: "r", longVal: []string{"require", "import", "loader", "experimental-loader", "input-type", "conditions", "env-file"}, check: 'c'},
	"php":       {inline: "rBRE", value: "fdctzF", check: 'l', server: 'S'},
	"lua":       {inline: "e", value: "l"},
	"Rscript":   {inline: "e"},
	"julia":     {inline: "eE", value: "JLCtp"},
	"groovy":    {inline: "e"},
	"osascript": {inline: "e"},
	"ipython":   {inline: "c", value: "m"},
	"tclsh":     {},
}

func langOf(name string) (lang, bool) {
	switch {
	case strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy"):
		return langs["python"], true
	case name == "nodejs":
		return langs["node"], true
	case name == "wish":
		return langs["tclsh"], true
	}
	l, ok := langs[name]
	return l, ok
}

func ruleInterpreter(k *cmd) {
	if judge.OnlyInfo(k.Args) || len(k.Args) == 1 && k.Args[0].Known && (k.Args[0].Val == "-v" && (k.Name == "node" || k.Name == "perl" || k.Name == "php")) {
		k.Add(Safe, "prints version or help")
		return
	}
	if k.Name == "bun" || k.Name == "deno" {
		k.Add(Moderate, "runs code")
		return
	}
	lg, _ := langOf(k.Name)
	c := interpCall{lg: lg}
	if k.interpOptions(&c) {
		return
	}
	var ops []judge.Arg
	if c.i < len(k.Args) {
		ops = k.Args[c.i:]
	}
	switch {
	case c.module != "":
		k.pythonModule(c.module, ops)
		return
	case len(c.code) > 0:
		for _, code := range c.code {
			k.inlineCode(code)
		}
		if c.inplace {
			for _, f := range ops {
				k.Write(f)
			}
		}
		return
	case c.check && len(ops) > 0:
		k.Add(Safe, "checks syntax only")
		return
	}
	if len(ops) > 0 && !stdinPath(ops[0]) {
		k.interpScript(ops, c.inplace)
		return
	}
	k.interpStdin()
}

// interpCall is what an interpreter's options say it is to run.
type interpCall struct {
	lg      lang
	i       int         // the index of the first operand
	code    []judge.Arg // code given inline (-c, -e)
	module  string
	inplace bool // -i: the operands are files it rewrites
	check   bool // only checks the syntax
}

// interpOptions reads the interpreter's options into c, and reports
// whether they alone settled the verdict (--version).
func (k *cmd) interpOptions(c *interpCall) bool {
	args := k.Args
	for ; c.i < len(args); c.i++ {
		a := args[c.i]
		if !a.Known || len(a.Val) < 2 || a.Val[0] != '-' {
			return false
		}
		if a.Val == "--" {
			c.i++
			return false
		}
		if strings.HasPrefix(a.Val, "--") {
			if k.interpLong(c, a.Val[2:]) {
				return true
			}
			continue
		}
		if k.interpShort(c, a.Val) {
			return false
		}
	}
	return false
}

// interpLong reads one long option (without its dashes), and reports
// whether it settled the verdict.
func (k *cmd) interpLong(c *interpCall, opt string) bool {
	name, val, eq := strings.Cut(opt, "=")
	take := func() judge.Arg {
		if eq {
			return judge.LiteralArg(val)
		}
		if c.i+1 < len(k.Args) {
			c.i++
			return k.Args[c.i]
		}
		return judge.LiteralArg("")
	}
	switch {
	case contains(c.lg.long, name):
		c.code = append(c.code, take())
	case contains(c.lg.longVal, name):
		take()
	case name == "version" || name == "help":
		k.Add(Safe, "prints version or help")
		return true
	case name == "check" && k.Name == "node":
		c.check = true
	}
	return false
}

// interpShort reads a cluster of short options (-Wc code), and reports
// whether the options end there: what follows is the program's own
// arguments (after -c code or -m module).
func (k *cmd) interpShort(c *interpCall, v string) bool {
	lg := c.lg
	for j := 1; j < len(v); j++ {
		ch := v[j]
		rest := v[j+1:]
		takeVal := func() judge.Arg {
			if rest != "" {
				return judge.LiteralArg(rest)
			}
			if c.i+1 < len(k.Args) {
				c.i++
				return k.Args[c.i]
			}
			return judge.LiteralArg("")
		}
		switch {
		case strings.IndexByte(lg.inline, ch) >= 0:
			c.code = append(c.code, takeVal())
			if k.Name != "perl" && k.Name != "ruby" {
				c.i++
				return true
			}
			return false
		case lg.module != 0 && ch == lg.module:
			m := takeVal()
			c.module = m.Val
			if !m.Known {
				c.module = m.Text
			}
			c.i++
			return true
		case lg.inplace != 0 && ch == lg.inplace:
			c.inplace = true
			return false
		case lg.check != 0 && ch == lg.check:
			c.check = true
		case lg.server != 0 && ch == lg.server:
			takeVal()
			k.Add(Moderate, "serves files over the network")
			k.R.Flags.Net = true
			return false
		case strings.IndexByte(lg.value, ch) >= 0:
			takeVal()
			return false
		case strings.IndexByte(lg.digits, ch) >= 0:
			for j+1 < len(v) && v[j+1] >= '0' && v[j+1] <= '9' {
				j++
			}
		}
	}
	return false
}

// interpScript judges running the program file ops[0].
func (k *cmd) interpScript(ops []judge.Arg, inplace bool) {
	script := ops[0]
	if !script.Known {
		k.Add(Dangerous, "runs code produced at run time: "+script.Text)
		return
	}
	if k.runsFile(script) {
		return
	}
	k.Add(Moderate, "runs the program "+script.Val)
	if inplace {
		for _, f := range ops[1:] {
			k.Write(f)
		}
	}
}

// interpStdin judges an interpreter given neither code nor a program: it
// reads its standard input.
func (k *cmd) interpStdin() {
	in := k.W.Stdin()
	switch in.In {
	case judge.InText:
		if in.Known {
			k.inlineCode(judge.LiteralArg(in.Text))
		} else {
			k.Add(Moderate, "runs inline code, which is not analysed")
		}
	case judge.InPipe:
		if in.Net {
			k.Add(Dangerous, "runs a download: pipes the network into an interpreter")
			return
		}
		k.Add(Moderate, "runs code read from a pipe")
	case judge.InFile:
		k.Add(Moderate, "runs a program from a file")
	default:
		k.Add(Moderate, "starts an interactive interpreter")
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// shellOuts are the ways inline code commonly runs other programs. Inline
// code is never analysed; these only raise it from moderate to dangerous.
var shellOuts = []string{
	"system(", "system (", "os.system", "subprocess", "popen", "spawn", "child_process", "execsync",
	"execfile", "shell_exec", "passthru", "proc_open", "pty.", "qx", "exec(", "exec ", "eval(",
	"__import__", "os.exec", "kernel.", "io.popen", "\"|", "'|", "|-", "-|", "runtime.getruntime", "`",
	"processbuilder", "do shell script",
}

// netHints mark inline code that reaches the network.
var netHints = []string{"http://", "https://", "urllib", "requests", "fetch(", "socket", "net.", "lwp", "http.get", "open-uri"}

// inlineCode judges code given on the command line or in a here-doc.
func (k *cmd) inlineCode(code judge.Arg) {
	if !code.Known {
		k.Add(Dangerous, "runs inline code built at run time: "+code.Text)
		return
	}
	low := strings.ToLower(code.Val)
	for _, s := range shellOuts {
		if strings.Contains(low, s) {
			k.Add(Dangerous, "inline code runs other commands, which cannot be analysed")
			return
		}
	}
	for _, s := range netHints {
		if strings.Contains(low, s) {
			k.Add(Moderate, "inline code reaches the network")
			k.R.Flags.Net = true
			return
		}
	}
	k.Add(Moderate, "runs inline code, which is not analysed")
}

func (k *cmd) pythonModule(module string, ops []judge.Arg) {
	k.R.Verb = "-m " + module
	switch module {
	case "pip", "pip3":
		k.R.Program = "pip"
		k.judgeAs("pip", ops)
	case "json.tool", "pydoc", "tabnanny", "site", "platform", "sysconfig":
		k.Add(Safe, "prints information")
	case "http.server", "SimpleHTTPServer", "smtpd", "ftplib":
		k.Add(Moderate, "serves files over the network")
		k.R.Flags.Net = true
	case "venv", "virtualenv", "ensurepip":
		k.Add(Moderate, "creates a virtual environment")
	case "pytest", "unittest", "doctest", "nose":
		k.Add(Moderate, "runs tests, which run project code")
	default:
		k.Add(Moderate, "runs the module "+module)
	}
}

// Awk.

func ruleAwk(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	sandbox := judge.HasOpt(opts, "--sandbox", "-S")
	var progs []judge.Arg
	for _, o := range opts {
		switch {
		case o.Is("-f", "--file", "-E", "--exec"):
			k.Add(Moderate, "runs an awk program from a file")
		case o.Is("-i", "--include"):
			k.Add(Moderate, "runs an awk library from a file")
		case o.Is("-l", "--load"):
			k.Add(Dangerous, "loads a native extension")
		case o.Is("-e", "--source"):
			progs = append(progs, o.Val)
		case o.Is("-d", "-o", "-p", "--dump-variables", "--pretty-print", "--profile"):
			k.Add(Moderate, "writes a file of its own")
		}
	}
	if len(progs) == 0 && !judge.HasOpt(opts, "-f", "--file", "-E", "--exec") {
		if len(ops) == 0 {
			k.Add(Safe, "does nothing: no program")
			return
		}
		progs = append(progs, ops[0])
	}
	for _, p := range progs {
		if !p.Known {
			k.Add(Dangerous, "runs an awk program only known at run time: "+p.Text)
			continue
		}
		if sandbox {
			continue
		}
		execs, writes, files := sublang.Awk(p.Val)
		if execs {
			k.Add(Dangerous, "the awk program runs commands, which cannot be analysed")
		}
		for _, f := range files {
			k.Write(judge.LiteralArg(f))
		}
		if writes {
			k.Add(Moderate, "the awk program writes files named at run time")
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "filters text")
	}
}

// Sed.

func ruleSed(k *cmd) {
	sp := judge.Spec{
		ShortVal: "efl",
		ShortOpt: "i",
		LongVal:  []string{"expression", "file", "line-length"},
	}
	opts, ops := sp.Scan(k.Args)
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "an argument only known at run time could be a sed command that runs programs: "+a.Text)
		return
	}
	var scripts []judge.Arg
	inPlace, sandbox := false, false
	for _, o := range opts {
		switch {
		case o.Is("-e", "--expression"):
			scripts = append(scripts, o.Val)
		case o.Is("-f", "--file"):
			k.Add(Moderate, "runs a sed script from a file")
		case o.Is("-i", "--in-place"):
			inPlace = true
		case o.Is("--sandbox"):
			sandbox = true
		}
	}
	if len(scripts) == 0 && !judge.HasOpt(opts, "-f", "--file") {
		if len(ops) == 0 {
			k.Add(Safe, "does nothing: no script")
			return
		}
		scripts, ops = ops[:1], ops[1:]
	}
	for _, s := range scripts {
		if !s.Known {
			k.Add(Dangerous, "runs a sed script only known at run time: "+s.Text)
			continue
		}
		writes, reads, execs, ok := sublang.Sed(s.Val)
		switch {
		case !ok:
			k.Add(Dangerous, "cannot analyse the sed script")
		case sandbox:
		default:
			if execs {
				k.Add(Dangerous, "the sed script runs commands")
			}
			for _, w := range writes {
				k.Write(judge.LiteralArg(w))
			}
			for _, r := range reads {
				if p, ok := k.W.Resolve(judge.LiteralArg(r)); ok && k.W.Secret(p) {
					k.Add(Dangerous, "touches a secret: "+k.W.Show(p))
				}
			}
		}
	}
	if inPlace {
		if len(ops) == 0 {
			k.Add(Moderate, "edits files in place")
		}
		for _, f := range ops {
			if l, reason := k.W.WriteTo(f); reason != "" {
				k.Add(l, judge.RephraseWrite("edits in place", reason))
			}
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "filters text")
	}
}

// Find.

func ruleFind(k *cmd) {
	starts, expr := findStarts(k.Args)
	if a, bad := judge.UnknownArgs(expr); bad {
		k.Add(Dangerous, "an argument only known at run time could add -exec or -delete: "+a.Text)
		return
	}
	// The paths find hands to -exec stand in for what it finds: put the
	// worst start point in front of {}.
	base := starts[0]
	for _, s := range starts {
		if pl, _ := k.W.Where(s); pl != judge.PlaceWorkspace {
			base = s
			break
		}
	}
	filtered := false
	for j := 0; j < len(expr); j++ {
		v := expr[j].Val
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j = k.findExec(expr, j, base)
		case "-delete":
			k.findDelete(starts, filtered)
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if j+1 < len(expr) {
				k.Write(expr[j+1])
				j++
			}
		case "-depth", "-maxdepth", "-mindepth", "-xdev", "-mount", "-follow", "-print", "-print0",
			"-noleaf", "-daystart", "-ignore_readdir_race", "-regextype", "-nowarn", "-warn":
			if v == "-maxdepth" || v == "-mindepth" || v == "-regextype" {
				j++
			}
		default:
			if strings.HasPrefix(v, "-") {
				filtered = true
			}
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "searches for files")
	}
}

// findStarts splits find's arguments into its start points (. when none)
// and its expression, past the leading options -H -L -P -D x -Ox.
func findStarts(args []judge.Arg) (starts, expr []judge.Arg) {
	i := 0
	for i < len(args) && args[i].Known {
		v := args[i].Val
		if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") {
			i++
			continue
		}
		if v == "-D" {
			i += 2
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		a := args[i]
		if a.FlagUnknown() {
			break
		}
		if a.Known && (strings.HasPrefix(a.Val, "-") || a.Val == "(" || a.Val == "!" || a.Val == ")" || a.Val == ",") {
			break
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = []judge.Arg{judge.LiteralArg(".")}
	}
	return starts, args[min(i, len(args)):]
}

// findExec judges the command of -exec (and its kin) at expr[j], with
// base standing in for what find finds, and returns the index of the ;
// or + that ends it.
func (k *cmd) findExec(expr []judge.Arg, j int, base judge.Arg) int {
	end := j + 1
	for end < len(expr) && !(expr[end].Known && (expr[end].Val == ";" || expr[end].Val == "+")) {
		end++
	}
	inner := make([]judge.Arg, 0, end-j-1)
	for _, a := range expr[j+1 : end] {
		if a.Known && strings.Contains(a.Val, "{}") {
			b := a
			b.Val = strings.ReplaceAll(a.Val, "{}", joinPath(base, "{}"))
			b.Known = base.Known
			b.Lead = !base.Known
			inner = append(inner, b)
			continue
		}
		inner = append(inner, a)
	}
	k.Add(Moderate, "runs a command for each file found ("+expr[j].Val+")")
	k.NestedArgv(inner)
	return end
}

// findDelete judges -delete: everything under the start points when no
// test comes before it (filtered), else files somewhere under them.
func (k *cmd) findDelete(starts []judge.Arg, filtered bool) {
	if !filtered {
		for _, s := range starts {
			k.Remove(s, "deletes")
		}
		k.Add(Dangerous, "deletes everything it finds, with no test before -delete")
		return
	}
	for _, s := range starts {
		pl, shown := k.W.Where(s)
		switch pl {
		case judge.PlaceWorkspace, judge.PlaceTemp:
			k.Add(Moderate, "deletes files it finds under "+shown)
		case judge.PlaceUnknown:
			k.Add(Dangerous, "deletes files under a path only known at run time: "+s.Text)
		default:
			k.Add(Dangerous, "deletes files outside the workspace: "+shown)
		}
	}
}

// joinPath puts a start point in front of a name: find hands -exec paths
// that begin with the start point.
func joinPath(start judge.Arg, name string) string {
	v := start.Val
	if !start.Known {
		v = start.Text
	}
	if strings.HasSuffix(v, "/") {
		return v + name
	}
	return v + "/" + name
}

func ruleFd(k *cmd) {
	sp := k.ValueOpts
	for i, a := range k.Args {
		if a.Known && (a.Val == "-x" || a.Val == "--exec" || a.Val == "-X" || a.Val == "--exec-batch") {
			end := i + 1
			for end < len(k.Args) && !(k.Args[end].Known && k.Args[end].Val == ";") {
				end++
			}
			inner := append([]judge.Arg{}, k.Args[i+1:end]...)
			if len(inner) > 0 {
				inner = append(inner, judge.StdinArg)
			}
			k.Add(Moderate, "runs a command for each file found")
			k.NestedArgv(inner)
			return
		}
	}
	opts, _ := sp.Scan(k.Args)
	if judge.HasOpt(opts, "--exec", "--exec-batch", "-x", "-X") {
		k.Add(Dangerous, "runs a command for each file found, which cannot be analysed")
		return
	}
	k.Add(Safe, "searches for files")
}

func ruleRg(k *cmd) {
	sp := k.ValueOpts
	opts, _ := sp.Scan(k.Args)
	if a, bad := judge.UnknownArgs(k.Args); bad {
		k.Add(Dangerous, "an argument only known at run time could be --pre, which runs programs: "+a.Text)
		return
	}
	for _, o := range opts {
		if o.Is("--pre") {
			k.Add(Moderate, "runs a preprocessor on every file searched")
			if o.Has {
				k.NestedArgv([]judge.Arg{o.Val, judge.StdinArg})
			}
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "searches text")
	}
}

// stdinPath reports whether a script argument names standard input.
func stdinPath(a judge.Arg) bool {
	if !a.Known {
		return false
	}
	switch a.Val {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// runsFile judges running a script file: a file descriptor or a file this
// line downloaded cannot be analysed.
func (k *cmd) runsFile(a judge.Arg) bool {
	if strings.HasPrefix(a.Val, "/dev/fd/") || strings.HasPrefix(a.Val, "/proc/") {
		k.Add(Dangerous, "runs a script from a file descriptor, which cannot be analysed")
		return true
	}
	if p, ok := k.W.Resolve(a); ok && k.W.Downloaded(p) {
		k.Add(Dangerous, "runs a file downloaded in this line")
		return true
	}
	return false
}
