package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/shell/rules"
	"github.com/wisp-agent/wisp/internal/shell/secretpath"
)

// proveCall checks a simple command against the program table: it can
// stay safe only when the program is a known reader, every option and
// subcommand is known to only read, every word's value is known, and no
// file it reads is a credential or lies in a home folder outside the
// workspace. The rules of rules_*.go judge the same command on their own;
// the stricter judgement wins.
func (c *classifier) proveCall(x ctx, args []arg, r *res) {
	name, ok := c.provableName(args[0], r)
	if !ok {
		return
	}
	words := make([]string, 1, len(args))
	words[0] = name
	rl := c.table.Lookup(name, "")
	dashdash := rl != nil && rl.GlobSafe()
	for _, a := range args[1:] {
		if !a.known {
			r.add(Moderate, notProvable+"a word only known at run time: "+a.text)
			return
		}
		if a.glob && !dashdash && globMayBeOption(a.val) {
			// A file named like an option (-o, --pre=sh) would become one.
			r.add(Moderate, notProvable+"a glob that may expand to an option: "+a.text)
			return
		}
		if (a.glob || a.brace) && rl != nil && rl.MaxOperands() >= 0 {
			// Two files where one is read turn the second into
			// another role (uniq in out writes out).
			r.add(Moderate, notProvable+"a pattern that may expand to more operands than "+name+" reads: "+a.text)
			return
		}
		dashdash = dashdash || a.val == "--"
		words = append(words, a.val)
	}
	if name == "git" {
		if why := c.gitUntrusted(x.f, words); why != "" {
			r.add(Moderate, notProvable+why)
			return
		}
	}
	res := c.table.Check(words)
	for _, f := range res.Findings {
		if f.Effect == rules.Secret {
			r.add(Dangerous, f.Why)
		} else {
			r.add(Moderate, notProvable+f.Why)
		}
	}
	if !res.ReadOnly() {
		return
	}
	for _, p := range res.Reads {
		c.proveRead(x.f, readArg(p, args), r)
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

// proveCwd judges the working directory once a cd left the workspace:
// recursive readers (grep -r, find, ls, du) read it without naming it,
// and cd itself goes there.
func (c *classifier) proveCwd(f *frame, r *res) {
	switch {
	case f.cwd == c.root:
	case f.cwd == "":
		r.add(Moderate, notProvable+"a working directory only known at run time")
	default:
		a := literalArg(f.cwd)
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
func (c *classifier) provableName(a arg, r *res) (string, bool) {
	if !a.known || a.quoted || a.escaped || a.glob || a.brace || a.val == "" {
		r.add(Moderate, notProvable+"a command name that is not a plain word: "+a.text)
		return "", false
	}
	name := a.val
	if strings.Contains(name, "/") {
		dir, base := path.Split(path.Clean(name))
		if !systemBin[strings.TrimSuffix(dir, "/")] {
			r.add(Moderate, notProvable+"a program named by a path: "+name)
			return "", false
		}
		name = base
	}
	if c.funcs[name] {
		r.add(Moderate, notProvable+"a call of a function: "+name)
		return "", false
	}
	return name, true
}

// readArg finds the word a read operand came from, or makes one for a
// value that was part of an option (--file=x).
func readArg(v string, args []arg) arg {
	for _, a := range args[1:] {
		if a.val == v {
			return a
		}
	}
	a := literalArg(v)
	a.home = strings.HasPrefix(v, "~")
	a.glob = secretpath.HasMeta(v)
	return a
}

// proveRead judges a file a read-only command reads.
func (c *classifier) proveRead(f *frame, a arg, r *res) {
	if a.val == "-" || sinks[a.val] {
		return
	}
	p, ok := c.resolve(f, a)
	switch {
	case !ok:
		if secretpath.Mentions(a.text) {
			r.add(Dangerous, "may read a secret: "+a.text)
			return
		}
		r.add(Moderate, notProvable+"a file whose place is only known at run time: "+a.text)
	case sinks[p]:
	case c.secret(p) || a.glob && c.secretGlob(f, a):
		r.add(Dangerous, "reads a secret: "+c.show(p))
	case strings.HasPrefix(p, "/dev/"):
		r.add(Moderate, notProvable+"a read of a device: "+c.show(p))
	case strings.HasSuffix(strings.ToLower(p), "/.git/config"):
		// Remote URLs can carry tokens, and the file tools protect
		// this file: a person sees it read.
		r.add(Moderate, "reads the repository's configuration, where remote URLs can hold tokens: "+c.show(p))
	default:
		if why := c.outsideHome(p); why != "" {
			r.add(Moderate, why+c.show(p))
		}
	}
}

// proveAssign checks that a variable set by the line is one the table
// knows cannot change what a program runs, reads or sends.
func (c *classifier) proveAssign(as *syntax.Assign, r *res) {
	if as.Name == nil {
		return
	}
	if eff, why := c.table.Variable(as.Name.Value); eff != rules.Read {
		r.add(Moderate, notProvable+"sets "+as.Name.Value+": "+why)
		return
	}
	// A locale or time zone named by a path makes programs load that
	// file; only names are allowed.
	if as.Value != nil && strings.Contains(literalText(as.Value), "/") {
		r.add(Moderate, notProvable+"sets "+as.Name.Value+" to a path")
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
