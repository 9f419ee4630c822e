package programs

import (
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// SetVar judges setting a variable named by a word (read NAME, printf -v
// NAME, declare "NAME=value", for NAME in): a name only known at run time
// could be any variable.
func SetVar(w judge.Walk, name, val judge.Arg, r *judge.Result) {
	if !name.Known {
		r.Add(Dangerous, "sets a variable whose name is only known at run time: "+name.Text)
		return
	}
	n := name.Val
	if i := strings.IndexByte(n, '['); i >= 0 {
		n = n[:i] // an array element: $NAME is element 0
	}
	EnvVar(w, n, val, r)
}

// RuntimeValue stands for a value read or computed when the line runs.
var RuntimeValue = judge.Arg{Text: "(a value only known at run time)"}

// setsVars judges a builtin that stores input in the variables it names
// (read, mapfile, getopts, printf -v).
func (k *cmd) setsVars(names []judge.Arg) {
	for _, n := range names {
		SetVar(k.W, n, RuntimeValue, k.R)
	}
}

// EnvVar judges setting one environment or shell variable, as
// assignments.rules says; a name the table does not hold adds nothing.
func EnvVar(w judge.Walk, name string, val judge.Arg, r *judge.Result) {
	e, ok := rules.DefaultAssignments().Lookup(name)
	if !ok {
		return
	}
	if e.Judge == "" {
		r.Add(levelNamed(e.Level), "sets "+name+", which "+e.Why)
		return
	}
	k := &cmd{judge.Cmd{W: w, Name: name, R: r}}
	switch e.Judge {
	case "command", "command-text":
		commandVar(w, name, val, e.Judge == "command", r)
	case "program":
		k.runsProgram(val, "sets "+name+", which", true)
	case "cgo":
		switch {
		case !strings.Contains(name, "FLAGS"):
		case strings.HasSuffix(name, "_ALLOW") || strings.HasSuffix(name, "_DISALLOW"):
			r.Add(Moderate, "sets "+name+", which changes the C compiler flags go lets source files use")
		default:
			k.ccFlags(val, "sets "+name+", which")
		}
	case "goflags":
		k.goflagsVar(val)
	case "goroot":
		gorootVar(w, val, r)
	case "gotoolchain":
		if !val.Known || (val.Val != "local" && val.Val != "auto" && val.Val != "") {
			r.Add(Moderate, "sets GOTOOLCHAIN, which can download and run another Go toolchain")
		}
	case "cdpath":
		if !val.Known || val.Val != "" {
			w.SetCdPath()
		}
		r.Add(Moderate, "sets "+name+", which changes which programs or files are used")
	default:
		// A judgement the code does not have fails closed; the table's
		// examples, checked by the package's tests, catch it first.
		r.Add(Dangerous, "sets "+name+", which the classifier cannot judge ("+e.Judge+")")
	}
}

// commandVar judges setting a variable that holds a command line other
// programs run (PAGER, GIT_SSH_COMMAND): parse says whether the
// classifier can read that line as a shell would.
func commandVar(w judge.Walk, name string, val judge.Arg, parse bool, r *judge.Result) {
	switch {
	case val.Known && strings.TrimSpace(val.Val) == "":
	case !parse:
		r.Add(Dangerous, "sets "+name+", which makes a program run a command")
	case !val.Known:
		r.Add(Dangerous, "sets "+name+" to a command only known at run time")
	default:
		r.Add(Safe, "sets "+name+", a command that other programs run (judged on its own)")
		src := val.Val
		r.Later = append(r.Later, func() { w.Script(src) })
	}
}

// goflagsVar judges GOFLAGS as the go build flags it adds.
func (k *cmd) goflagsVar(val judge.Arg) {
	r := k.R
	if !val.Known {
		r.Add(Moderate, "sets GOFLAGS to a value only known at run time, which can make go run other programs")
		return
	}
	words := strings.Fields(val.Val)
	args := make([]judge.Arg, len(words))
	for i, w := range words {
		args[i] = judge.LiteralArg(w)
	}
	flags, _ := goFlags(args)
	scratch := &judge.Result{}
	g := &cmd{judge.Cmd{W: k.W, Name: "go", R: scratch}}
	g.goBuildFlags(flags)
	for i, reason := range scratch.Reasons {
		r.Add(scratch.Levels[i], "sets GOFLAGS, where "+reason)
	}
	r.Later = append(r.Later, scratch.Later...)
}

// gorootVar judges GOROOT by where the compiler go would run lives.
func gorootVar(w judge.Walk, val judge.Arg, r *judge.Result) {
	b := val
	b.Home = b.Home || strings.HasPrefix(val.Val, "~")
	switch pl, shown := w.Where(b); {
	case val.Known && val.Val == "":
	case pl == judge.PlaceOutside:
		r.Add(Moderate, "sets GOROOT, which makes go run the compiler and linker found there: "+shown)
	default:
		r.Add(Dangerous, "sets GOROOT, which makes go run the compiler and linker found there, a place commands here can write or only known at run time: "+shown)
	}
}
