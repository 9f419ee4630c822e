package shell

import (
	"path"
	"slices"
	"strings"
)

// Build tools, package managers and other programs with subcommands.

// goValueFlags are the go command's flags that take a value, so that
// the value (go build -o out) is not taken for an operand.
var goValueFlags = set("C", "o", "p", "asmflags", "buildmode", "compiler", "gccgoflags", "gcflags",
	"installsuffix", "ldflags", "mod", "modfile", "overlay", "pgo", "pkgdir", "tags", "toolexec", "exec",
	"vettool", "run", "skip", "bench", "benchtime", "count", "coverpkg", "covermode", "coverprofile", "cpu",
	"cpuprofile", "fuzz", "fuzztime", "fuzzminimizetime", "list", "memprofile", "memprofilerate",
	"blockprofile", "blockprofilerate", "mutexprofile", "mutexprofilefraction", "outputdir", "parallel",
	"shuffle", "timeout", "trace", "vet", "f", "reuse", "debug-actiongraph", "debug-runtime-trace",
	"debug-trace")

// goFlag is one flag of the go command: -name=value, -name value or -name.
type goFlag struct {
	name string
	val  arg
	has  bool
}

// goFlags splits go's arguments into flags and the other words. Flags
// are looked for everywhere, since go test takes them after the packages
// too; a program's own arguments after go run's package are read as go's,
// which errs on the strict side.
func goFlags(args []arg) (flags []goFlag, others []arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.known && !a.lead && strings.HasPrefix(a.val, "-") {
			// -name=$(...): the flag is known, its value is not.
			if name, _, ok := strings.Cut(a.val, "="); ok && len(name) > 1 {
				_, text, _ := strings.Cut(a.text, "=")
				flags = append(flags, goFlag{name: strings.TrimPrefix(name[1:], "-"), val: arg{text: text}, has: true})
				continue
			}
		}
		if !a.known || len(a.val) < 2 || a.val[0] != '-' || a.val == "--" {
			others = append(others, a)
			continue
		}
		name := strings.TrimPrefix(a.val[1:], "-")
		f := goFlag{name: name}
		if n, v, ok := strings.Cut(name, "="); ok {
			f.name, f.has = n, true
			f.val = literalArg(v)
		} else if goValueFlags[name] && i+1 < len(args) {
			i++
			f.val, f.has = args[i], true
		}
		flags = append(flags, f)
	}
	return flags, others
}

func ruleGo(k *cmd) {
	if len(k.args) == 0 || onlyInfo(k.args) {
		k.add(Safe, "prints help")
		return
	}
	verb := k.args[0].val
	if !k.args[0].known {
		k.add(Dangerous, "the go verb is only known at run time: "+k.args[0].text)
		return
	}
	k.r.verb = verb
	rest := k.args[1:]
	flags, others := goFlags(rest)
	k.goBuildFlags(flags)
	if v, ok := goFlagNamed(flags, "C"); ok {
		if pl, shown := k.c.where(k.x.f, v); pl != placeWorkspace && pl != placeTemp {
			k.add(Moderate, "works in another directory: "+shown)
		}
	}
	if k.verbs.NetworkVerbs[verb] {
		k.r.fl.net = true
	}
	switch verb {
	case "build", "vet", "list", "doc", "version", "env", "help":
		k.goReads(verb, flags, others)
	case "fmt", "fix":
		if hasGoFlag(flags, "n") {
			k.add(Safe, "prints what it would do")
			return
		}
		k.add(Moderate, "rewrites Go source files")
	case "test", "run":
		for _, name := range []string{"o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir"} {
			if v, ok := goFlagNamed(flags, name); ok {
				k.write(v)
			}
		}
		if verb == "test" {
			k.add(Moderate, "runs tests, which run project code")
		} else {
			k.add(Moderate, "runs a program")
		}
	case "mod":
		sub := ""
		if len(rest) > 0 && rest[0].known {
			sub = rest[0].val
		}
		switch sub {
		case "graph", "why", "verify":
			k.add(Safe, "inspects modules")
		default:
			k.r.fl.net = true
			k.add(Moderate, "changes or downloads modules")
		}
	default:
		if why := k.verbs.Moderate[verb]; why != "" {
			k.add(Moderate, why)
			return
		}
		k.add(Moderate, "runs the go command")
	}
}

