package programs

import (
	"fmt"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/programs/unix"
	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// rule judges one program's arguments.
type rule func(k *cmd)

// cmd is a command being judged, with the helpers the judgements share.
type cmd struct{ judge.Cmd }

// judgements are the rules in code that commands.rules names with
// "judge RULE": each gets the program's name and the table's reason.
var judgements map[string]func(name, why string, v *rules.Verbs) rule

func init() {
	u := unix.Judgements()
	judgements = map[string]func(name, why string, v *rules.Verbs) rule{
		"print":   func(name, why string, _ *rules.Verbs) rule { return judgePrint(name, why) },
		"setsvar": func(name, why string, _ *rules.Verbs) rule { return judgeSetsVar(name, why) },
		"reader":  func(_, why string, _ *rules.Verbs) rule { return func(k *cmd) { k.Add(Safe, why) } },
		"words":   func(name, _ string, v *rules.Verbs) rule { return wordsRule(name, v) },
		"network": func(_, why string, _ *rules.Verbs) rule { return ext(unix.Network(why)) },
		"unset": plain(func(k *cmd) {
			if !k.subscripts() {
				unix.Unset(&k.Cmd)
			}
		}),
		"alias": plain(ext(u["alias"])), "awk": withVerbs(ext(u["awk"])), "busybox": plain(ruleBusybox), "cargo": withVerbs(ruleCargo),
		"cd": plain(ext(u["cd"])), "chmod": plain(ext(u["chmod"])), "command": withVerbs(ruleCommand), "compiler": plain(ruleCompiler),
		"compress": withVerbs(ext(u["compress"])), "copy": withVerbs(ext(u["copy"])), "copy-remote": withVerbs(ext(u["copy-remote"])), "create": withVerbs(ext(u["create"])),
		"crontab": plain(ext(u["crontab"])), "crypto": plain(ext(u["crypto"])), "ctl-status": plain(ext(u["ctl-status"])), "curl": withVerbs(ext(u["curl"])),
		"date": withVerbs(ext(u["date"])), "dd": plain(ext(u["dd"])), "disk": plain(ext(u["disk"])), "dmesg": plain(ext(u["dmesg"])),
		"docker": withVerbs(ruleDocker), "dpkg": plain(ruleDpkg), "enable": plain(ext(u["enable"])), "env": withVerbs(ruleEnv),
		"eval": plain(ext(u["eval"])), "exec": withVerbs(ruleExec), "fd": withVerbs(ext(u["fd"])),
		"find": plain(ext(u["find"])), "formatter": plain(ruleFormatter), "gh": withVerbs(ruleGh),
		"git": withVerbs(ruleGit), "go": withVerbs(ruleGo), "history": plain(ext(u["history"])),
		"hostname": plain(ext(u["hostname"])), "interpreter": plain(ext(u["interpreter"])), "kill": plain(ext(u["kill"])),
		"kill-by-name": plain(ext(u["kill-by-name"])), "kubectl": withVerbs(ruleKubectl), "make": withVerbs(ruleMake), "man": withVerbs(ext(u["man"])),
		"net-config": plain(ext(u["net-config"])), "nice": withVerbs(ruleNice), "npm": withVerbs(ruleNpm), "output-option": withVerbs(ext(u["output-option"])),
		"pacman": plain(rulePacman), "parallel": plain(ruleParallel), "patch": withVerbs(ext(u["patch"])), "pip": withVerbs(rulePip),
		"popd": plain(ext(u["popd"])), "privilege": withVerbs(rulePrivilege), "remote": plain(ext(u["remote"])), "rg": withVerbs(ext(u["rg"])),
		"rm": plain(ext(u["rm"])), "rpm": plain(ruleRpm), "sched": withVerbs(ruleSched), "script": withVerbs(ruleScript),
		"second-operand-writes": withVerbs(ext(u["second-operand-writes"])), "sed": plain(ext(u["sed"])), "service": plain(ext(u["service"])), "set": plain(ext(u["set"])),
		"shell": plain(ext(u["shell"])), "sort": withVerbs(ext(u["sort"])), "source": plain(ext(u["source"])), "split": withVerbs(ext(u["split"])),
		"stdbuf": withVerbs(ruleStdbuf), "sysctl": plain(ext(u["sysctl"])), "systemctl": withVerbs(ext(u["systemctl"])), "tar": withVerbs(ext(u["tar"])),
		"tee": withVerbs(ext(u["tee"])), "terraform": withVerbs(ruleTerraform), "time": withVerbs(ruleTime), "timeout": withVerbs(ruleTimeout),
		"tracer": withVerbs(ruleTracer), "trap": plain(ext(u["trap"])), "umask": plain(ext(u["umask"])), "unzip": withVerbs(ext(u["unzip"])),
		"uv": withVerbs(ruleUv), "watch": withVerbs(ruleWatch), "wget": withVerbs(ext(u["wget"])), "wisp": plain(ruleWisp),
		"wrap-plain": plain(ruleWrapPlain), "xargs": plain(ruleXargs), "yarn": withVerbs(ruleYarn), "yq": plain(ruleYq),
		"zip": withVerbs(ext(u["zip"])),
	}
}

// ext adapts a judgement of another package.
func ext(r func(*judge.Cmd)) rule { return func(k *cmd) { r(&k.Cmd) } }

// wordsRule is the judgement "words": the first argument that one of the
// entry's "on" lines names decides, else its "else" line does. A table
// entry that uses it without an else line is a broken build.
func wordsRule(name string, v *rules.Verbs) rule {
	if v.Else.Level == "" {
		panic(fmt.Sprintf("commands.rules: %s judged by words has no else line", name))
	}
	return func(k *cmd) {
		for _, a := range k.Args {
			for _, w := range v.Words {
				if w.Matches(a.Known, a.Val) {
					k.Add(levelNamed(w.Level), w.Why)
					return
				}
			}
		}
		k.Add(levelNamed(v.Else.Level), v.Else.Why)
	}
}

// plain adapts a rule that needs neither the name, the reason nor the
// table's verbs.
func plain(r rule) func(name, why string, v *rules.Verbs) rule {
	return func(string, string, *rules.Verbs) rule { return r }
}

// withVerbs adapts a rule that reads the verbs or the options its table
// entry lists.
func withVerbs(r rule) func(name, why string, v *rules.Verbs) rule {
	return func(_, _ string, v *rules.Verbs) rule {
		sp := verbSpec(v)
		return func(k *cmd) {
			k.Verbs = v
			k.ValueOpts = &sp
			r(k)
		}
	}
}

// knownRules is every exact name of commands.rules with its rule, built
// once. It is set in init because rules reach back into the walk that
// looks them up, which a variable's initializer may not. A judgement the
// table names but the code lacks is a broken build (the package's tests
// load the table), so building panics.
var knownRules func() map[string]rule

func init() {
	knownRules = sync.OnceValue(func() map[string]rule {
		m := map[string]rule{}
		rules.DefaultCommands().Each(func(name string, c rules.Command) {
			if !strings.HasSuffix(name, "*") {
				m[name] = ruleFor(name, c)
			}
		})
		return m
	})
}

// ruleFor turns a commands.rules entry into its rule.
func ruleFor(name string, c rules.Command) rule {
	switch {
	case c.Judge != "":
		j, ok := judgements[c.Judge]
		if !ok {
			panic(fmt.Sprintf("commands.rules: %s names the judgement %q, which does not exist", name, c.Judge))
		}
		return j(name, c.Why, c.Verbs)
	case c.Verbs != nil:
		return verbsRule(c.Verbs, c.Why)
	}
	return fixed(levelNamed(c.Level), c.Why)
}

// levelNamed reads a level as commands.rules spells it.
func levelNamed(s string) judge.Level {
	switch s {
	case "safe":
		return Safe
	case "moderate":
		return Moderate
	}
	return Dangerous
}

// Judge judges the command k as the tables and the judgements in code
// say; a program neither knows is judged as unknown.
func Judge(k *judge.Cmd) {
	k.Judge = Judge
	r, _ := lookup(k.Name)
	r(&cmd{*k})
}

// lookup returns the rule for a program name, and whether the program is
// one the classifier knows.
func lookup(name string) (rule, bool) {
	if r := known(name); r != nil {
		return r, true
	}
	return ruleUnknown, false
}

// known returns the rule for a program the classifier knows, or nil.
func known(name string) rule {
	if r, ok := knownRules()[name]; ok {
		return r
	}
	if c, ok := rules.DefaultCommands().Lookup(name); ok {
		return ruleFor(name, c)
	}
	return nil
}

// judgePrint judges a program whose operands are text, never files it
// scans (echo, test, ls): printf -v assigns a variable.
func judgePrint(name, why string) rule {
	return func(k *cmd) {
		k.R.NoScan = true
		if k.subscripts() {
			return
		}
		if name == "printf" && len(k.Args) > 0 && k.Args[0].Known && strings.HasPrefix(k.Args[0].Val, "-v") {
			k.Add(Moderate, "assigns a shell variable")
			if v := k.Args[0].Val[2:]; v != "" {
				k.setsVars([]judge.Arg{judge.LiteralArg(v)})
			} else if len(k.Args) > 1 {
				k.setsVars(k.Args[1:2])
			}
			return
		}
		k.Add(Safe, why)
	}
}

// judgeSetsVar judges a builtin that reads input into variables, whose
// names it is given (read, mapfile, getopts).
func judgeSetsVar(name, why string) rule {
	return func(k *cmd) {
		if k.subscripts() {
			return
		}
		if name == "mapfile" || name == "readarray" || name == "compgen" {
			opts, ops := judge.Spec{ShortVal: "dnOsuCcAGPSWXFotV"}.Scan(k.Args)
			if name != "compgen" && len(ops) > 0 {
				k.setsVars(ops[:1])
			}
			if v, ok := judge.OptVal(opts, "-V"); ok && name == "compgen" {
				k.setsVars([]judge.Arg{v})
			}
			if v, ok := judge.OptVal(opts, "-C"); ok {
				k.Add(Safe, "runs a callback (judged on its own)")
				k.NestedScript(v, "runs a callback")
				return
			}
		}
		switch name {
		case "read":
			opts, ops := judge.Spec{ShortVal: "adinNptu"}.Scan(k.Args)
			if v, ok := judge.OptVal(opts, "-a"); ok {
				ops = append(ops, v)
			}
			k.setsVars(ops)
		case "getopts":
			if len(k.Args) > 1 {
				k.setsVars(k.Args[1:2])
			}
		case "wait":
			opts, _ := judge.Spec{ShortVal: "p"}.Scan(k.Args)
			if v, ok := judge.OptVal(opts, "-p"); ok {
				k.setsVars([]judge.Arg{v})
			}
		}
		k.Add(Safe, why)
	}
}

// fixed is a rule with one outcome whatever the arguments, except that
// --version and --help only print.
func fixed(l judge.Level, reason string) rule {
	return func(k *cmd) {
		if judge.OnlyInfo(k.Args) {
			k.Add(Safe, "prints version or help")
			return
		}
		k.Add(l, reason)
	}
}

func ruleUnknown(k *cmd) {
	if judge.OnlyInfo(k.Args) {
		k.Add(Safe, "prints version or help")
		return
	}
	k.Add(Moderate, "not a known command: it may write, install or reach the network")
	k.embedded()
}

// maxEmbedded bounds the known program names embedded tries, so that a
// long line of them stays cheap.
const maxEmbedded = 4

// embedded looks in the arguments of a program the classifier does not
// know for a command it may run (numactl rm -rf ~): if the words from a
// known program on would be dangerous on their own, so is this.
func (k *cmd) embedded() {
	if k.Hops > 0 {
		return // a wrapper's own arguments were looked at already
	}
	tried := 0
	for i, a := range k.Args {
		if tried == maxEmbedded {
			return
		}
		if !a.Known || a.Val == "" || a.Val[0] == '-' || strings.ContainsAny(a.Val, "= ") {
			continue
		}
		name := a.Val
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			name = name[j+1:]
		}
		if known(name) == nil {
			continue
		}
		tried++
		scratch := &judge.Result{}
		k.W.Sub().Argv(k.Args[i:], scratch, k.Hops+1)
		if scratch.Level == Dangerous {
			k.Add(Dangerous, "may run a dangerous command: "+judge.Normalise(k.Args[i:]))
			if k.W.Collect() {
				k.R.Forms = append(k.R.Forms, judge.Normalise(k.Args[i:]))
				k.R.Forms = append(k.R.Forms, scratch.Forms...)
			}
			return
		}
	}
}

