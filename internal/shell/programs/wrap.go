package programs

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

// Wrappers run another command; that command is what gets judged, with
// whatever the wrapper adds.

func ruleEnv(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	w := k.W
	for _, o := range opts {
		switch {
		case o.Is("-S", "--split-string"):
			k.Add(Dangerous, "env -S splits a string into a command")
			return
		case o.Is("-C", "--chdir"):
			p, _ := w.Resolve(o.Val) // "" when only known at run time
			w = w.In(p)
		}
	}
	i := 0
	for ; i < len(ops); i++ {
		a := ops[i]
		name, val, ok := strings.Cut(a.Val, "=")
		if !a.Known || !ok || name == "" || strings.ContainsAny(name, "/ ") {
			if !a.Known && strings.Contains(a.Text, "=") && !strings.HasPrefix(a.Text, "$") {
				name, _, _ = strings.Cut(a.Text, "=")
				EnvVar(w, name, judge.Arg{Text: a.Text}, k.R)
				continue
			}
			break
		}
		EnvVar(w, name, judge.LiteralArg(val), k.R)
	}
	if i == len(ops) {
		k.Add(Safe, "prints the environment")
		return
	}
	kk := *k
	kk.W = w
	kk.Wrap(ops[i:])
}

func ruleTime(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if v, ok := judge.OptVal(opts, "-o", "--output"); ok {
		k.Write(v)
	}
	if len(ops) == 0 {
		k.Add(Safe, "prints times")
		return
	}
	k.Wrap(ops)
}

func ruleNice(k *cmd) {
	sp := k.ValueOpts
	_, ops := sp.Scan(k.Args)
	if len(ops) == 0 {
		k.Add(Safe, "prints the scheduling priority")
		return
	}
	k.Wrap(ops)
}

func ruleWrapPlain(k *cmd) {
	args := k.Args
	if len(args) > 0 && args[0].Known && args[0].Val == "--" {
		args = args[1:]
	}
	if len(args) == 0 || judge.OnlyInfo(args) {
		k.Add(Safe, "does nothing on its own")
		return
	}
	if k.Name == "firejail" {
		_, ops := judge.Spec{Posix: true}.Scan(args)
		args = ops
	}
	k.Wrap(args)
}

func ruleTimeout(k *cmd) {
	sp := k.ValueOpts
	_, ops := sp.Scan(k.Args)
	if len(ops) < 2 {
		k.Add(Safe, "does nothing on its own")
		return
	}
	k.Wrap(ops[1:])
}

func ruleStdbuf(k *cmd) {
	sp := k.ValueOpts
	_, ops := sp.Scan(k.Args)
	if len(ops) == 0 {
		k.Add(Safe, "does nothing on its own")
		return
	}
	k.Wrap(ops)
}

func ruleCommand(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if judge.HasOpt(opts, "-v", "-V") {
		k.Add(Safe, "looks up commands")
		return
	}
	if len(ops) == 0 {
		k.Add(Safe, "does nothing on its own")
		return
	}
	k.Wrap(ops)
}

func ruleExec(k *cmd) {
	sp := k.ValueOpts
	_, ops := sp.Scan(k.Args)
	if len(ops) == 0 {
		k.Add(Safe, "changes the shell's file descriptors")
		return
	}
	k.Wrap(ops)
}

// ruleSched covers ionice, setsid, chrt, taskset and flock, which take
// options and sometimes one operand before the command.
func ruleSched(k *cmd) {
	skip := 0
	if k.Name == "chrt" || k.Name == "taskset" || k.Name == "flock" {
		skip = 1 // a priority, a CPU mask or the lock file comes before the command
	}
	opts, ops := k.ValueOpts.Scan(k.Args)
	if judge.HasOpt(opts, "-p", "--pid", "--pgid", "--uid", "--all-tasks", "-a") {
		k.Add(Moderate, "changes other processes")
		return
	}
	if k.Name == "flock" {
		k.Add(Moderate, "creates a lock file")
		if len(ops) > 0 {
			k.Write(ops[0])
		}
		if v, ok := judge.OptVal(opts, "-c", "--command"); ok {
			k.NestedScript(v, "runs a script")
			return
		}
	}
	if len(ops) <= skip {
		k.Add(Safe, "does nothing on its own")
		return
	}
	k.Wrap(ops[skip:])
}

func ruleBusybox(k *cmd) {
	if len(k.Args) == 0 || judge.OnlyInfo(k.Args) || k.Args[0].Known && strings.HasPrefix(k.Args[0].Val, "-") {
		k.Add(Safe, "lists its applets")
		return
	}
	k.Wrap(k.Args)
}

