package shell

import (
	"strings"
)

// Wrappers run another command; that command is what gets judged, with
// whatever the wrapper adds.

func ruleEnv(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	x := k.x
	for _, o := range opts {
		switch {
		case o.is("-S", "--split-string"):
			k.add(Dangerous, "env -S splits a string into a command")
			return
		case o.is("-C", "--chdir"):
			f := *x.f
			if p, ok := k.c.resolve(x.f, o.val); ok {
				f.cwd = p
			} else {
				f.cwd = ""
			}
			x.f = &f
		}
	}
	i := 0
	for ; i < len(ops); i++ {
		a := ops[i]
		name, val, ok := strings.Cut(a.val, "=")
		if !a.known || !ok || name == "" || strings.ContainsAny(name, "/ ") {
			if !a.known && strings.Contains(a.text, "=") && !strings.HasPrefix(a.text, "$") {
				name, _, _ = strings.Cut(a.text, "=")
				k.c.envVar(x, name, arg{text: a.text}, k.r)
				continue
			}
			break
		}
		v := literalArg(val)
		k.c.envVar(x, name, v, k.r)
	}
	if i == len(ops) {
		k.add(Safe, "prints the environment")
		return
	}
	kk := *k
	kk.x = x
	kk.wrap(ops[i:])
}

func ruleTime(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if v, ok := optVal(opts, "-o", "--output"); ok {
		k.write(v)
	}
	if len(ops) == 0 {
		k.add(Safe, "prints times")
		return
	}
	k.wrap(ops)
}

func ruleNice(k *cmd) {
	sp := k.valueOpts
	_, ops := sp.scan(k.args)
	if len(ops) == 0 {
		k.add(Safe, "prints the scheduling priority")
		return
	}
	k.wrap(ops)
}

func ruleWrapPlain(k *cmd) {
	args := k.args
	if len(args) > 0 && args[0].known && args[0].val == "--" {
		args = args[1:]
	}
	if len(args) == 0 || onlyInfo(args) {
		k.add(Safe, "does nothing on its own")
		return
	}
	if k.name == "firejail" {
		_, ops := spec{posix: true}.scan(args)
		args = ops
	}
	k.wrap(args)
}

func ruleTimeout(k *cmd) {
	sp := k.valueOpts
	_, ops := sp.scan(k.args)
	if len(ops) < 2 {
		k.add(Safe, "does nothing on its own")
		return
	}
	k.wrap(ops[1:])
}

func ruleStdbuf(k *cmd) {
	sp := k.valueOpts
	_, ops := sp.scan(k.args)
	if len(ops) == 0 {
		k.add(Safe, "does nothing on its own")
		return
	}
	k.wrap(ops)
}

func ruleCommand(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if hasOpt(opts, "-v", "-V") {
		k.add(Safe, "looks up commands")
		return
	}
	if len(ops) == 0 {
		k.add(Safe, "does nothing on its own")
		return
	}
	k.wrap(ops)
}

func ruleExec(k *cmd) {
	sp := k.valueOpts
	_, ops := sp.scan(k.args)
	if len(ops) == 0 {
		k.add(Safe, "changes the shell's file descriptors")
		return
	}
	k.wrap(ops)
}

// ruleSched covers ionice, setsid, chrt, taskset and flock, which take
// options and sometimes one operand before the command.
func ruleSched(k *cmd) {
	skip := 0
	if k.name == "chrt" || k.name == "taskset" || k.name == "flock" {
		skip = 1 // a priority, a CPU mask or the lock file comes before the command
	}
	opts, ops := k.valueOpts.scan(k.args)
	if hasOpt(opts, "-p", "--pid", "--pgid", "--uid", "--all-tasks", "-a") {
		k.add(Moderate, "changes other processes")
		return
	}
	if k.name == "flock" {
		k.add(Moderate, "creates a lock file")
		if len(ops) > 0 {
			k.write(ops[0])
		}
		if v, ok := optVal(opts, "-c", "--command"); ok {
			k.nestedScript(v, "runs a script")
			return
		}
	}
	if len(ops) <= skip {
		k.add(Safe, "does nothing on its own")
		return
	}
	k.wrap(ops[skip:])
}

func ruleBusybox(k *cmd) {
	if len(k.args) == 0 || onlyInfo(k.args) || k.args[0].known && strings.HasPrefix(k.args[0].val, "-") {
		k.add(Safe, "lists its applets")
		return
	}
	k.wrap(k.args)
}

