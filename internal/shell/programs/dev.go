package programs

import (
	"path"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

// Build tools, package managers and other programs with subcommands.

// goValueFlags are the go command's flags that take a value, so that
// the value (go build -o out) is not taken for an operand.
var goValueFlags = judge.Set("C", "o", "p", "asmflags", "buildmode", "compiler", "gccgoflags", "gcflags",
	"installsuffix", "ldflags", "mod", "modfile", "overlay", "pgo", "pkgdir", "tags", "toolexec", "exec",
	"vettool", "run", "skip", "bench", "benchtime", "count", "coverpkg", "covermode", "coverprofile", "cpu",
	"cpuprofile", "fuzz", "fuzztime", "fuzzminimizetime", "list", "memprofile", "memprofilerate",
	"blockprofile", "blockprofilerate", "mutexprofile", "mutexprofilefraction", "outputdir", "parallel",
	"shuffle", "timeout", "trace", "vet", "f", "reuse", "debug-actiongraph", "debug-runtime-trace",
	"debug-trace")

// goFlag is one flag of the go command: -name=value, -name value or -name.
type goFlag struct {
	name string
	val  judge.Arg
	has  bool
}

// goFlags splits go's arguments into flags and the other words. Flags
// are looked for everywhere, since go test takes them after the packages
// too; a program's own arguments after go run's package are read as go's,
// which errs on the strict side.
func goFlags(args []judge.Arg) (flags []goFlag, others []judge.Arg) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.Known && !a.Lead && strings.HasPrefix(a.Val, "-") {
			// -name=$(...): the flag is known, its value is not.
			if name, _, ok := strings.Cut(a.Val, "="); ok && len(name) > 1 {
				_, text, _ := strings.Cut(a.Text, "=")
				flags = append(flags, goFlag{name: strings.TrimPrefix(name[1:], "-"), val: judge.Arg{Text: text}, has: true})
				continue
			}
		}
		if !a.Known || len(a.Val) < 2 || a.Val[0] != '-' || a.Val == "--" {
			others = append(others, a)
			continue
		}
		name := strings.TrimPrefix(a.Val[1:], "-")
		f := goFlag{name: name}
		if n, v, ok := strings.Cut(name, "="); ok {
			f.name, f.has = n, true
			f.val = judge.LiteralArg(v)
		} else if goValueFlags[name] && i+1 < len(args) {
			i++
			f.val, f.has = args[i], true
		}
		flags = append(flags, f)
	}
	return flags, others
}

func ruleGo(k *cmd) {
	if len(k.Args) == 0 || judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints help")
		return
	}
	verb := k.Args[0].Val
	if !k.Args[0].Known {
		k.Add(Dangerous, "the go verb is only known at run time: "+k.Args[0].Text)
		return
	}
	k.R.Verb = verb
	rest := k.Args[1:]
	flags, others := goFlags(rest)
	k.goBuildFlags(flags)
	if v, ok := goFlagNamed(flags, "C"); ok {
		if pl, shown := k.W.Where(v); pl != judge.PlaceWorkspace && pl != judge.PlaceTemp {
			k.Add(Moderate, "works in another directory: "+shown)
		}
	}
	if k.Verbs.NetworkVerbs[verb] {
		k.R.Flags.Net = true
	}
	switch verb {
	case "build", "vet", "list", "doc", "version", "env", "help":
		k.goReads(verb, flags, others)
	case "fmt", "fix":
		if hasGoFlag(flags, "n") {
			k.Add(Safe, "prints what it would do")
			return
		}
		k.Add(Moderate, "rewrites Go source files")
	case "test", "run":
		for _, name := range []string{"o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir"} {
			if v, ok := goFlagNamed(flags, name); ok {
				k.Write(v)
			}
		}
		if verb == "test" {
			k.Add(Moderate, "runs tests, which run project code")
		} else {
			k.Add(Moderate, "runs a program")
		}
	case "mod":
		sub := ""
		if len(rest) > 0 && rest[0].Known {
			sub = rest[0].Val
		}
		switch sub {
		case "graph", "why", "verify":
			k.Add(Safe, "inspects modules")
		default:
			k.R.Flags.Net = true
			k.Add(Moderate, "changes or downloads modules")
		}
	default:
		if why := k.Verbs.Moderate[verb]; why != "" {
			k.Add(Moderate, why)
			return
		}
		k.Add(Moderate, "runs the go command")
	}
}

