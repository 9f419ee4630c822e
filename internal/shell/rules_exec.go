package shell

import (
	"strings"
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
	args := k.args
	var code []arg
	inplace, check := false, false
	module := ""
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.known || len(a.val) < 2 || a.val[0] != '-' {
			break
		}
		v := a.val
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			name, val, eq := strings.Cut(v[2:], "=")
			take := func() arg {
				if eq {
					return literalArg(val)
				}
				if i+1 < len(args) {
					i++
					return args[i]
				}
				return literalArg("")
			}
			switch {
			case contains(lg.long, name):
				code = append(code, take())
			case contains(lg.longVal, name):
				take()
			case name == "version" || name == "help":
				k.add(Safe, "prints version or help")
				return
			case name == "check" && k.name == "node":
				check = true
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j]
			rest := v[j+1:]
			takeVal := func() arg {
				if rest != "" {
					return literalArg(rest)
				}
				if i+1 < len(args) {
					i++
					return args[i]
				}
				return literalArg("")
			}
			switch {
			case strings.IndexByte(lg.inline, ch) >= 0:
				code = append(code, takeVal())
				if k.name != "perl" && k.name != "ruby" {
					i++
					break options
				}
				continue options
			case lg.module != 0 && ch == lg.module:
				m := takeVal()
				module = m.val
				if !m.known {
					module = m.text
				}
				i++
				break options
			case lg.inplace != 0 && ch == lg.inplace:
				inplace = true
				continue options
			case lg.check != 0 && ch == lg.check:
				check = true
			case lg.server != 0 && ch == lg.server:
				takeVal()
				k.add(Moderate, "serves files over the network")
				k.r.fl.net = true
				continue options
			case strings.IndexByte(lg.value, ch) >= 0:
				takeVal()
				continue options
			case strings.IndexByte(lg.digits, ch) >= 0:
				for j+1 < len(v) && v[j+1] >= '0' && v[j+1] <= '9' {
					j++
				}
			}
		}
	}
	var ops []arg
	if i < len(args) {
		ops = args[i:]
	}
	switch {
	case module != "":
		k.pythonModule(module, ops)
		return
	case len(code) > 0:
		for _, c := range code {
			k.inlineCode(c)
		}
		if inplace {
			for _, f := range ops {
				k.write(f)
			}
		}
		return
	case check && len(ops) > 0:
		k.add(Safe, "checks syntax only")
		return
	}
	if len(ops) > 0 && !stdinPath(ops[0]) {
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
		return
	}
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
		rulePip(&cmd{c: k.c, x: k.x, name: "pip", args: ops, r: k.r, hops: k.hops})
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
	sp := spec{shortVal: "FvfeiElW", shortOpt: "dop", longVal: []string{"field-separator", "assign", "file", "source", "include", "load", "exec"}}
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
		execs, writes, files := awkProgram(p.val)
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

// awkProgram scans an awk program for ways to run commands (system(),
// pipes, @load) and to write files (print > file). files are the targets
// written as string literals; writes is set for any other target.
func awkProgram(s string) (execs, writes bool, files []string) {
	inPrint, depth := false, 0
	prev := byte(0) // last significant character
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			inPrint = false
			prev = '\n'
			continue
		case ch == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			prev = '"'
			continue
		case ch == '/' && !isOperandEnd(prev):
			for i++; i < len(s) && s[i] != '/'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			prev = '/'
			continue
		case ch == ' ' || ch == '\t':
			continue
		case ch == '\n' || ch == ';' || ch == '{' || ch == '}':
			inPrint, depth = false, 0
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case ch == '|':
			if i+1 < len(s) && s[i+1] == '|' {
				i++
			} else {
				execs = true
			}
		case ch == '>':
			if inPrint && depth <= 0 {
				j := i + 1
				if j < len(s) && s[j] == '>' {
					j++
				}
				for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
					j++
				}
				if end := strings.IndexByte(s[min(j+1, len(s)):], '"'); j < len(s) && s[j] == '"' && end >= 0 &&
					!strings.ContainsAny(s[j+1:j+1+end], "\\") && isAwkTargetEnd(s[j+2+end:]) {
					files = append(files, s[j+1:j+1+end])
					i = j + 1 + end
					prev = '"'
					continue
				}
				writes = true
			}
		case ch == '@':
			if strings.HasPrefix(s[i:], "@load") {
				execs = true
			}
		case isIdentStart(ch):
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			switch word {
			case "print", "printf":
				inPrint, depth = true, 0
			case "system":
				rest := strings.TrimLeft(s[j:], " \t")
				if strings.HasPrefix(rest, "(") {
					execs = true
				}
			}
			i = j - 1
			prev = 'a'
			continue
		}
		prev = ch
	}
	return execs, writes, files
}