func ruleTracer(k *cmd) {
	if k.name == "perf" {
		if len(k.args) == 0 {
			k.add(Safe, "prints help")
			return
		}
		k.add(Moderate, "profiles programs")
		opts, ops := k.valueOpts.scan(k.args[1:])
		if v, ok := optVal(opts, "-o", "--output"); ok {
			k.write(v)
		}
		if len(ops) > 0 && k.args[0].known && (k.args[0].val == "record" || k.args[0].val == "stat" || k.args[0].val == "trace") {
			k.wrap(ops)
		}
		return
	}
	opts, ops := k.valueOpts.scan(k.args)
	k.add(Moderate, "traces a program")
	if hasOpt(opts, "-p", "--attach", "-P") && k.name != "valgrind" {
		k.add(Dangerous, "attaches to another process")
	}
	if v, ok := optVal(opts, "-o", "--output"); ok {
		k.write(v)
	}
	if len(ops) > 0 {
		k.wrap(ops)
	}
}

func ruleXargs(k *cmd) {
	sp := spec{
		shortVal: "adEILnPs",
		shortOpt: "eil",
		longVal:  []string{"arg-file", "delimiter", "max-args", "max-procs", "process-slot-var", "max-chars"},
		posix:    true,
	}
	opts, ops := sp.scan(k.args)
	repl := ""
	for _, o := range opts {
		switch {
		case o.is("-I"):
			repl = o.val.val
		case o.is("-i", "--replace"):
			repl = "{}"
			if o.has && o.val.val != "" {
				repl = o.val.val
			}
		}
	}
	k.add(Moderate, "runs a command with arguments read from standard input")
	if len(ops) == 0 {
		ops = []arg{literalArg("echo")}
	}
	inner := make([]arg, 0, len(ops)+1)
	for _, a := range ops {
		if repl != "" && strings.Contains(a.text, repl) {
			b := stdinArg
			b.text = a.text
			inner = append(inner, b)
			continue
		}
		inner = append(inner, a)
	}
	if repl == "" {
		inner = append(inner, stdinArg)
	}
	k.nestedArgv(inner)
}

func ruleWatch(k *cmd) {
	sp := k.valueOpts
	opts, ops := sp.scan(k.args)
	if len(ops) == 0 {
		k.add(Safe, "does nothing on its own")
		return
	}
	k.add(Safe, "runs a command repeatedly")
	if hasOpt(opts, "-x", "--exec") {
		k.nestedArgv(ops)
		return
	}
	for _, a := range ops {
		if !a.known {
			k.add(Dangerous, "runs a script only known at run time: "+a.text)
			return
		}
	}
	k.nestedScript(literalArg(normalise(ops)), "runs a script")
}

func ruleParallel(k *cmd) {
	k.add(Moderate, "runs commands in parallel")
	for i, a := range k.args {
		if a.known && (a.val == ":::" || a.val == "::::" || a.val == ":::+") {
			if i == 0 {
				return
			}
			cmdArgs := k.args[:i]
			_, ops := spec{shortVal: "jSaXIdE", posix: true}.scan(cmdArgs)
			if len(ops) > 0 {
				for _, o := range ops {
					if !o.known {
						k.add(Dangerous, "runs a script only known at run time: "+o.text)
						return
					}
				}
				k.nestedScript(literalArg(normalise(ops)), "runs a script")
			}
			return
		}
	}
	_, ops := spec{shortVal: "jSaXIdE", posix: true}.scan(k.args)
	if len(ops) > 0 {
		inner := append(append([]arg{}, ops...), stdinArg)
		k.nestedArgv(inner)
	}
}

func rulePrivilege(k *cmd) {
	k.add(Dangerous, "runs commands as another user or with other privileges")
	opts, ops := k.valueOpts.scan(k.args)
	switch k.name {
	case "su", "runuser":
		if v, ok := optVal(opts, "-c", "--command"); ok {
			k.nestedScript(v, "runs a script")
		}
		return
	case "chroot":
		// The first operand is the new root.
		if len(ops) > 1 {
			k.nestedArgv(ops[1:])
		}
		return
	}
	if len(ops) > 0 {
		k.nestedArgv(ops)
	}
}