// goFlagNamed returns the value of the go flag name, and whether it was given.
func goFlagNamed(flags []goFlag, name string) (arg, bool) {
	for _, f := range flags {
		if f.name == name {
			return f.val, true
		}
	}
	return arg{}, false
}

func hasGoFlag(flags []goFlag, name string) bool {
	_, ok := goFlagNamed(flags, name)
	return ok
}

// goReads judges the verbs that build or inspect without running project
// code, unless their flags say otherwise (go env -w, go list -m -u).
func (k *cmd) goReads(verb string, flags []goFlag, others []arg) {
	if verb == "env" && (hasGoFlag(flags, "w") || hasGoFlag(flags, "u")) {
		k.goEnvWrite(others)
		return
	}
	if verb == "list" && hasGoFlag(flags, "u") && hasGoFlag(flags, "m") {
		k.add(Moderate, "reaches the network")
		return
	}
	if a, bad := unknownArgs(others); bad {
		k.add(Moderate, "an argument only known at run time could be a flag that runs a program (-toolexec, -vettool): "+a.text)
	}
	for _, name := range []string{"o", "coverprofile", "cpuprofile", "memprofile", "trace"} {
		if v, ok := goFlagNamed(flags, name); ok {
			k.writeInside(v, "writes the build output into")
		}
	}
	if len(k.r.reasons) == 0 {
		k.add(Safe, "builds or inspects Go code without running it")
	}
}

// goBuildFlags judges the flags that make the go command run a program of
// someone's choosing or write where it should not: -toolexec, -exec,
// -vettool, -compiler, -overlay, and the compiler, assembler and linker
// flags passed through -gcflags, -asmflags, -ldflags and -gccgoflags.
// GOFLAGS holds the same flags.
func (k *cmd) goBuildFlags(flags []goFlag) {
	for _, f := range flags {
		switch f.name {
		case "toolexec", "exec":
			if f.has {
				k.runsProgram(f.val, "-"+f.name, true)
			}
		case "vettool":
			if f.has {
				k.runsProgram(f.val, "-vettool", false)
			}
		case "compiler":
			if !f.val.known || f.val.val != "gc" {
				k.add(Moderate, "-compiler builds with another compiler, found on PATH: "+f.val.text)
			}
		case "overlay":
			k.add(Moderate, "-overlay builds files named in a JSON file in place of the sources")
		case "gcflags", "asmflags", "ldflags":
			k.goToolFlags(f.name, f.val)
		case "gccgoflags":
			k.ccFlags(f.val, "-gccgoflags")
		}
	}
}

// goToolFlags judges the flags go hands its compiler, assembler or
// linker. -X and the debugging and optimisation flags change only the
// output; the linker's -extld and -extar name programs it runs,
// -extldflags and -linkmode=external hand the link to the C toolchain,
// and -o and the profile flags write files.
func (k *cmd) goToolFlags(flag string, v arg) {
	what := "-" + flag
	if !v.known {
		if strings.Contains(v.val, "-ext") {
			k.add(Dangerous, what+" names another linker or its flags, only known at run time: "+v.text)
			return
		}
		k.add(Moderate, what+" is only known at run time, and could name another linker or write files: "+v.text)
		return
	}
	s := v.val
	if s != "" && s[0] != '-' {
		// [pattern=]flags: the pattern names the packages the flags apply to.
		if i := strings.IndexByte(s, '='); i >= 0 {
			s = s[i+1:]
		}
	}
	fields, ok := splitQuoted(s)
	if !ok {
		k.add(Moderate, what+" has unbalanced quotes: "+v.text)
		return
	}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 2 || f[0] != '-' {
			continue
		}
		name, val, eq := strings.Cut(strings.TrimPrefix(f[1:], "-"), "=")
		take := func() string {
			if eq {
				return val
			}
			if i+1 < len(fields) && (fields[i+1] == "" || fields[i+1][0] != '-' || name == "extldflags") {
				i++
				return fields[i]
			}
			return ""
		}
		switch name {
		case "extld", "extar":
			if flag == "ldflags" {
				k.runsProgram(literalArg(take()), what+" -"+name, true)
			}
		case "extldflags":
			if flag == "ldflags" {
				k.ccFlags(literalArg(take()), what+" -extldflags")
			}
		case "linkmode":
			if v := take(); v != "internal" && v != "auto" && flag == "ldflags" {
				k.add(Moderate, what+" -linkmode="+v+" links with the C toolchain, which runs programs named in its settings")
			}
		case "I":
			if flag == "ldflags" {
				k.add(Moderate, what+" -I sets the program that loads the binary whenever it runs: "+take())
			}
		case "o", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "traceprofile", "trace", "tmpdir",
			"bench", "asmhdr", "linkobj", "benchmarkprofile", "capturehostobjs":
			w := take()
			b := literalArg(w)
			b.home = strings.HasPrefix(w, "~")
			k.writeInside(b, what+" -"+name+" writes into")
		case "json":
			if _, dest, ok := strings.Cut(take(), "file://"); ok {
				k.writeInside(literalArg(dest), what+" -json writes into")
			}
		}
		// Other flags (-X, -s, -w, -N, -l, -trimpath...) change only the
		// output. Their values are skipped as words that are not flags;
		// a word starting with a dash is always read as a flag, which
		// errs on the strict side.
	}
}