// isAwkTargetEnd reports whether a string literal after > is the whole
// target (print > "f" ...) rather than the start of a concatenation.
func isAwkTargetEnd(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || strings.ContainsRune(";}\n)", rune(rest[0]))
}

// isOperandEnd reports whether a '/' after prev is division rather than
// the start of a regular expression.
func isOperandEnd(prev byte) bool {
	return prev == 'a' || prev == ')' || prev == ']' || prev == '"' || prev == '$' || prev >= '0' && prev <= '9'
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

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
		writes, reads, execs, ok := sedScript(s.val)
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

// sedScript reads a sed script the way GNU sed does, far enough to find
// the files it writes (w, W, s///w) and reads (r, R), and whether it runs
// commands (e, s///e). ok is false when the script does not read as sed.
func sedScript(s string) (writes, reads []string, execs, ok bool) {
	i := 0
	n := len(s)
	toEOL := func() string {
		j := i
		for j < n && s[j] != '\n' {
			j++
		}
		out := strings.TrimSpace(s[i:j])
		i = j
		return out
	}
	skipRe := func(delim byte) bool {
		for ; i < n; i++ {
			switch s[i] {
			case '\\':
				i++
			case delim:
				i++
				return true
			case '\n':
				if delim != '\n' {
					return false
				}
			}
		}
		return false
	}
	addr := func() bool {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
		case i < n && s[i] == '$':
			i++
		case i < n && s[i] == '/':
			i++
			if !skipRe('/') {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		case i+1 < n && s[i] == '\\':
			d := s[i+1]
			i += 2
			if !skipRe(d) {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for i < n {
		switch s[i] {
		case ' ', '\t', '\n', ';', '{', '}':
			i++
			continue
		case '#':
			toEOL()
			continue
		}
		if !addr() {
			return nil, nil, false, false
		}
		if i < n && s[i] == ',' {
			i++
			if i < n && (s[i] == '+' || s[i] == '~') {
				i++
			}
			if !addr() {
				return nil, nil, false, false
			}
		}
		for i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '!') {
			i++
		}
		if i >= n {
			return nil, nil, false, false
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			for i < n && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case ':', 'b', 't', 'T', 'v':
			for i < n && s[i] != '\n' && s[i] != ';' {
				i++
			}
		case 'a', 'i', 'c':
			for {
				line := toEOL()
				if !strings.HasSuffix(line, "\\") || i >= n {
					break
				}
				i++
			}
		case 'r', 'R':
			reads = append(reads, toEOL())
		case 'w', 'W':
			writes = append(writes, toEOL())
		case 'e':
			execs = true
			toEOL()
		case 's':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return nil, nil, false, false
			}
			d := s[i]
			i++
			for range 2 { // the pattern, then the replacement
				if !skipRe(d) {
					return nil, nil, false, false
				}
			}
		flags:
			for i < n {
				switch f := s[i]; {
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
					i++
				case f == 'e':
					execs = true
					i++
				case f == 'w':
					i++
					writes = append(writes, toEOL())
					break flags
				default:
					break flags
				}
			}
			if i < n && !strings.ContainsRune(" \t\n;}", rune(s[i])) {
				return nil, nil, false, false
			}
		case 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return nil, nil, false, false
			}
			d := s[i]
			i++
			for range 2 { // the pattern, then the replacement
				if !skipRe(d) {
					return nil, nil, false, false
				}
			}
		default:
			return nil, nil, false, false
		}
	}
	return writes, reads, execs, true
}

// Find.

func ruleFind(k *cmd) {
	args := k.args
	// Leading options -H -L -P -D x -Ox come before the start points.
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
	var starts []arg
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
	expr := args[i:]
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
			k.add(Moderate, "runs a command for each file found ("+v+")")
			k.nestedArgv(inner)
			j = end
		case "-delete":
			if !filtered {
				for _, s := range starts {
					k.remove(s, "deletes")
				}
				k.add(Dangerous, "deletes everything it finds, with no test before -delete")
				continue
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
	sp := spec{shortVal: "exXtdEScjo", longVal: []string{"extension", "exec", "exec-batch", "type", "max-depth", "exclude", "size", "color", "threads", "owner", "changed-within", "changed-before", "search-path", "base-directory", "max-results", "ignore-file", "path-separator", "format"}}
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
	sp := spec{
		shortVal: "ABCEefgjmMrtTd",
		longVal: []string{"after-context", "before-context", "context", "encoding", "regexp", "file", "glob", "iglob",
			"threads", "max-count", "max-columns", "replace", "type", "type-not", "max-depth", "pre", "pre-glob",
			"sort", "sortr", "type-add", "colors", "color", "path-separator", "ignore-file", "max-filesize", "engine", "field-match-separator", "field-context-separator", "context-separator", "dfa-size-limit", "regex-size-limit"},
	}
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