// subscripts marks a builtin whose argument names an array element with a
// command substitution in its subscript: the shell runs it (read
// 'a[$(id)]', test -v 'a[$(id)]').
func (k *cmd) subscripts() bool {
	for _, a := range k.Args {
		if a.SubscriptRuns() {
			k.Add(Dangerous, "an array subscript holds a command substitution, which the shell runs")
			return true
		}
	}
	return false
}

// verbSpec is the spec of the options a table entry lists as taking a
// value (before the verb, for a program with verbs).
func verbSpec(v *rules.Verbs) judge.Spec {
	var sp judge.Spec
	for _, o := range v.Values {
		if long, ok := strings.CutPrefix(o, "--"); ok {
			sp.LongVal = append(sp.LongVal, long)
		} else {
			sp.ShortVal += strings.TrimPrefix(o, "-")
		}
	}
	for _, o := range v.Optional {
		sp.ShortOpt += strings.TrimPrefix(o, "-")
	}
	sp.Posix = v.Posix
	return sp
}

// verbsRule is the rule of a commands.rules "verbs" entry: the verb
// decides, and any other verb is moderate for the reason other.
func verbsRule(v *rules.Verbs, other string) rule {
	inner := subcommands(verbSpec(v), v.Safe, v.Dangerous, other)
	return func(k *cmd) {
		inner(k)
		if v.Network == "always" || v.Network == "unless-safe" && k.R.Level >= Moderate {
			k.R.Flags.Net = true
		}
	}
}

