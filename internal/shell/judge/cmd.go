package judge

import (
	"path"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// cmd is a simple command being judged: its program and the words after it.
type Cmd struct {
	W     Walk   // the walk of the line, where the command stands
	Name  string // the program, by the name rules know it
	Args  []Arg  // the words after the program
	R     *Result
	Hops  int
	Verbs *rules.Verbs // what the program's table entry says of its verbs
	// ValueOpts are the options the program's table entry lists as taking
	// a value (values, optional, posix), worked out once per program; nil
	// for a rule that does not read its entry.
	ValueOpts *Spec
	// Judge judges another command as the tables and judgements say
	// (python -m pip is judged as pip); set by whoever judges this one.
	Judge func(*Cmd)
}

func (k *Cmd) Add(l Level, reason string) { k.R.Add(l, reason) }

// Write judges writing to a path argument.
func (k *Cmd) Write(a Arg) {
	if a.Stdin {
		k.Add(Dangerous, "writes to a path read from standard input")
		return
	}
	if p, ok := k.W.Resolve(a); ok {
		k.R.Writes = append(k.R.Writes, p)
	}
	if l, reason := k.W.WriteTo(a); reason != "" {
		k.Add(l, reason)
	}
}

// WriteInside judges a write that is harmless inside the workspace (a
// build output, undone by deleting it): safe there, as write elsewhere. A
// temporary directory is shared with other programs, which may run what
// lands there, so writing one is moderate as any write.
func (k *Cmd) WriteInside(a Arg, what string) {
	if pl, shown := k.W.Where(a); pl == PlaceWorkspace {
		if p, _ := k.W.Resolve(a); !Plants(p) && !InGitDir(p) {
			k.Add(Safe, what+" "+shown)
			return
		}
	}
	k.Write(a)
}

// Remove judges deleting a path argument (rm, mv's source, find -delete).
func (k *Cmd) Remove(a Arg, verb string) {
	if a.Stdin || !a.Known {
		k.Add(Dangerous, verb+" a path only known at run time: "+a.Text)
		return
	}
	pl, shown := k.W.Where(a)
	p, _ := k.W.Resolve(a)
	switch {
	case pl == PlaceUnknown:
		k.Add(Dangerous, verb+" a path only known at run time: "+a.Text)
	case pl == PlaceSink || pl == PlaceDevice || pl == PlaceNetwork:
		k.Add(Dangerous, verb+" a device file: "+shown)
	case k.W.Wide(p):
		k.Add(Dangerous, verb+" everything in "+shown)
	case pl == PlaceOutside:
		k.Add(Dangerous, verb+" outside the workspace: "+shown)
	default:
		switch {
		case path.Base(p) == ".git" || strings.HasSuffix(p, "/.git/objects") || strings.HasSuffix(p, "/.git/refs"):
			k.Add(Dangerous, verb+" the git history: "+shown)
		case Plants(p):
			k.Add(Dangerous, verb+" a file git or the shell obeys: "+shown)
		default:
			k.Add(Moderate, verb+" "+shown)
		}
	}
}

// NestedArgv records a command that this one runs (find -exec, xargs,
// sudo) as a part of its own.
func (k *Cmd) NestedArgv(args []Arg) {
	if len(args) == 0 {
		return
	}
	w, hops := k.W, k.Hops
	k.R.Later = append(k.R.Later, func() { w.Part(args, hops+1) })
}

// DisplayArgs renders words as written, one space apart.
func DisplayArgs(args []Arg) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.Text)
	}
	return b.String()
}

// NestedScript records a string that this command hands to a shell.
func (k *Cmd) NestedScript(a Arg, what string) {
	if !a.Known {
		k.Add(Dangerous, what+" only known at run time: "+a.Text)
		return
	}
	w, src := k.W, a.Val
	k.R.Later = append(k.R.Later, func() { w.Script(src) })
}

// Wrap judges the command a wrapper runs as if it stood alone.
func (k *Cmd) Wrap(args []Arg) {
	k.W.Argv(args, k.R, k.Hops+1)
}