// ccFlags judges flags handed to the C compiler or linker (CGO_CFLAGS,
// -extldflags, -gccgoflags). Flags in the environment escape the checks
// go makes on #cgo lines, and a few make the compiler load or run a
// program: plug-ins, -wrapper, -B, -specs, a linker by path.
func (k *cmd) ccFlags(v arg, what string) {
	if !v.known {
		k.add(Moderate, what+" is only known at run time, and could make the C compiler run a program: "+v.text)
		return
	}
	fields, _ := splitQuoted(v.val)
	if len(fields) == 0 {
		return
	}
	for _, f := range fields {
		lf := strings.ToLower(f)
		if strings.Contains(lf, "plugin") || strings.HasPrefix(f, "-wrapper") || strings.HasPrefix(f, "-B") ||
			strings.HasPrefix(f, "-specs") || strings.HasPrefix(f, "--specs") || f == "-load" ||
			strings.HasPrefix(f, "--ld-path") || strings.HasPrefix(f, "-fuse-ld=") && strings.Contains(f, "/") {
			k.add(Dangerous, what+" makes the C compiler load or run another program: "+f)
			return
		}
	}
	k.add(Moderate, what+" hands flags to the C compiler or linker, and some flags make them run other programs")
}

// runsProgram judges an option or variable naming a program that another
// tool runs (go vet -vettool, go build -toolexec, the linker's -extld,
// CC). At least moderate; dangerous when the program is only known at
// run time or lies where a moderate command of this session could have
// written it (the workspace, a temporary directory). cmdline says the
// value is a command line (go splits -toolexec and -exec into words),
// which is then judged as a command of its own.
func (k *cmd) runsProgram(v arg, what string, cmdline bool) {
	if !v.known {
		k.add(Dangerous, what+" runs a program only known at run time: "+v.text)
		return
	}
	prog := v.val
	if cmdline {
		fields, ok := splitQuoted(v.val)
		if !ok {
			k.add(Dangerous, what+" names a command with unbalanced quotes: "+v.text)
			return
		}
		if len(fields) == 0 {
			return
		}
		prog = fields[0]
	}
	if prog == "" {
		return
	}
	if strings.Contains(prog, "/") && !systemBin[path.Dir(path.Clean(prog))] {
		b := literalArg(prog)
		b.home = strings.HasPrefix(prog, "~")
		switch pl, shown := k.c.where(k.x.f, b); pl {
		case placeOutside:
			k.add(Moderate, what+" runs a program by path: "+shown)
		case placeWorkspace, placeTemp:
			k.add(Dangerous, what+" runs a program from the workspace or a temporary directory (commands here can write it): "+shown)
		default:
			k.add(Dangerous, what+" runs a program only known at run time: "+shown)
		}
	} else {
		k.add(Moderate, what+" runs another program: "+prog)
	}
	if cmdline {
		k.nestedScript(v, what+" runs a command")
	} else {
		k.nestedArgv([]arg{literalArg(prog)})
	}
}

// goEnvWrite judges go env -w and -u, which change the settings of every
// later go command: a setting that would make one go command run another
// program, or reach elsewhere, is planted for all of them.
func (k *cmd) goEnvWrite(ops []arg) {
	scratch := &res{}
	for _, a := range ops {
		if !a.known {
			k.add(Dangerous, "go env -w sets a value only known at run time: "+a.text)
			return
		}
		name, val, ok := strings.Cut(a.val, "=")
		if !ok {
			continue // go env -u NAME
		}
		k.c.envVar(k.x, name, literalArg(val), scratch)
	}
	if scratch.lvl > Safe {
		k.add(Dangerous, "go env -w makes a setting permanent for every later go command: "+strings.Join(scratch.reasons, "; "))
		return
	}
	k.add(Moderate, "changes Go's settings")
}