// subcommands is a rule for programs with a verb: verbs in safe only read,
// verbs in danger are dangerous, everything else is moderate.
func subcommands(sp judge.Spec, safe, danger map[string]string, other string) rule {
	return func(k *cmd) {
		if judge.OnlyInfo(k.Args) {
			k.Add(Safe, "prints version or help")
			return
		}
		verb, _ := judge.VerbAt(k.Args, sp)
		k.R.Verb = verb
		if why, ok := danger[verb]; ok {
			k.Add(Dangerous, why)
			return
		}
		if why, ok := safe[verb]; ok {
			if a, bad := judge.UnknownArgs(k.Args); bad {
				k.Add(Moderate, "an argument only known at run time may change what it does: "+a.Text)
				return
			}
			k.Add(Safe, why)
			return
		}
		k.Add(Moderate, other)
	}
}

// ruleWisp keeps wisp from steering itself: a nested agent, or an answer to
// its own approval requests, would step around the gate.
func ruleWisp(k *cmd) {
	if len(k.Args) == 0 {
		k.Add(Dangerous, "starts another wisp agent")
		return
	}
	first, second := k.Args[0].Val, ""
	if len(k.Args) > 1 {
		second = k.Args[1].Val
	}
	switch {
	case !k.Args[0].Known:
		k.Add(Dangerous, "runs wisp with a command only known at run time")
	case first == "approvals" && (second == "approve" || second == "deny"):
		k.Add(Dangerous, "answers wisp's own approval requests")
	case first == "trust" && second != "status" && second != "":
		k.Add(Dangerous, "changes which projects wisp trusts")
	case first == "classify" || first == "logs" || first == "tools" || first == "trust" || first == "approvals" || judge.OnlyInfo(k.Args):
		k.Add(Safe, "prints wisp information")
	default:
		k.Add(Dangerous, "starts another wisp agent")
	}
}

// ruleScript covers script(1), which records a command's session.
func ruleScript(k *cmd) {
	opts, ops := k.ValueOpts.Scan(k.Args)
	if v, ok := judge.OptVal(opts, "-c", "--command"); ok {
		k.Add(Safe, "runs a command and records it (judged on its own)")
		k.NestedScript(v, "runs a script")
	} else {
		k.Add(Dangerous, "starts a shell that reads commands from standard input")
	}
	for _, o := range ops {
		k.Write(o)
	}
	for _, o := range opts {
		if o.Is("-I", "-O", "-B", "-T", "--log-in", "--log-out", "--log-io", "--log-timing") {
			k.Write(o.Val)
		}
	}
	if len(ops) == 0 {
		k.Write(judge.LiteralArg("typescript"))
	}
}
