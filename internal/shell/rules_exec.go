package shell

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/sublang"
)

// Shells, interpreters and the programs that carry small programs of their
// own (sed, awk, find).

func ruleShell(k *cmd) {
	args := k.args
	cmdMode, stdinMode, noexec := false, false, false
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.known {
			break
		}
		v := a.val
		switch {
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			switch v {
			case "--rcfile", "--init-file":
				i++
				k.add(Moderate, "runs a start-up file")
			case "--version", "--help":
				k.add(Safe, "prints version or help")
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
	var ops []arg
	if i < len(args) {
		ops = args[i:]
	}
	switch {
	case noexec && !cmdMode:
		k.add(Safe, "checks syntax only")
	case cmdMode:
		if len(ops) == 0 {
			k.add(Safe, "does nothing: -c without a script")
			return
		}
		k.add(Safe, "runs the script given on its command line (judged on its own)")
		k.nestedScript(ops[0], "runs a script")
	case len(ops) > 0 && !stdinMode && !stdinPath(ops[0]):
		script := ops[0]
		if !script.known {
			k.add(Dangerous, "runs a script produced at run time: "+script.text)
			return
		}
		if k.runsFile(script) {
			return
		}
		k.add(Moderate, "runs the script "+script.val)
	default:
		k.stdinScript()
	}
}

// stdinScript judges a shell that reads its commands from standard input.
func (k *cmd) stdinScript() {
	switch k.x.in {
	case inText:
		if !k.x.textKnown {
			k.add(Dangerous, "runs a here-doc built at run time")
			return
		}
		k.add(Safe, "runs the here-doc (judged on its own)")
		k.nestedScript(literalArg(k.x.text), "runs a script")
	case inPipe:
		if k.x.netIn {
			k.add(Dangerous, "runs a download: pipes the network into a shell")
			return
		}
		k.add(Dangerous, "runs commands read from a pipe, which cannot be analysed")
	case inFile:
		k.add(Moderate, "runs a script from a file")
	default:
		k.add(Dangerous, "reads commands from standard input, which cannot be analysed")
	}
}

func ruleEval(k *cmd) {
	k.add(Dangerous, "runs a string as code")
	if len(k.args) == 0 {
		return
	}
	for _, a := range k.args {
		if !a.known {
			return
		}
	}
	k.nestedScript(literalArg(normalise(k.args)), "runs a script")
}

func ruleSource(k *cmd) {
	if len(k.args) > 0 && !k.args[0].known {
		k.add(Dangerous, "runs code produced at run time in this shell: "+k.args[0].text)
		return
	}
	k.add(Dangerous, "runs a script inside this shell, which cannot be analysed")
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
	if onlyInfo(k.args) || len(k.args) == 1 && k.args[0].known && (k.args[0].val == "-v" && (k.name == "node" || k.name == "perl" || k.name == "php")) {
		k.add(Safe, "prints version or help")
		return
	}
	if k.name == "bun" || k.name == "deno" {
		k.add(Moderate, "runs code")
		return
	}
	lg, _ := langOf(k.name)
	c := interpCall{lg: lg}
	if k.interpOptions(&c) {
		return
	}
	var ops []arg
	if c.i < len(k.args) {
		ops = k.args[c.i:]
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
				k.write(f)
			}
		}
		return
	case c.check && len(ops) > 0:
		k.add(Safe, "checks syntax only")
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
	i       int   // the index of the first operand
	code    []arg // code given inline (-c, -e)
	module  string
	inplace bool // -i: the operands are files it rewrites
	check   bool // only checks the syntax
}

// interpOptions reads the interpreter's options into c, and reports
// whether they alone settled the verdict (--version).
func (k *cmd) interpOptions(c *interpCall) bool {
	args := k.args
	for ; c.i < len(args); c.i++ {
		a := args[c.i]
		if !a.known || len(a.val) < 2 || a.val[0] != '-' {
			return false
		}
		if a.val == "--" {
			c.i++
			return false
		}
		if strings.HasPrefix(a.val, "--") {
			if k.interpLong(c, a.val[2:]) {
				return true
			}
			continue
		}
		if k.interpShort(c, a.val) {
			return false
		}
	}
	return false
}

// interpLong reads one long option (without its dashes), and reports
// whether it settled the verdict.
func (k *cmd) interpLong(c *interpCall, opt string) bool {
	name, val, eq := strings.Cut(opt, "=")
	take := func() arg {
		if eq {
			return literalArg(val)
		}
		if c.i+1 < len(k.args) {
			c.i++
			return k.args[c.i]
		}
		return literalArg("")
	}
	switch {
	case contains(c.lg.long, name):
		c.code = append(c.code, take())
	case contains(c.lg.longVal, name):
		take()
	case name == "version" || name == "help":
		k.add(Safe, "prints version or help")
		return true
	case name == "check" && k.name == "node":
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
		takeVal := func() arg {
			if rest != "" {
				return literalArg(rest)
			}
			if c.i+1 < len(k.args) {
				c.i++
				return k.args[c.i]
			}
			return literalArg("")
		}
		switch {
		case strings.IndexByte(lg.inline, ch) >= 0:
			c.code = append(c.code, takeVal())
			if k.name != "perl" && k.name != "ruby" {
				c.i++
				return true
			}
			return false
		case lg.module != 0 && ch == lg.module:
			m := takeVal()
			c.module = m.val
			if !m.known {
				c.module = m.text
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
			k.add(Moderate, "serves files over the network")
			k.r.fl.net = true
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
func (k *cmd) interpScript(ops []arg, inplace bool) {
	script := ops[0]
	if !script.known {
		k.add(Dangerous, "runs code produced at run time: "+script.text)
		return
	}
	if k.runsFile(script) {
		return
	}
	k.add(Moderate, "runs the program "+script.val)
	if inplace {
		for _, f := range ops[1:] {
			k.write(f)
		}
	}
}

// interpStdin judges an interpreter given neither code nor a program: it
// reads its standard input.
func (k *cmd) interpStdin() {
	switch k.x.in {
	case inText:
		if k.x.textKnown {
			k.inlineCode(literalArg(k.x.text))
		} else {
			k.add(Moderate, "runs inline code, which is not analysed")
		}
	case inPipe:
		if k.x.netIn {
			k.add(Dangerous, "runs a download: pipes the network into an interpreter")
			return
		}
		k.add(Moderate, "runs code read from a pipe")
	case inFile:
		k.add(Moderate, "runs a program from a file")
	default:
		k.add(Moderate, "starts an interactive interpreter")
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
func (k *cmd) inlineCode(code arg) {
	if !code.known {
		k.add(Dangerous, "runs inline code built at run time: "+code.text)
		return
	}
	low := strings.ToLower(code.val)
	for _, s := range shellOuts {
		if strings.Contains(low, s) {
			k.add(Dangerous, "inline code runs other commands, which cannot be analysed")
			return
		}
	}
	for _, s := range netHints {
		if strings.Contains(low, s) {
			k.add(Moderate, "inline code reaches the network")
			k.r.fl.net = true
			return
		}
	}
	k.add(Moderate, "runs inline code, which is not analysed")
}

func (k *cmd) pythonModule(module string, ops []arg) {
	k.r.verb = "-m " + module
	switch module {
	case "pip", "pip3":
		k.r.program = "pip"
		k.judgeAs("pip", ops)
	case "json.tool", "pydoc", "tabnanny", "site", "platform", "sysconfig":
		k.add(Safe, "prints information")
	case "http.server", "SimpleHTTPServer", "smtpd", "ftplib":
		k.add(Moderate, "serves files over the network")
		k.r.fl.net = true
	case "venv", "virtualenv", "ensurepip":
		k.add(Moderate, "creates a virtual environment")
	case "pytest", "unittest", "doctest", "nose":
		k.add(Moderate, "runs tests, which run project code")
	default:
		k.add(Moderate, "runs the module "+module)
	}
}

// Awk.

func ruleAwk(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	sandbox := hasOpt(opts, "--sandbox", "-S")
	var progs []arg
	for _, o := range opts {
		switch {
		case o.is("-f", "--file", "-E", "--exec"):
			k.add(Moderate, "runs an awk program from a file")
		case o.is("-i", "--include"):
			k.add(Moderate, "runs an awk library from a file")
		case o.is("-l", "--load"):
			k.add(Dangerous, "loads a native extension")
		case o.is("-e", "--source"):
			progs = append(progs, o.val)
		case o.is("-d", "-o", "-p", "--dump-variables", "--pretty-print", "--profile"):
			k.add(Moderate, "writes a file of its own")
		}
	}
	if len(progs) == 0 && !hasOpt(opts, "-f", "--file", "-E", "--exec") {
		if len(ops) == 0 {
			k.add(Safe, "does nothing: no program")
			return
		}
		progs = append(progs, ops[0])
	}
	for _, p := range progs {
		if !p.known {
			k.add(Dangerous, "runs an awk program only known at run time: "+p.text)
			continue
		}
		if sandbox {
			continue
		}
		execs, writes, files := sublang.Awk(p.val)
		if execs {
			k.add(Dangerous, "the awk program runs commands, which cannot be analysed")
		}
		for _, f := range files {
			k.write(literalArg(f))
		}
		if writes {
			k.add(Moderate, "the awk program writes files named at run time")
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "filters text")
	}
}

// Sed.

func ruleSed(k *cmd) {
	sp := spec{
		shortVal: "efl",
		shortOpt: "i",
		longVal:  []string{"expression", "file", "line-length"},
	}
	opts, ops := sp.scan(k.args)
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "an argument only known at run time could be a sed command that runs programs: "+a.text)
		return
	}
	var scripts []arg
	inPlace, sandbox := false, false
	for _, o := range opts {
		switch {
		case o.is("-e", "--expression"):
			scripts = append(scripts, o.val)
		case o.is("-f", "--file"):
			k.add(Moderate, "runs a sed script from a file")
		case o.is("-i", "--in-place"):
			inPlace = true
		case o.is("--sandbox"):
			sandbox = true
		}
	}
	if len(scripts) == 0 && !hasOpt(opts, "-f", "--file") {
		if len(ops) == 0 {
			k.add(Safe, "does nothing: no script")
			return
		}
		scripts, ops = ops[:1], ops[1:]
	}
	for _, s := range scripts {
		if !s.known {
			k.add(Dangerous, "runs a sed script only known at run time: "+s.text)
			continue
		}
		writes, reads, execs, ok := sublang.Sed(s.val)
		switch {
		case !ok:
			k.add(Dangerous, "cannot analyse the sed script")
		case sandbox:
		default:
			if execs {
				k.add(Dangerous, "the sed script runs commands")
			}
			for _, w := range writes {
				k.write(literalArg(w))
			}
			for _, r := range reads {
				if p, ok := k.c.resolve(k.x.f, literalArg(r)); ok && k.c.secret(p) {
					k.add(Dangerous, "touches a secret: "+k.c.show(p))
				}
			}
		}
	}
	if inPlace {
		if len(ops) == 0 {
			k.add(Moderate, "edits files in place")
		}
		for _, f := range ops {
			if l, reason := k.c.writeTo(k.x.f, f); reason != "" {
				k.add(l, rephraseWrite("edits in place", reason))
			}
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "filters text")
	}
}

// Find.

func ruleFind(k *cmd) {
	starts, expr := findStarts(k.args)
	if a, bad := unknownArgs(expr); bad {
		k.add(Dangerous, "an argument only known at run time could add -exec or -delete: "+a.text)
		return
	}
	// The paths find hands to -exec stand in for what it finds: put the
	// worst start point in front of {}.
	base := starts[0]
	for _, s := range starts {
		if pl, _ := k.c.where(k.x.f, s); pl != placeWorkspace {
			base = s
			break
		}
	}
	filtered := false
	for j := 0; j < len(expr); j++ {
		v := expr[j].val
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			j = k.findExec(expr, j, base)
		case "-delete":
			k.findDelete(starts, filtered)
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if j+1 < len(expr) {
				k.write(expr[j+1])
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
	if len(k.r.reasons) == 0 {
		k.add(Safe, "searches for files")
	}
}

// findStarts splits find's arguments into its start points (. when none)
// and its expression, past the leading options -H -L -P -D x -Ox.
func findStarts(args []arg) (starts, expr []arg) {
	i := 0
	for i < len(args) && args[i].known {
		v := args[i].val
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
		if a.flagUnknown() {
			break
		}
		if a.known && (strings.HasPrefix(a.val, "-") || a.val == "(" || a.val == "!" || a.val == ")" || a.val == ",") {
			break
		}
		starts = append(starts, a)
	}
	if len(starts) == 0 {
		starts = []arg{literalArg(".")}
	}
	return starts, args[min(i, len(args)):]
}

// findExec judges the command of -exec (and its kin) at expr[j], with
// base standing in for what find finds, and returns the index of the ;
// or + that ends it.
func (k *cmd) findExec(expr []arg, j int, base arg) int {
	end := j + 1
	for end < len(expr) && !(expr[end].known && (expr[end].val == ";" || expr[end].val == "+")) {
		end++
	}
	inner := make([]arg, 0, end-j-1)
	for _, a := range expr[j+1 : end] {
		if a.known && strings.Contains(a.val, "{}") {
			b := a
			b.val = strings.ReplaceAll(a.val, "{}", joinPath(base, "{}"))
			b.known = base.known
			b.lead = !base.known
			inner = append(inner, b)
			continue
		}
		inner = append(inner, a)
	}
	k.add(Moderate, "runs a command for each file found ("+expr[j].val+")")
	k.nestedArgv(inner)
	return end
}

// findDelete judges -delete: everything under the start points when no
// test comes before it (filtered), else files somewhere under them.
func (k *cmd) findDelete(starts []arg, filtered bool) {
	if !filtered {
		for _, s := range starts {
			k.remove(s, "deletes")
		}
		k.add(Dangerous, "deletes everything it finds, with no test before -delete")
		return
	}
	for _, s := range starts {
		pl, shown := k.c.where(k.x.f, s)
		switch pl {
		case placeWorkspace, placeTemp:
			k.add(Moderate, "deletes files it finds under "+shown)
		case placeUnknown:
			k.add(Dangerous, "deletes files under a path only known at run time: "+s.text)
		default:
			k.add(Dangerous, "deletes files outside the workspace: "+shown)
		}
	}
}

// joinPath puts a start point in front of a name: find hands -exec paths
// that begin with the start point.
func joinPath(start arg, name string) string {
	v := start.val
	if !start.known {
		v = start.text
	}
	if strings.HasSuffix(v, "/") {
		return v + name
	}
	return v + "/" + name
}

func ruleFd(k *cmd) {
	sp := k.valueOpts
	for i, a := range k.args {
		if a.known && (a.val == "-x" || a.val == "--exec" || a.val == "-X" || a.val == "--exec-batch") {
			end := i + 1
			for end < len(k.args) && !(k.args[end].known && k.args[end].val == ";") {
				end++
			}
			inner := append([]arg{}, k.args[i+1:end]...)
			if len(inner) > 0 {
				inner = append(inner, stdinArg)
			}
			k.add(Moderate, "runs a command for each file found")
			k.nestedArgv(inner)
			return
		}
	}
	opts, _ := sp.scan(k.args)
	if hasOpt(opts, "--exec", "--exec-batch", "-x", "-X") {
		k.add(Dangerous, "runs a command for each file found, which cannot be analysed")
		return
	}
	k.add(Safe, "searches for files")
}

func ruleRg(k *cmd) {
	sp := k.valueOpts
	opts, _ := sp.scan(k.args)
	if a, bad := unknownArgs(k.args); bad {
		k.add(Dangerous, "an argument only known at run time could be --pre, which runs programs: "+a.text)
		return
	}
	for _, o := range opts {
		if o.is("--pre") {
			k.add(Moderate, "runs a preprocessor on every file searched")
			if o.has {
				k.nestedArgv([]arg{o.val, stdinArg})
			}
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "searches text")
	}
}

// stdinPath reports whether a script argument names standard input.
func stdinPath(a arg) bool {
	if !a.known {
		return false
	}
	switch a.val {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

// runsFile judges running a script file: a file descriptor or a file this
// line downloaded cannot be analysed.
func (k *cmd) runsFile(a arg) bool {
	if strings.HasPrefix(a.val, "/dev/fd/") || strings.HasPrefix(a.val, "/proc/") {
		k.add(Dangerous, "runs a script from a file descriptor, which cannot be analysed")
		return true
	}
	if p, ok := k.c.resolve(k.x.f, a); ok && k.c.downloads[p] {
		k.add(Dangerous, "runs a file downloaded in this line")
		return true
	}
	return false
}