// splitQuoted splits s into words at blanks, keeping quoted runs together
// and removing the quotes, as go splits -toolexec, -gcflags and CC. ok is
// false when a quote is left open.
func splitQuoted(s string) (words []string, ok bool) {
	var b strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, b.String())
	}
	return words, true
}

func ruleFormatter(k *cmd) {
	for _, a := range k.args {
		if !a.known {
			continue
		}
		switch a.val {
		case "-w", "-i", "--in-place", "--write", "--fix", "-fix":
			k.add(Moderate, "rewrites files")
			return
		}
	}
	switch k.name {
	case "black", "autopep8", "yapf", "isort", "rustfmt":
		for _, a := range k.args {
			if a.known && (a.val == "--check" || a.val == "--diff" || a.val == "-d" || a.val == "--version") {
				k.add(Safe, "checks formatting")
				return
			}
		}
		if k.name == "black" || k.name == "isort" || k.name == "rustfmt" {
			k.add(Moderate, "rewrites files")
			return
		}
	}
	k.add(Safe, "prints formatted code")
}

// ruleCargo reads cargo's verbs from its commands.rules entry; only fmt,
// which --check makes read-only, is decided here.
func ruleCargo(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, *k.valueOpts)
	k.r.verb = verb
	if k.verbs.NetworkVerbs[verb] {
		k.r.fl.net = true
	}
	switch {
	case verb == "" || k.verbs.Safe[verb] != "":
		k.add(Safe, "prints project information")
	case verb == "fmt":
		for _, a := range k.args[i+1:] {
			if a.known && a.val == "--check" {
				k.add(Safe, "checks formatting")
				return
			}
		}
		k.add(Moderate, "rewrites source files")
	case k.verbs.Dangerous[verb] != "":
		k.add(Dangerous, k.verbs.Dangerous[verb])
	case k.verbs.Moderate[verb] != "":
		k.add(Moderate, k.verbs.Moderate[verb])
	default:
		k.add(Moderate, "builds or runs project code (build scripts and macros run)")
	}
}

// verbFromTable judges verb by the verb lines of the program's
// commands.rules entry (dangerous, safe, moderate; network-verbs reach
// the network), and reports whether the entry lists it.
func (k *cmd) verbFromTable(verb string) bool {
	if k.verbs.NetworkVerbs[verb] {
		k.r.fl.net = true
	}
	switch {
	case k.verbs.Dangerous[verb] != "":
		k.add(Dangerous, k.verbs.Dangerous[verb])
	case k.verbs.Safe[verb] != "":
		k.add(Safe, k.verbs.Safe[verb])
	case k.verbs.Moderate[verb] != "":
		k.add(Moderate, k.verbs.Moderate[verb])
	default:
		return false
	}
	return true
}

// packageVerb finds the verb of a package manager (after the options its
// entry lists as taking a value) and the arguments after it; done says
// a lone --version or --help settled the verdict.
func (k *cmd) packageVerb() (verb string, rest []arg, done bool) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return "", nil, true
	}
	verb, i := verbAt(k.args, *k.valueOpts)
	k.r.verb = verb
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	return verb, rest, false
}

// judgeAs judges args as the arguments of the program name, with its
// table entry, into this command's verdict (uv pip, python -m pip).
func (k *cmd) judgeAs(name string, args []arg) {
	r, _ := lookup(name)
	r(&cmd{c: k.c, x: k.x, name: name, args: args, r: k.r, hops: k.hops})
}

// firstIs reports whether the first of args is known and one of words.
func firstIs(args []arg, words ...string) bool {
	return len(args) > 0 && args[0].known && slices.Contains(words, args[0].val)
}