// goFlagNamed returns the value of the go flag name, and whether it was given.
func goFlagNamed(flags []goFlag, name string) (judge.Arg, bool) {
	for _, f := range flags {
		if f.name == name {
			return f.val, true
		}
	}
	return judge.Arg{}, false
}

func hasGoFlag(flags []goFlag, name string) bool {
	_, ok := goFlagNamed(flags, name)
	return ok
}

// goReads judges the verbs that build or inspect without running project
// code, unless their flags say otherwise (go env -w, go list -m -u).
func (k *cmd) goReads(verb string, flags []goFlag, others []judge.Arg) {
	if verb == "env" && (hasGoFlag(flags, "w") || hasGoFlag(flags, "u")) {
		k.goEnvWrite(others)
		return
	}
	if verb == "list" && hasGoFlag(flags, "u") && hasGoFlag(flags, "m") {
		k.Add(Moderate, "reaches the network")
		return
	}
	if a, bad := judge.UnknownArgs(others); bad {
		k.Add(Moderate, "an argument only known at run time could be a flag that runs a program (-toolexec, -vettool): "+a.Text)
	}
	for _, name := range []string{"o", "coverprofile", "cpuprofile", "memprofile", "trace"} {
		if v, ok := goFlagNamed(flags, name); ok {
			k.WriteInside(v, "writes the build output into")
		}
	}
	if len(k.R.Reasons) == 0 {
		k.Add(Safe, "builds or inspects Go code without running it")
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
			if !f.val.Known || f.val.Val != "gc" {
				k.Add(Moderate, "-compiler builds with another compiler, found on PATH: "+f.val.Text)
			}
		case "overlay":
			k.Add(Moderate, "-overlay builds files named in a JSON file in place of the sources")
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
func (k *cmd) goToolFlags(flag string, v judge.Arg) {
	what := "-" + flag
	if !v.Known {
		if strings.Contains(v.Val, "-ext") {
			k.Add(Dangerous, what+" names another linker or its flags, only known at run time: "+v.Text)
			return
		}
		k.Add(Moderate, what+" is only known at run time, and could name another linker or write files: "+v.Text)
		return
	}
	s := v.Val
	if s != "" && s[0] != '-' {
		// [pattern=]flags: the pattern names the packages the flags apply to.
		if i := strings.IndexByte(s, '='); i >= 0 {
			s = s[i+1:]
		}
	}
	fields, ok := splitQuoted(s)
	if !ok {
		k.Add(Moderate, what+" has unbalanced quotes: "+v.Text)
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
				k.runsProgram(judge.LiteralArg(take()), what+" -"+name, true)
			}
		case "extldflags":
			if flag == "ldflags" {
				k.ccFlags(judge.LiteralArg(take()), what+" -extldflags")
			}
		case "linkmode":
			if v := take(); v != "internal" && v != "auto" && flag == "ldflags" {
				k.Add(Moderate, what+" -linkmode="+v+" links with the C toolchain, which runs programs named in its settings")
			}
		case "I":
			if flag == "ldflags" {
				k.Add(Moderate, what+" -I sets the program that loads the binary whenever it runs: "+take())
			}
		case "o", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "traceprofile", "trace", "tmpdir",
			"bench", "asmhdr", "linkobj", "benchmarkprofile", "capturehostobjs":
			w := take()
			b := judge.LiteralArg(w)
			b.Home = strings.HasPrefix(w, "~")
			k.WriteInside(b, what+" -"+name+" writes into")
		case "json":
			if _, dest, ok := strings.Cut(take(), "file://"); ok {
				k.WriteInside(judge.LiteralArg(dest), what+" -json writes into")
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
func (k *cmd) ccFlags(v judge.Arg, what string) {
	if !v.Known {
		k.Add(Moderate, what+" is only known at run time, and could make the C compiler run a program: "+v.Text)
		return
	}
	fields, _ := splitQuoted(v.Val)
	if len(fields) == 0 {
		return
	}
	for _, f := range fields {
		lf := strings.ToLower(f)
		if strings.Contains(lf, "plugin") || strings.HasPrefix(f, "-wrapper") || strings.HasPrefix(f, "-B") ||
			strings.HasPrefix(f, "-specs") || strings.HasPrefix(f, "--specs") || f == "-load" ||
			strings.HasPrefix(f, "--ld-path") || strings.HasPrefix(f, "-fuse-ld=") && strings.Contains(f, "/") {
			k.Add(Dangerous, what+" makes the C compiler load or run another program: "+f)
			return
		}
	}
	k.Add(Moderate, what+" hands flags to the C compiler or linker, and some flags make them run other programs")
}

// runsProgram judges an option or variable naming a program that another
// tool runs (go vet -vettool, go build -toolexec, the linker's -extld,
// CC). At least moderate; dangerous when the program is only known at
// run time or lies where a moderate command of this session could have
// written it (the workspace, a temporary directory). cmdline says the
// value is a command line (go splits -toolexec and -exec into words),
// which is then judged as a command of its own.
func (k *cmd) runsProgram(v judge.Arg, what string, cmdline bool) {
	if !v.Known {
		k.Add(Dangerous, what+" runs a program only known at run time: "+v.Text)
		return
	}
	prog := v.Val
	if cmdline {
		fields, ok := splitQuoted(v.Val)
		if !ok {
			k.Add(Dangerous, what+" names a command with unbalanced quotes: "+v.Text)
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
	if strings.Contains(prog, "/") && !judge.SystemBin[path.Dir(path.Clean(prog))] {
		b := judge.LiteralArg(prog)
		b.Home = strings.HasPrefix(prog, "~")
		switch pl, shown := k.W.Where(b); pl {
		case judge.PlaceOutside:
			k.Add(Moderate, what+" runs a program by path: "+shown)
		case judge.PlaceWorkspace, judge.PlaceTemp:
			k.Add(Dangerous, what+" runs a program from the workspace or a temporary directory (commands here can write it): "+shown)
		default:
			k.Add(Dangerous, what+" runs a program only known at run time: "+shown)
		}
	} else {
		k.Add(Moderate, what+" runs another program: "+prog)
	}
	if cmdline {
		k.NestedScript(v, what+" runs a command")
	} else {
		k.NestedArgv([]judge.Arg{judge.LiteralArg(prog)})
	}
}

// goEnvWrite judges go env -w and -u, which change the settings of every
// later go command: a setting that would make one go command run another
// program, or reach elsewhere, is planted for all of them.
func (k *cmd) goEnvWrite(ops []judge.Arg) {
	scratch := &judge.Result{}
	for _, a := range ops {
		if !a.Known {
			k.Add(Dangerous, "go env -w sets a value only known at run time: "+a.Text)
			return
		}
		name, val, ok := strings.Cut(a.Val, "=")
		if !ok {
			continue // go env -u NAME
		}
		EnvVar(k.W, name, judge.LiteralArg(val), scratch)
	}
	if scratch.Level > Safe {
		k.Add(Dangerous, "go env -w makes a setting permanent for every later go command: "+strings.Join(scratch.Reasons, "; "))
		return
	}
	k.Add(Moderate, "changes Go's settings")
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
	for _, a := range k.Args {
		if !a.Known {
			continue
		}
		switch a.Val {
		case "-w", "-i", "--in-place", "--write", "--fix", "-fix":
			k.Add(Moderate, "rewrites files")
			return
		}
	}
	switch k.Name {
	case "black", "autopep8", "yapf", "isort", "rustfmt":
		for _, a := range k.Args {
			if a.Known && (a.Val == "--check" || a.Val == "--diff" || a.Val == "-d" || a.Val == "--version") {
				k.Add(Safe, "checks formatting")
				return
			}
		}
		if k.Name == "black" || k.Name == "isort" || k.Name == "rustfmt" {
			k.Add(Moderate, "rewrites files")
			return
		}
	}
	k.Add(Safe, "prints formatted code")
}

// ruleCargo reads cargo's verbs from its commands.rules entry; only fmt,
// which --check makes read-only, is decided here.
func ruleCargo(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	verb, i := judge.VerbAt(k.Args, *k.ValueOpts)
	k.R.Verb = verb
	if k.Verbs.NetworkVerbs[verb] {
		k.R.Flags.Net = true
	}
	switch {
	case verb == "" || k.Verbs.Safe[verb] != "":
		k.Add(Safe, "prints project information")
	case verb == "fmt":
		for _, a := range k.Args[i+1:] {
			if a.Known && a.Val == "--check" {
				k.Add(Safe, "checks formatting")
				return
			}
		}
		k.Add(Moderate, "rewrites source files")
	case k.Verbs.Dangerous[verb] != "":
		k.Add(Dangerous, k.Verbs.Dangerous[verb])
	case k.Verbs.Moderate[verb] != "":
		k.Add(Moderate, k.Verbs.Moderate[verb])
	default:
		k.Add(Moderate, "builds or runs project code (build scripts and macros run)")
	}
}

// verbFromTable judges verb by the verb lines of the program's
// commands.rules entry (dangerous, safe, moderate; network-verbs reach
// the network), and reports whether the entry lists it.
func (k *cmd) verbFromTable(verb string) bool {
	if k.Verbs.NetworkVerbs[verb] {
		k.R.Flags.Net = true
	}
	switch {
	case k.Verbs.Dangerous[verb] != "":
		k.Add(Dangerous, k.Verbs.Dangerous[verb])
	case k.Verbs.Safe[verb] != "":
		k.Add(Safe, k.Verbs.Safe[verb])
	case k.Verbs.Moderate[verb] != "":
		k.Add(Moderate, k.Verbs.Moderate[verb])
	default:
		return false
	}
	return true
}

// packageVerb finds the verb of a package manager (after the options its
// entry lists as taking a value) and the arguments after it; done says
// a lone --version or --help settled the verdict.
func (k *cmd) packageVerb() (verb string, rest []judge.Arg, done bool) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return "", nil, true
	}
	verb, i := judge.VerbAt(k.Args, *k.ValueOpts)
	k.R.Verb = verb
	if i < len(k.Args) {
		rest = k.Args[i+1:]
	}
	return verb, rest, false
}

// judgeAs judges args as the arguments of the program name, with its
// table entry, into this command's verdict (uv pip, python -m pip).
func (k *cmd) judgeAs(name string, args []judge.Arg) {
	r, _ := lookup(name)
	r(&cmd{judge.Cmd{W: k.W, Name: name, Args: args, R: k.R, Hops: k.Hops}})
}

// firstIs reports whether the first of args is known and one of words.
func firstIs(args []judge.Arg, words ...string) bool {
	return len(args) > 0 && args[0].Known && slices.Contains(words, args[0].Val)
}

// ruleNpm reads npm's verbs from its commands.rules entry; config,
// version and audit, whose operands decide, are judged here.
func ruleNpm(k *cmd) {
	verb, rest, done := k.packageVerb()
	switch {
	case done:
	case verb == "audit":
		k.R.Flags.Net = true
		if len(rest) == 0 {
			k.Add(Moderate, "reaches the package registry")
			return
		}
		k.Add(Moderate, "installs or removes packages (install scripts run)")
	case k.verbFromTable(verb):
	case verb == "config" || verb == "c":
		if firstIs(rest, "get", "list", "ls") {
			k.Add(Safe, "reads npm configuration")
			return
		}
		k.Add(Moderate, "changes npm configuration")
	case verb == "version" && len(rest) == 0:
		k.Add(Safe, "prints versions")
	default:
		k.Add(Moderate, "runs package scripts, which run project code")
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
			k.Add(Safe, "reads configuration")
			return
		}
		k.Add(Moderate, "changes configuration")
	case verb == "npm":
		k.R.Flags.Net = true
		if firstIs(rest, "publish", "login", "logout") {
			k.Add(Dangerous, "publishes to or changes a package registry")
			return
		}
		k.Add(Moderate, "talks to the package registry")
	case verb == "":
		// yarn alone installs.
		k.R.Flags.Net = true
		k.Add(Moderate, "installs or removes packages (install scripts run)")
	case k.verbFromTable(verb):
	default:
		k.Add(Moderate, "runs package scripts, which run project code")
	}
}

// rulePip reads pip's verbs from its commands.rules entry; config and
// cache, whose operands decide, are judged here.
func rulePip(k *cmd) {
	verb, rest, done := k.packageVerb()
	switch {
	case done:
	case verb == "":
		k.Add(Safe, "prints package information")
	case verb == "config" || verb == "cache":
		if firstIs(rest, "list", "get", "dir", "info", "debug") {
			k.Add(Safe, "prints configuration")
			return
		}
		k.Add(Moderate, "changes pip's configuration or cache")
	case k.verbFromTable(verb):
	default:
		k.Add(Moderate, "runs pip")
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
		k.R.Verb = "pip " + k.R.Verb
	case k.verbFromTable(verb):
	default:
		k.Add(Moderate, "installs packages or runs project code")
	}
}

func ruleMake(k *cmd) {
	sp := k.ValueOpts
	if judge.OnlyInfo(k.Args) || len(k.Args) == 1 && k.Args[0].Known && k.Args[0].Val == "-v" {
		k.Add(Safe, "prints version or help")
		return
	}
	opts, ops := sp.Scan(k.Args)
	for _, o := range ops {
		if o.Known && !strings.Contains(o.Val, "=") {
			k.R.Verb = o.Val
			break
		}
	}
	if judge.HasOpt(opts, "--eval") {
		k.Add(Moderate, "evaluates make code from its options")
	}
	k.Add(Moderate, "runs the recipes of a makefile, which run commands")
}

func ruleDocker(k *cmd) {
	sp := *k.ValueOpts
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	verb, i := judge.VerbAt(k.Args, sp)
	k.R.Verb = verb
	var rest []judge.Arg
	if i < len(k.Args) {
		rest = k.Args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].Known {
		sub = rest[0].Val
	}
	switch {
	case k.Verbs.Safe[verb] != "":
		k.Add(Safe, k.Verbs.Safe[verb])
		if verb == "search" {
			k.R.Flags.Net = true
			k.Add(Moderate, "reaches the network")
		}
	case k.Verbs.Dangerous[verb] != "":
		k.Add(Dangerous, k.Verbs.Dangerous[verb])
	case verb == "push" || verb == "login" || verb == "logout":
		k.R.Flags.Net = true
		k.Add(Dangerous, "publishes images or changes registry credentials")
	case verb == "system" && sub == "prune", verb == "volume" && (sub == "rm" || sub == "prune"),
		verb == "image" && (sub == "rm" || sub == "prune"), verb == "container" && (sub == "rm" || sub == "prune" || sub == "kill"),
		verb == "network" && (sub == "rm" || sub == "prune"), verb == "builder" && sub == "prune",
		verb == "compose" && (sub == "rm" || sub == "kill"):
		k.Add(Dangerous, "destroys containers, images or volumes")
	case verb == "compose" && sub == "down":
		for _, a := range rest {
			if a.Known && (a.Val == "-v" || a.Val == "--volumes" || a.Val == "--rmi") {
				k.Add(Dangerous, "destroys volumes or images")
				return
			}
		}
		k.Add(Moderate, "stops containers")
	case (verb == "compose" || verb == "container" || verb == "image" || verb == "volume" || verb == "network" ||
		verb == "context" || verb == "system" || verb == "buildx" || verb == "manifest") &&
		(sub == "ls" || sub == "ps" || sub == "logs" || sub == "config" || sub == "images" || sub == "top" ||
			sub == "version" || sub == "inspect" || sub == "show" || sub == "df" || sub == "info" || sub == "list" || sub == "history" || sub == "port"):
		k.Add(Safe, "inspects containers")
	default:
		if verb == "run" || verb == "create" || verb == "container" && (sub == "run" || sub == "create") || verb == "compose" {
			k.dockerRun(rest)
		}
		k.R.Flags.Net = k.R.Flags.Net || verb == "pull" || verb == "build" || verb == "run"
		k.Add(Moderate, "runs or changes containers")
	}
}

// dockerRun looks for the options that hand a container the host.
func (k *cmd) dockerRun(args []judge.Arg) {
	for i, a := range args {
		if !a.Known {
			continue
		}
		v := a.Val
		val := ""
		if j := strings.IndexByte(v, '='); j >= 0 {
			v, val = v[:j], v[j+1:]
		} else if i+1 < len(args) && args[i+1].Known {
			val = args[i+1].Val
		}
		switch v {
		case "--privileged":
			k.Add(Dangerous, "runs a privileged container, which controls the host")
		case "--cap-add", "--device", "--security-opt":
			k.Add(Dangerous, "gives a container host capabilities or devices")
		case "--pid", "--userns", "--uts", "--ipc", "--cgroupns":
			if val == "host" {
				k.Add(Dangerous, "shares the host's namespaces with a container")
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
				b := judge.LiteralArg(src)
				b.Home = strings.HasPrefix(src, "~")
				if pl, shown := k.W.Where(b); pl != judge.PlaceWorkspace && pl != judge.PlaceTemp {
					k.Add(Dangerous, "mounts a host path outside the workspace into a container: "+shown)
				}
			}
		}
	}
}

// ruleKubectl reads kubectl's verbs from its commands.rules entry; what
// get and describe read (secrets) is decided here.
func ruleKubectl(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	verb, i := judge.VerbAt(k.Args, *k.ValueOpts)
	k.R.Verb = verb
	k.R.Flags.Net = true
	if why := k.Verbs.Dangerous[verb]; why != "" {
		k.Add(Dangerous, why)
		return
	}
	if verb == "get" || verb == "describe" {
		for _, a := range k.Args[min(i+1, len(k.Args)):] {
			if a.Known && (a.Val == "secret" || a.Val == "secrets" || strings.HasPrefix(a.Val, "secret/") || strings.HasPrefix(a.Val, "secrets/")) {
				k.Add(Dangerous, "reads cluster secrets")
				return
			}
		}
	}
	switch {
	case k.Verbs.Safe[verb] != "":
		k.R.Flags.Net = false
		k.Add(Safe, k.Verbs.Safe[verb])
	case k.Verbs.Moderate[verb] != "":
		k.Add(Moderate, k.Verbs.Moderate[verb])
	default:
		k.Add(Moderate, "changes cluster resources")
	}
}

func ruleTerraform(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	verb, i := judge.VerbAt(k.Args, *k.ValueOpts)
	k.R.Verb = verb
	var rest []judge.Arg
	if i < len(k.Args) {
		rest = k.Args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].Known {
		sub = rest[0].Val
	}
	for _, a := range rest {
		if a.Known && (a.Val == "-destroy" || a.Val == "--destroy") {
			k.Add(Dangerous, "destroys infrastructure")
			return
		}
	}
	switch {
	case verb == "destroy" || verb == "force-unlock" || verb == "state" && (sub == "rm" || sub == "push" || sub == "replace-provider") || verb == "workspace" && sub == "delete":
		k.Add(Dangerous, "destroys infrastructure or its state")
	case verb == "version" || verb == "validate" || verb == "fmt" && hasDashOpt(rest, "-check") || verb == "providers" || verb == "graph" || verb == "state" && (sub == "list" || sub == "show") || verb == "show":
		k.Add(Safe, "prints infrastructure information")
	case verb == "apply":
		k.R.Flags.Net = true
		k.Add(Moderate, "changes infrastructure")
	default:
		k.R.Flags.Net = true
		k.Add(Moderate, "plans or changes infrastructure")
	}
}

func hasDashOpt(args []judge.Arg, name string) bool {
	for _, a := range args {
		if a.Known && (a.Val == name || strings.HasPrefix(a.Val, name+"=")) {
			return true
		}
	}
	return false
}

func ruleGh(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	verb, i := judge.VerbAt(k.Args, *k.ValueOpts)
	k.R.Verb = verb
	k.R.Flags.Net = true
	var rest []judge.Arg
	if i < len(k.Args) {
		rest = k.Args[i+1:]
	}
	sub := ""
	if len(rest) > 0 && rest[0].Known {
		sub = rest[0].Val
	}
	switch {
	case verb == "auth" && (sub == "token" || hasDashOpt(rest, "--show-token") || hasDashOpt(rest, "-t")),
		verb == "secret", verb == "ssh-key", verb == "gpg-key", verb == "variable" && sub != "list":
		k.Add(Dangerous, "reads or changes credentials")
	case sub == "delete" || sub == "archive" || verb == "repo" && sub == "rename" || verb == "api" && (hasDashOpt(rest, "-X") || hasDashOpt(rest, "--method")):
		k.Add(Dangerous, "deletes or changes repositories on the server")
	default:
		k.Add(Moderate, "talks to the code host")
	}
}

func ruleDpkg(k *cmd) {
	for _, a := range k.Args {
		if !a.Known {
			continue
		}
		switch a.Val {
		case "-r", "--remove", "-P", "--purge", "--force-all", "--force-remove-essential":
			k.Add(Dangerous, "removes system packages")
			return
		case "-i", "--install", "--unpack", "--configure", "--set-selections", "-x", "--extract", "-b", "--build":
			k.Add(Moderate, "installs or unpacks packages")
			return
		}
	}
	k.Add(Safe, "queries packages")
}

func rulePacman(k *cmd) {
	for _, a := range k.Args {
		if !a.Known || !strings.HasPrefix(a.Val, "-") || strings.HasPrefix(a.Val, "--") {
			continue
		}
		switch a.Val[1] {
		case 'R':
			k.Add(Dangerous, "removes system packages")
			return
		case 'Q', 'F', 'T':
			k.Add(Safe, "queries packages")
			return
		case 'S':
			if strings.ContainsAny(a.Val[2:], "si") && !strings.ContainsAny(a.Val[2:], "uy") {
				k.Add(Safe, "queries packages")
				return
			}
		}
	}
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.Add(Moderate, "installs or updates system packages")
}

func ruleRpm(k *cmd) {
	for _, a := range k.Args {
		if !a.Known || !strings.HasPrefix(a.Val, "-") {
			continue
		}
		switch {
		case a.Val == "-e" || a.Val == "--erase" || strings.HasPrefix(a.Val, "-e") && !strings.HasPrefix(a.Val, "--"):
			k.Add(Dangerous, "removes system packages")
			return
		case strings.HasPrefix(a.Val, "-q") || a.Val == "--query" || a.Val == "-V" || a.Val == "--verify":
			k.Add(Safe, "queries packages")
			return
		}
	}
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.Add(Moderate, "installs or updates system packages")
}

func ruleCompiler(k *cmd) {
	for i, a := range k.Args {
		if !a.Known {
			continue
		}
		switch {
		case a.Val == "--noEmit" && k.Name == "tsc":
			k.Add(Safe, "type-checks without writing")
			return
		case a.Val == "-o" || a.Val == "--outfile" || a.Val == "--outDir" || a.Val == "--out-dir" || a.Val == "-d" && k.Name == "javac":
			if i+1 < len(k.Args) {
				k.Write(k.Args[i+1])
			}
		case strings.HasPrefix(a.Val, "-o") && len(a.Val) > 2 && k.Name != "tsc":
			k.Write(judge.LiteralArg(a.Val[2:]))
		case strings.HasPrefix(a.Val, "--outfile=") || strings.HasPrefix(a.Val, "--outdir="):
			_, v, _ := strings.Cut(a.Val, "=")
			k.Write(judge.LiteralArg(v))
		}
	}
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.Add(Moderate, "compiles code and writes the output")
}

func ruleYq(k *cmd) {
	for _, a := range k.Args {
		if a.Known && (a.Val == "-i" || a.Val == "--inplace" || strings.HasPrefix(a.Val, "-i") && !strings.HasPrefix(a.Val, "--") && len(a.Val) <= 3) {
			k.Add(Moderate, "edits files in place")
			return
		}
	}
	k.Add(Safe, "filters YAML")
}
