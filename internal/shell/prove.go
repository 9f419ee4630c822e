package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/rules"
	"github.com/wisp-agent/wisp/internal/shell/secretpath"
)

// proveCall checks a simple command against the program table: it can
// stay safe only when the program is a known reader, every option and
// subcommand is known to only read, every word's value is known, and no
// file it reads is a credential or lies in a home folder outside the
// workspace. The judgements of package programs judge the same command on their own;
// the stricter judgement wins.
func (c *classifier) proveCall(x ctx, args []judge.Arg, r *judge.Result) {
	name, ok := c.provableName(args[0], r)
	if !ok {
		return
	}
	words := make([]string, 1, len(args))
	words[0] = name
	rl := c.table.Lookup(name, "")
	dashdash := rl != nil && rl.GlobSafe()
	for _, a := range args[1:] {
		if !a.Known {
			r.Add(Moderate, notProvable+"a word only known at run time: "+a.Text)
			return
		}
		if a.Glob && !dashdash && globMayBeOption(a.Val) {
			// A file named like an option (-o, --pre=sh) would become one.
			r.Add(Moderate, notProvable+"a glob that may expand to an option: "+a.Text)
			return
		}
		if (a.Glob || a.Brace) && rl != nil && rl.MaxOperands() >= 0 {
			// Two files where one is read turn the second into
			// another role (uniq in out writes out).
			r.Add(Moderate, notProvable+"a pattern that may expand to more operands than "+name+" reads: "+a.Text)
			return
		}
		dashdash = dashdash || a.Val == "--"
		words = append(words, a.Val)
	}
	if name == "git" {
		if why := c.gitUntrusted(x.f, words); why != "" {
			r.Add(Moderate, notProvable+why)
			return
		}
	}
	res := c.table.Check(words)
	for _, f := range res.Findings {
		if f.Effect == rules.Secret {
			r.Add(Dangerous, f.Why)
		} else {
			r.Add(Moderate, notProvable+f.Why)
		}
	}
	if !res.ReadOnly() {
		return
	}
	if name == "git" {
		c.gitPaths(x.f, args, r)
	}
	// An index: a search per read costs the operands' number squared.
	byVal := make(map[string]judge.Arg, len(args))
	for i := len(args) - 1; i >= 1; i-- {
		byVal[args[i].Val] = args[i]
	}
	for _, p := range res.Reads {
		c.proveRead(x.f, readArg(p, byVal), r)
	}
	c.proveCwd(x.f, r)
}

// gitUntrusted says why git cannot stay safe, or "": git obeys the
// configuration of whatever repository it finds from its working
// directory, and only the workspace's own is guarded (a repository
// elsewhere, a bare one included, can name a textconv or fsmonitor
// program); and its %G format placeholders run gpg.program.
func (c *classifier) gitUntrusted(f *frame, words []string) string {
	if f.cwd != c.root {
		return "git in another folder obeys the configuration of the repository it finds there"
	}
	for _, w := range words[1:] {
		if strings.Contains(w, "%G") || strings.Contains(w, "%(signature") {
			return "a signature format (%G, %(signature)) runs the signature program (gpg.program)"
		}
	}
	return ""
}

// gitPaths judges the words of a git command that name a place outside
// the workspace as files it reads: git diff given one compares files as
// --no-index does (git diff ~/.bashrc /dev/null prints it); no revision
// starts with / or ~ or climbs with "..".
func (c *classifier) gitPaths(f *frame, args []judge.Arg, r *judge.Result) {
	for _, a := range args[1:] {
		v := a.Val
		if strings.HasPrefix(v, "-") || !(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || slices.Contains(strings.Split(v, "/"), "..")) {
			continue
		}
		if p, ok := c.resolve(f, a); !ok || !within(p, c.root) {
			c.proveRead(f, a, r)
			if ok && !sinks[p] && !within(p, c.root) && c.outsideHome(p) == "" {
				// Even in the system's folders: git reads it as a file.
				r.Add(Moderate, notProvable+"git given a path outside the workspace: "+c.show(p))
			}
		}
	}
}

// proveCwd judges the working directory once a cd left the workspace:
// recursive readers (grep -r, find, ls, du) read it without naming it,
// and cd itself goes there.
func (c *classifier) proveCwd(f *frame, r *judge.Result) {
	switch {
	case f.cwd == c.root:
	case f.cwd == "":
		r.Add(Moderate, notProvable+"a working directory only known at run time")
	default:
		a := judge.LiteralArg(f.cwd)
		c.proveRead(f, a, r)
	}
}