// ruleNpm reads npm's verbs from its commands.rules entry; config,
// version and audit, whose operands decide, are judged here.
func ruleNpm(k *cmd) {
	verb, rest, done := k.packageVerb()
	switch {
	case done:
	case verb == "audit":
		k.r.fl.net = true
		if len(rest) == 0 {
			k.add(Moderate, "reaches the package registry")
			return
		}
		k.add(Moderate, "installs or removes packages (install scripts run)")
	case k.verbFromTable(verb):
	case verb == "config" || verb == "c":
		if firstIs(rest, "get", "list", "ls") {
			k.add(Safe, "reads npm configuration")
			return
		}
		k.add(Moderate, "changes npm configuration")
	case verb == "version" && len(rest) == 0:
		k.add(Safe, "prints versions")
	default:
		k.add(Moderate, "runs package scripts, which run project code")
	}
}

// ruleYarn reads yarn's and pnpm's verbs from their commands.rules entry;
// config and npm, whose operands decide, are judged here.
func ruleYarn(k *cmd) {
	verb, rest, done := k.packageVerb()
	switch {
	case done:
	case verb == "config":
		if firstIs(rest, "get", "list") {
			k.add(Safe, "reads configuration")
			return
		}
		k.add(Moderate, "changes configuration")
	case verb == "npm":
		k.r.fl.net = true
		if firstIs(rest, "publish", "login", "logout") {
			k.add(Dangerous, "publishes to or changes a package registry")
			return
		}
		k.add(Moderate, "talks to the package registry")
	case verb == "":
		// yarn alone installs.
		k.r.fl.net = true
		k.add(Moderate, "installs or removes packages (install scripts run)")
	case k.verbFromTable(verb):
	default:
		k.add(Moderate, "runs package scripts, which run project code")
	}
}

// rulePip reads pip's verbs from its commands.rules entry; config and
// cache, whose operands decide, are judged here.
func rulePip(k *cmd) {
	verb, rest, done := k.packageVerb()
	switch {
	case done:
	case verb == "":
		k.add(Safe, "prints package information")
	case verb == "config" || verb == "cache":
		if firstIs(rest, "list", "get", "dir", "info", "debug") {
			k.add(Safe, "prints configuration")
			return
		}
		k.add(Moderate, "changes pip's configuration or cache")
	case k.verbFromTable(verb):
	default:
		k.add(Moderate, "runs pip")
	}
}

// ruleUv reads uv's verbs from its commands.rules entry; uv pip is
// judged as pip.
func ruleUv(k *cmd) {
	verb, rest, done := k.packageVerb()
	switch {
	case done:
	case verb == "pip":
		k.judgeAs("pip", rest)
		k.r.verb = "pip " + k.r.verb
	case k.verbFromTable(verb):
	default:
		k.add(Moderate, "installs packages or runs project code")
	}
}

func ruleMake(k *cmd) {
	sp := k.valueOpts
	if onlyInfo(k.args) || len(k.args) == 1 && k.args[0].known && k.args[0].val == "-v" {
		k.add(Safe, "prints version or help")
		return
	}
	opts, ops := sp.scan(k.args)
	for _, o := range ops {
		if o.known && !strings.Contains(o.val, "=") {
			k.r.verb = o.val
			break
		}
	}
	if hasOpt(opts, "--eval") {
		k.add(Moderate, "evaluates make code from its options")
	}
	k.add(Moderate, "runs the recipes of a makefile, which run commands")
}

func ruleDocker(k *cmd) {
	sp := *k.valueOpts
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, sp)
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].known {
		sub = rest[0].val
	}
	switch {
	case k.verbs.Safe[verb] != "":
		k.add(Safe, k.verbs.Safe[verb])
		if verb == "search" {
			k.r.fl.net = true
			k.add(Moderate, "reaches the network")
		}
	case k.verbs.Dangerous[verb] != "":
		k.add(Dangerous, k.verbs.Dangerous[verb])
	case verb == "push" || verb == "login" || verb == "logout":
		k.r.fl.net = true
		k.add(Dangerous, "publishes images or changes registry credentials")
	case verb == "system" && sub == "prune", verb == "volume" && (sub == "rm" || sub == "prune"),
		verb == "image" && (sub == "rm" || sub == "prune"), verb == "container" && (sub == "rm" || sub == "prune" || sub == "kill"),
		verb == "network" && (sub == "rm" || sub == "prune"), verb == "builder" && sub == "prune",
		verb == "compose" && (sub == "rm" || sub == "kill"):
		k.add(Dangerous, "destroys containers, images or volumes")
	case verb == "compose" && sub == "down":
		for _, a := range rest {
			if a.known && (a.val == "-v" || a.val == "--volumes" || a.val == "--rmi") {
				k.add(Dangerous, "destroys volumes or images")
				return
			}
		}
		k.add(Moderate, "stops containers")
	case (verb == "compose" || verb == "container" || verb == "image" || verb == "volume" || verb == "network" ||
		verb == "context" || verb == "system" || verb == "buildx" || verb == "manifest") &&
		(sub == "ls" || sub == "ps" || sub == "logs" || sub == "config" || sub == "images" || sub == "top" ||
			sub == "version" || sub == "inspect" || sub == "show" || sub == "df" || sub == "info" || sub == "list" || sub == "history" || sub == "port"):
		k.add(Safe, "inspects containers")
	default:
		if verb == "run" || verb == "create" || verb == "container" && (sub == "run" || sub == "create") || verb == "compose" {
			k.dockerRun(rest)
		}
		k.r.fl.net = k.r.fl.net || verb == "pull" || verb == "build" || verb == "run"
		k.add(Moderate, "runs or changes containers")
	}
}