func ruleTracer(k *cmd) {
	if k.Name == "perf" {
		if len(k.Args) == 0 {
			k.Add(Safe, "prints help")
			return
		}
		k.Add(Moderate, "profiles programs")
		opts, ops := k.ValueOpts.Scan(k.Args[1:])
		if v, ok := judge.OptVal(opts, "-o", "--output"); ok {
			k.Write(v)
		}
		if len(ops) > 0 && k.Args[0].Known && (k.Args[0].Val == "record" || k.Args[0].Val == "stat" || k.Args[0].Val == "trace") {
			k.Wrap(ops)
		}
		return
	}
	opts, ops := k.ValueOpts.Scan(k.Args)
	k.Add(Moderate, "traces a program")
	if judge.HasOpt(opts, "-p", "--attach", "-P") && k.Name != "valgrind" {
		k.Add(Dangerous, "attaches to another process")
	}
	if v, ok := judge.OptVal(opts, "-o", "--output"); ok {
		k.Write(v)
	}
	if len(ops) > 0 {
		k.Wrap(ops)
	}
}

func ruleXargs(k *cmd) {
	sp := judge.Spec{
		ShortVal: "adEILnPs",
		ShortOpt: "eil",
		LongVal:  []string{"arg-file", "delimiter", "max-args", "max-procs", "process-slot-var", "max-chars"},
		Posix:    true,
	}
	opts, ops := sp.Scan(k.Args)
	repl := ""
	for _, o := range opts {
		switch {
		case o.Is("-I"):
			repl = o.Val.Val
		case o.Is("-i", "--replace"):
			repl = "{}"
			if o.Has && o.Val.Val != "" {
				repl = o.Val.Val
			}
		}
	}
	k.Add(Moderate, "runs a command with arguments read from standard input")
	if len(ops) == 0 {
		ops = []judge.Arg{judge.LiteralArg("echo")}
	}
	inner := make([]judge.Arg, 0, len(ops)+1)
	for _, a := range ops {
		if repl != "" && strings.Contains(a.Text, repl) {
			b := judge.StdinArg
			b.Text = a.Text
			inner = append(inner, b)
			continue
		}
		inner = append(inner, a)
	}
	if repl == "" {
		inner = append(inner, judge.StdinArg)
	}
	k.NestedArgv(inner)
}

func ruleWatch(k *cmd) {
	sp := k.ValueOpts
	opts, ops := sp.Scan(k.Args)
	if len(ops) == 0 {
		k.Add(Safe, "does nothing on its own")
		return
	}
	k.Add(Safe, "runs a command repeatedly")
	if judge.HasOpt(opts, "-x", "--exec") {
		k.NestedArgv(ops)
		return
	}
	for _, a := range ops {
		if !a.Known {
			k.Add(Dangerous, "runs a script only known at run time: "+a.Text)
			return
		}
	}
	k.NestedScript(judge.LiteralArg(judge.Normalise(ops)), "runs a script")
}

func ruleParallel(k *cmd) {
	k.Add(Moderate, "runs commands in parallel")
	for i, a := range k.Args {
		if a.Known && (a.Val == ":::" || a.Val == "::::" || a.Val == ":::+") {
			if i == 0 {
				return
			}
			cmdArgs := k.Args[:i]
			_, ops := judge.Spec{ShortVal: "jSaXIdE", Posix: true}.Scan(cmdArgs)
			if len(ops) > 0 {
				for _, o := range ops {
					if !o.Known {
						k.Add(Dangerous, "runs a script only known at run time: "+o.Text)
						return
					}
				}
				k.NestedScript(judge.LiteralArg(judge.Normalise(ops)), "runs a script")
			}
			return
		}
	}
	_, ops := judge.Spec{ShortVal: "jSaXIdE", Posix: true}.Scan(k.Args)
	if len(ops) > 0 {
		inner := append(append([]judge.Arg{}, ops...), judge.StdinArg)
		k.NestedArgv(inner)
	}
}

func rulePrivilege(k *cmd) {
	k.Add(Dangerous, "runs commands as another user or with other privileges")
	opts, ops := k.ValueOpts.Scan(k.Args)
	switch k.Name {
	case "su", "runuser":
		if v, ok := judge.OptVal(opts, "-c", "--command"); ok {
			k.NestedScript(v, "runs a script")
		}
		return
	case "chroot":
		// The first operand is the new root.
		if len(ops) > 1 {
			k.NestedArgv(ops[1:])
		}
		return
	}
	if len(ops) > 0 {
		k.NestedArgv(ops)
	}
}