// globMayBeOption reports whether a glob could expand to a word that is
// another option than it looks: one that starts with a glob character,
// or an option name with a glob in it (--f* may be --file).
func globMayBeOption(v string) bool {
	prefix := v
	if i := strings.IndexAny(v, "*?["); i >= 0 {
		prefix = v[:i]
	}
	return prefix == "" || strings.HasPrefix(prefix, "-") && !strings.Contains(prefix, "=")
}

// provableName checks the command name: a plain word, naming a program
// by its name or in a system directory, and not a function.
func (c *classifier) provableName(a judge.Arg, r *judge.Result) (string, bool) {
	if !a.Known || a.Quoted || a.Escaped || a.Glob || a.Brace || a.Val == "" {
		r.Add(Moderate, notProvable+"a command name that is not a plain word: "+a.Text)
		return "", false
	}
	name := a.Val
	if strings.Contains(name, "/") {
		dir, base := path.Split(path.Clean(name))
		if !judge.SystemBin[strings.TrimSuffix(dir, "/")] {
			r.Add(Moderate, notProvable+"a program named by a path: "+name)
			return "", false
		}
		name = base
	}
	if c.funcs[name] {
		r.Add(Moderate, notProvable+"a call of a function: "+name)
		return "", false
	}
	return name, true
}

// readArg finds the word a read operand came from, or makes one for a
// value that was part of an option (--file=x).
func readArg(v string, byVal map[string]judge.Arg) judge.Arg {
	if a, ok := byVal[v]; ok {
		return a
	}
	a := judge.LiteralArg(v)
	a.Home = strings.HasPrefix(v, "~")
	a.Glob = secretpath.HasMeta(v)
	return a
}

// proveRead judges a file a read-only command reads.
func (c *classifier) proveRead(f *frame, a judge.Arg, r *judge.Result) {
	if a.Val == "-" || sinks[a.Val] {
		return
	}
	if len(f.alts) > 0 && a.Known && !path.IsAbs(a.Val) && !strings.HasPrefix(a.Val, "~") {
		// The cd may have failed: the path may start where the line was.
		for _, alt := range f.alts {
			c.proveRead(&frame{src: f.src, cwd: alt, cdpath: f.cdpath}, a, r)
		}
	}
	p, ok := c.resolve(f, a)
	switch {
	case !ok:
		if secretpath.Mentions(a.Text) {
			r.Add(Dangerous, "may read a secret: "+a.Text)
			return
		}
		r.Add(Moderate, notProvable+"a file whose place is only known at run time: "+a.Text)
	case sinks[p]:
	case c.secret(p) || a.Glob && c.secretGlob(f, a):
		r.Add(Dangerous, "reads a secret: "+c.show(p))
	case strings.HasPrefix(p, "/dev/"):
		r.Add(Moderate, notProvable+"a read of a device: "+c.show(p))
	case strings.HasSuffix(strings.ToLower(p), "/.git/config"):
		// Remote URLs can carry tokens, and the file tools protect
		// this file: a person sees it read.
		r.Add(Moderate, "reads the repository's configuration, where remote URLs can hold tokens: "+c.show(p))
	default:
		if why := c.outsideHome(p); why != "" {
			r.Add(Moderate, why+c.show(p))
		} else if !within(p, c.root) && secretpath.Holds(p) {
			// grep -r, rg and diff -r read what lies below.
			r.Add(Moderate, "reads a folder that holds credentials: "+c.show(p))
		}
	}
}

// proveAssign checks that a variable set by the line is one the table
// knows cannot change what a program runs, reads or sends.
func (c *classifier) proveAssign(as *syntax.Assign, r *judge.Result) {
	if as.Name == nil {
		return
	}
	if eff, why := c.table.Variable(as.Name.Value); eff != rules.Read {
		r.Add(Moderate, notProvable+"sets "+as.Name.Value+": "+why)
		return
	}
	// A locale or time zone named by a path makes programs load that
	// file; only names are allowed.
	if as.Value != nil && strings.Contains(literalText(as.Value), "/") {
		r.Add(Moderate, notProvable+"sets "+as.Name.Value+" to a path")
	}
}

// literalText is the text of a word's literal and quoted parts; the
// grammar refuses the others.
func literalText(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}
