package shell

import (
	"slices"

	"github.com/wisp-agent/wisp/internal/shell/judge"
)

// walk is the Walk of one command: the classifier where the command
// stands.
type walk struct {
	c *classifier
	x ctx
}

func (c *classifier) walk(x ctx) judge.Walk { return walk{c, x} }

func (w walk) Where(a judge.Arg) (judge.Place, string) { return w.c.where(w.x.f, a) }
func (w walk) Resolve(a judge.Arg) (string, bool)      { return w.c.resolve(w.x.f, a) }
func (w walk) WriteTo(a judge.Arg) (Level, string)     { return w.c.writeTo(w.x.f, a) }
func (w walk) Show(p string) string                    { return w.c.show(p) }
func (w walk) Wide(p string) bool                      { return w.c.wide(p) }
func (w walk) Secret(p string) bool                    { return w.c.secret(p) }
func (w walk) Downloaded(p string) bool                { return w.c.downloads[p] }
func (w walk) Home() string                            { return w.c.home }
func (w walk) Collect() bool                           { return w.c.collect }
func (w walk) Cwd() string                             { return w.x.f.cwd }
func (w walk) CdPath() bool                            { return w.x.f.cdpath }
func (w walk) SetCdPath()                              { w.x.f.cdpath = true }
func (w walk) Chdir(dir string) {
	f := w.x.f
	if dir != f.cwd && !slices.Contains(f.alts, f.cwd) {
		f.alts = append(slices.Clip(f.alts), f.cwd)
	}
	f.cwd = dir
}
func (w walk) Sub() judge.Walk   { return walk{w.c, w.x.sub()} }
func (w walk) Script(src string) { w.c.nested(w.x, src) }

func (w walk) In(dir string) judge.Walk {
	x := w.x.sub()
	x.f.cwd = dir
	return walk{w.c, x}
}

func (w walk) Stdin() judge.Stdin {
	return judge.Stdin{In: w.x.in, Text: w.x.text, Known: w.x.textKnown, Net: w.x.netIn}
}

func (w walk) Argv(args []judge.Arg, r *judge.Result, hops int) { w.c.argv(w.x, args, r, hops) }

func (w walk) Part(args []judge.Arg, hops int) {
	c, x := w.c, w.x
	r := &judge.Result{}
	if c.collect {
		r.Forms = []string{judge.Normalise(args)}
	}
	c.argv(x, args, r, hops)
	if !r.NoScan {
		c.scanSecrets(x.f, args[1:], r)
	}
	if len(r.Reasons) == 0 {
		r.Add(Safe, "no effect outside the shell")
	}
	c.addPartText(judge.DisplayArgs(args), r.Program, r.Verb, r)
	c.runLater(r)
}