// dockerRun looks for the options that hand a container the host.
func (k *cmd) dockerRun(args []arg) {
	for i, a := range args {
		if !a.known {
			continue
		}
		v := a.val
		val := ""
		if j := strings.IndexByte(v, '='); j >= 0 {
			v, val = v[:j], v[j+1:]
		} else if i+1 < len(args) && args[i+1].known {
			val = args[i+1].val
		}
		switch v {
		case "--privileged":
			k.add(Dangerous, "runs a privileged container, which controls the host")
		case "--cap-add", "--device", "--security-opt":
			k.add(Dangerous, "gives a container host capabilities or devices")
		case "--pid", "--userns", "--uts", "--ipc", "--cgroupns":
			if val == "host" {
				k.add(Dangerous, "shares the host's namespaces with a container")
			}
		case "-v", "--volume", "--mount":
			src := val
			if v == "--mount" {
				for _, f := range strings.Split(val, ",") {
					if s, ok := strings.CutPrefix(f, "source="); ok {
						src = s
					} else if s, ok := strings.CutPrefix(f, "src="); ok {
						src = s
					}
				}
			} else {
				src, _, _ = strings.Cut(val, ":")
			}
			if strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, ".") {
				b := literalArg(src)
				b.home = strings.HasPrefix(src, "~")
				if pl, shown := k.c.where(k.x.f, b); pl != placeWorkspace && pl != placeTemp {
					k.add(Dangerous, "mounts a host path outside the workspace into a container: "+shown)
				}
			}
		}
	}
}

// ruleKubectl reads kubectl's verbs from its commands.rules entry; what
// get and describe read (secrets) is decided here.
func ruleKubectl(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, *k.valueOpts)
	k.r.verb = verb
	k.r.fl.net = true
	if why := k.verbs.Dangerous[verb]; why != "" {
		k.add(Dangerous, why)
		return
	}
	if verb == "get" || verb == "describe" {
		for _, a := range k.args[min(i+1, len(k.args)):] {
			if a.known && (a.val == "secret" || a.val == "secrets" || strings.HasPrefix(a.val, "secret/") || strings.HasPrefix(a.val, "secrets/")) {
				k.add(Dangerous, "reads cluster secrets")
				return
			}
		}
	}
	switch {
	case k.verbs.Safe[verb] != "":
		k.r.fl.net = false
		k.add(Safe, k.verbs.Safe[verb])
	case k.verbs.Moderate[verb] != "":
		k.add(Moderate, k.verbs.Moderate[verb])
	default:
		k.add(Moderate, "changes cluster resources")
	}
}

func ruleTerraform(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, *k.valueOpts)
	k.r.verb = verb
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].known {
		sub = rest[0].val
	}
	for _, a := range rest {
		if a.known && (a.val == "-destroy" || a.val == "--destroy") {
			k.add(Dangerous, "destroys infrastructure")
			return
		}
	}
	switch {
	case verb == "destroy" || verb == "force-unlock" || verb == "state" && (sub == "rm" || sub == "push" || sub == "replace-provider") || verb == "workspace" && sub == "delete":
		k.add(Dangerous, "destroys infrastructure or its state")
	case verb == "version" || verb == "validate" || verb == "fmt" && hasDashOpt(rest, "-check") || verb == "providers" || verb == "graph" || verb == "state" && (sub == "list" || sub == "show") || verb == "show":
		k.add(Safe, "prints infrastructure information")
	case verb == "apply":
		k.r.fl.net = true
		k.add(Moderate, "changes infrastructure")
	default:
		k.r.fl.net = true
		k.add(Moderate, "plans or changes infrastructure")
	}
}

func hasDashOpt(args []arg, name string) bool {
	for _, a := range args {
		if a.known && (a.val == name || strings.HasPrefix(a.val, name+"=")) {
			return true
		}
	}
	return false
}

func ruleGh(k *cmd) {
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	verb, i := verbAt(k.args, *k.valueOpts)
	k.r.verb = verb
	k.r.fl.net = true
	var rest []arg
	if i < len(k.args) {
		rest = k.args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].known {
		sub = rest[0].val
	}
	switch {
	case verb == "auth" && (sub == "token" || hasDashOpt(rest, "--show-token") || hasDashOpt(rest, "-t")),
		verb == "secret", verb == "ssh-key", verb == "gpg-key", verb == "variable" && sub != "list":
		k.add(Dangerous, "reads or changes credentials")
	case sub == "delete" || sub == "archive" || verb == "repo" && sub == "rename" || verb == "api" && (hasDashOpt(rest, "-X") || hasDashOpt(rest, "--method")):
		k.add(Dangerous, "deletes or changes repositories on the server")
	default:
		k.add(Moderate, "talks to the code host")
	}
}

func ruleDpkg(k *cmd) {
	for _, a := range k.args {
		if !a.known {
			continue
		}
		switch a.val {
		case "-r", "--remove", "-P", "--purge", "--force-all", "--force-remove-essential":
			k.add(Dangerous, "removes system packages")
			return
		case "-i", "--install", "--unpack", "--configure", "--set-selections", "-x", "--extract", "-b", "--build":
			k.add(Moderate, "installs or unpacks packages")
			return
		}
	}
	k.add(Safe, "queries packages")
}

func rulePacman(k *cmd) {
	for _, a := range k.args {
		if !a.known || !strings.HasPrefix(a.val, "-") || strings.HasPrefix(a.val, "--") {
			continue
		}
		switch a.val[1] {
		case 'R':
			k.add(Dangerous, "removes system packages")
			return
		case 'Q', 'F', 'T':
			k.add(Safe, "queries packages")
			return
		case 'S':
			if strings.ContainsAny(a.val[2:], "si") && !strings.ContainsAny(a.val[2:], "uy") {
				k.add(Safe, "queries packages")
				return
			}
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "installs or updates system packages")
}

func ruleRpm(k *cmd) {
	for _, a := range k.args {
		if !a.known || !strings.HasPrefix(a.val, "-") {
			continue
		}
		switch {
		case a.val == "-e" || a.val == "--erase" || strings.HasPrefix(a.val, "-e") && !strings.HasPrefix(a.val, "--"):
			k.add(Dangerous, "removes system packages")
			return
		case strings.HasPrefix(a.val, "-q") || a.val == "--query" || a.val == "-V" || a.val == "--verify":
			k.add(Safe, "queries packages")
			return
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "installs or updates system packages")
}

func ruleCompiler(k *cmd) {
	for i, a := range k.args {
		if !a.known {
			continue
		}
		switch {
		case a.val == "--noEmit" && k.name == "tsc":
			k.add(Safe, "type-checks without writing")
			return
		case a.val == "-o" || a.val == "--outfile" || a.val == "--outDir" || a.val == "--out-dir" || a.val == "-d" && k.name == "javac":
			if i+1 < len(k.args) {
				k.write(k.args[i+1])
			}
		case strings.HasPrefix(a.val, "-o") && len(a.val) > 2 && k.name != "tsc":
			k.write(literalArg(a.val[2:]))
		case strings.HasPrefix(a.val, "--outfile=") || strings.HasPrefix(a.val, "--outdir="):
			_, v, _ := strings.Cut(a.val, "=")
			k.write(literalArg(v))
		}
	}
	if onlyInfo(k.args) {
		k.add(Safe, "prints version or help")
		return
	}
	k.add(Moderate, "compiles code and writes the output")
}

func ruleYq(k *cmd) {
	for _, a := range k.args {
		if a.known && (a.val == "-i" || a.val == "--inplace" || strings.HasPrefix(a.val, "-i") && !strings.HasPrefix(a.val, "--") && len(a.val) <= 3) {
			k.add(Moderate, "edits files in place")
			return
		}
	}
	k.add(Safe, "filters YAML")
}
