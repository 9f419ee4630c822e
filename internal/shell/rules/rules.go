// Package rules holds what the shell classifier knows about programs, as
// data: which programs only read, which of their options read, write, run
// other programs or reach the network, and which variables a line may set
// without changing what a program runs (programs.rules, variables.rules);
// and, for the lines that are not safe, how bad each known program and
// each variable is: a level with its reason, the verbs of a program with
// subcommands, or the name of a judgement the classifier keeps in code
// (commands.rules, assignments.rules), with the options a judgement's
// program takes a value for and its verbs; and which keys of git's
// configuration can make git run a program (gitkeys.rules). Every program
// rule carries example command lines it must accept (match) and refuse
// (not_match); Load checks them, so a rule and its proof travel together.
// The level examples of commands.rules and assignments.rules need the
// whole classifier, so its tests check them.
//
// The package judges words that are already known (quotes removed,
// nothing left to expand); it never parses shell syntax, never touches the
// file system and never decides a line's level on its own.
package rules

import (
	_ "embed"
	"fmt"
	"path"
	"strings"
	"sync"
)

// Effect is what a program or an option does beyond reading.
type Effect uint8

const (
	// Read only reads (files named as operands, the terminal, the
	// system's state): the program may be rated safe.
	Read Effect = iota
	// Unknown is a program, subcommand, option or operand the table does
	// not know: nothing can be shown about it.
	Unknown
	// Writes changes files or state.
	Writes
	// Runs runs another program or code.
	Runs
	// Network reaches the network.
	Network
	// Secret reads credentials (other processes' environments, say).
	Secret
)

var effectNames = map[string]Effect{
	"reads": Read, "writes": Writes, "runs": Runs, "network": Network, "secret": Secret,
	"private": Unknown, // reads what is not the workspace's, short of a credential
}

// Operands says what a program's operands are.
type Operands uint8

const (
	// Files are operands the program reads.
	Files Operands = iota
	// Text operands are not paths (echo, printf, test).
	Text
	// PatternFiles: the first operand is a pattern or program text,
	// unless an option gave one (grep -e, jq -f); the rest are files.
	PatternFiles
	// NoOperands: any operand is unknown (git status's are paths in the
	// repository, declared as Text instead).
	NoOperands
)

var operandNames = map[string]Operands{"files": Files, "text": Text, "pattern-files": PatternFiles, "none": NoOperands}

type option struct {
	value    bool // takes a value: the next word or attached
	optional bool // an optional value that only comes attached (--color=auto)
	reads    bool // the value is a file the program reads
	pattern  bool // gives the pattern, so every operand is a file
	effect   Effect
	why      string
}

// Rule is what the table knows about one program or one subcommand.
type Rule struct {
	Name string // the program, by base name
	Verb string // the subcommand, or ""
	Why  string // what the program does, for a reason

	never    Effect // not Read: the program is never read-only
	neverWhy string
	opts     map[string]option
	bsd      map[byte]option // option letters without a dash (ps aux)
	words    bool            // options are whole words (find -name)
	digits   bool            // -NUM is a count (head -20)
	posix    bool            // options end at the first operand
	operands Operands
	max      int  // operands allowed, -1 for any
	subs     bool // the first operand names a subcommand rule
	risky    bool // some option writes, runs, reaches out or reads a named file
	textOpts bool // a word that is not a known option is text (echo -----)
	denyText []denied
	match    []string
	notMatch []string
}

// denied is a word that may not appear in a pattern or text operand
// (jq's include reads a module from any file).
type denied struct{ word, why string }

// Finding is one reason a command is not read-only.
type Finding struct {
	Effect Effect
	Why    string // "option -o writes a file", "unknown option --frob"
}

// Result is the judgement of one command's words.
type Result struct {
	Rule     *Rule     // the rule applied; nil when the program is not in the table
	Findings []Finding // empty when the command only reads
	Reads    []string  // operands and option values the command reads as files
}

// ReadOnly reports whether the command only reads.
func (r Result) ReadOnly() bool { return r.Rule != nil && len(r.Findings) == 0 }

// Worst returns the strongest effect found (Read when none).
func (r Result) Worst() Effect {
	w := Read
	for _, f := range r.Findings {
		w = max(w, f.Effect)
	}
	return w
}

// Table is the loaded knowledge. It is read-only once loaded and safe for
// concurrent use.
type Table struct {
	rules map[string]*Rule // "git", "git status"
	vars  []varRule
}

type varRule struct {
	pattern string // a name, or a prefix ending in *
	effect  Effect
	why     string
}

//go:embed programs.rules
var programsText string

//go:embed variables.rules
var variablesText string

// Default returns the table built into wisp, loaded once. Load has
// checked it in the package's tests, so failing here means a broken
// build; it panics rather than let a classifier run without its rules.
var Default = sync.OnceValue(func() *Table {
	t, err := Load()
	if err != nil {
		panic(err)
	}
	return t
})

// Load parses the built-in table and checks every rule's examples.
func Load() (*Table, error) {
	return Parse(programsText, variablesText)
}

// Parse builds a table from program and variable rule text and checks
// every example.
func Parse(programs, variables string) (*Table, error) {
	t := &Table{rules: map[string]*Rule{}}
	if err := t.parsePrograms(programs); err != nil {
		return nil, err
	}
	if err := t.parseVariables(variables); err != nil {
		return nil, err
	}
	for _, key := range t.sortedKeys() {
		if err := t.checkExamples(t.rules[key]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Lookup returns the rule for a program (verb "" ) or a subcommand.
func (t *Table) Lookup(name, verb string) *Rule {
	if verb != "" {
		return t.rules[name+" "+verb]
	}
	return t.rules[name]
}

// Variable judges assigning a variable: Read when setting it cannot
// change what any program runs, reads or sends, else why not.
func (t *Table) Variable(name string) (Effect, string) {
	for _, v := range t.vars {
		if v.pattern == name || strings.HasSuffix(v.pattern, "*") && strings.HasPrefix(name, strings.TrimSuffix(v.pattern, "*")) {
			return v.effect, v.why
		}
	}
	return Unknown, "a variable that is not known to be harmless"
}

// Check judges a command given as words with quotes removed; argv[0] is
// the program's base name.
func (t *Table) Check(argv []string) Result {
	if len(argv) == 0 {
		return Result{Findings: []Finding{{Unknown, "no program"}}}
	}
	rl := t.rules[argv[0]]
	if rl == nil {
		return Result{Findings: []Finding{{Unknown, "program " + argv[0]}}}
	}
	return rl.check(t, argv[1:])
}

// Reader reports whether the program can be read-only at all (it is
// not a "never" rule).
func (rl *Rule) Reader() bool { return rl.never == Read }

// GlobSafe reports whether a glob among the operands may expand to a
// file named like an option without harm: no option of the program
// writes, runs, reaches the network, reads secrets or reads a file it
// is given.
// MaxOperands is how many operands the program reads, or -1 for any
// number: past that count an operand means something else (uniq's
// second operand is the file it writes).
func (rl *Rule) MaxOperands() int { return rl.max }

func (rl *Rule) GlobSafe() bool { return !rl.risky && !rl.subs }

func (rl *Rule) title() string {
	if rl.Verb != "" {
		return rl.Name + " " + rl.Verb
	}
	return rl.Name
}

// check judges the words after the program (or after the subcommand).
func (rl *Rule) check(t *Table, args []string) Result {
	res := Result{Rule: rl}
	if rl.never != Read {
		res.Findings = append(res.Findings, Finding{rl.never, rl.title() + " " + rl.neverWhy})
	}
	var operands []string
	pattern := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" && !rl.words {
			operands = append(operands, args[i+1:]...)
			break
		}
		if rl.textOpts && rl.isOption(a, len(operands) > 0) && !rl.knownOption(a) {
			operands = append(operands, a)
			continue
		}
		if !rl.isOption(a, len(operands) > 0) {
			if len(rl.bsd) > 0 {
				rl.bsdCluster(a, &res)
				continue
			}
			operands = append(operands, a)
			if rl.subs {
				return rl.sub(t, a, args[i+1:], res)
			}
			continue
		}
		n, p := rl.option(args, i, &res)
		i += n
		pattern = pattern || p
	}
	rl.judgeOperands(operands, pattern, &res)
	return res
}

// isOption reports whether a word is an option rather than an operand.
func (rl *Rule) isOption(a string, afterOperand bool) bool {
	if rl.posix && afterOperand {
		return false
	}
	if rl.words {
		_, ok := rl.opts[a]
		return ok || strings.HasPrefix(a, "-") && len(a) > 1
	}
	return strings.HasPrefix(a, "-") && len(a) > 1
}

// knownOption reports whether every letter of a short cluster, or the
// whole long option, is in the table.
func (rl *Rule) knownOption(a string) bool {
	if strings.HasPrefix(a, "--") || rl.words {
		name, _, _ := strings.Cut(a, "=")
		_, ok := rl.opts[name]
		return ok
	}
	for j := 1; j < len(a); j++ {
		if _, ok := rl.opts["-"+string(a[j])]; !ok {
			return false
		}
	}
	return true
}

// sub hands the words after a subcommand to its rule.
func (rl *Rule) sub(t *Table, verb string, rest []string, res Result) Result {
	sr := t.rules[rl.Name+" "+verb]
	if sr == nil {
		res.Findings = append(res.Findings, Finding{Unknown, "subcommand " + rl.Name + " " + verb})
		return res
	}
	sres := sr.check(t, rest)
	sres.Findings = append(res.Findings, sres.Findings...)
	sres.Reads = append(res.Reads, sres.Reads...)
	return sres
}

// option judges the option at args[i]; it returns how many more words it
// took and whether it supplied the pattern.
func (rl *Rule) option(args []string, i int, res *Result) (int, bool) {
	a := args[i]
	if rl.words || strings.HasPrefix(a, "--") {
		name, val, hasVal := strings.Cut(a, "=")
		if rl.words {
			name, hasVal = a, false
		}
		o, ok := rl.long(name)
		if !ok {
			res.Findings = append(res.Findings, Finding{Unknown, "option " + name + " of " + rl.title()})
			return 0, false
		}
		took := 0
		switch {
		case hasVal && !o.value && !o.optional:
			res.Findings = append(res.Findings, Finding{Unknown, "a value given to option " + name + " of " + rl.title()})
		case o.value && !hasVal:
			if i+1 >= len(args) {
				return 0, o.pattern
			}
			val, took = args[i+1], 1
		}
		rl.use(name, o, val, hasVal || took == 1, res)
		return took, o.pattern
	}
	return rl.shortCluster(args, i, res)
}

// long finds a long (or whole-word) option, taking GNU's unambiguous
// abbreviations into account: an abbreviation that could stand for an
// option with an effect counts as that option.
func (rl *Rule) long(name string) (option, bool) {
	if o, ok := rl.opts[name]; ok {
		return o, true
	}
	if rl.words || len(name) < 4 {
		return option{}, false
	}
	var found option
	n := 0
	for k, o := range rl.opts {
		if strings.HasPrefix(k, name) && strings.HasPrefix(k, "--") {
			// The worst candidate wins, whatever order the map gives
			// them in: the verdict must not vary between runs.
			if n == 0 || o.effect > found.effect || o.effect == found.effect && o.value && !found.value {
				found = o
			}
			n++
		}
	}
	if n > 1 && found.effect == Read {
		return option{}, false // ambiguous: the program refuses it, and so do we
	}
	return found, n > 0
}

// shortCluster judges -abc, -n20, -oFILE.
func (rl *Rule) shortCluster(args []string, i int, res *Result) (int, bool) {
	a := args[i]
	if rl.digits && allDigits(a[1:]) {
		return 0, false
	}
	pattern := false
	for j := 1; j < len(a); j++ {
		name := "-" + string(a[j])
		o, ok := rl.opts[name]
		if !ok {
			res.Findings = append(res.Findings, Finding{Unknown, "option " + name + " of " + rl.title()})
			return 0, false
		}
		pattern = pattern || o.pattern
		if o.optional {
			// getopt's optional value is the rest of the word, or none
			// (git's -U3, od's -w16, date's -Iseconds).
			rest := a[j+1:]
			rl.use(name, o, rest, rest != "", res)
			return 0, pattern
		}
		if o.value {
			if rest := a[j+1:]; rest != "" {
				rl.use(name, o, rest, true, res)
				return 0, pattern
			}
			if i+1 < len(args) {
				rl.use(name, o, args[i+1], true, res)
				return 1, pattern
			}
			return 0, pattern
		}
		rl.use(name, o, "", false, res)
	}
	return 0, pattern
}

// bsdCluster judges option letters written without a dash (ps aux).
func (rl *Rule) bsdCluster(a string, res *Result) {
	for j := 0; j < len(a); j++ {
		o, ok := rl.bsd[a[j]]
		if !ok {
			res.Findings = append(res.Findings, Finding{Unknown, "option " + string(a[j]) + " of " + rl.title()})
			return
		}
		rl.use(string(a[j]), o, "", false, res)
	}
}

func (rl *Rule) use(name string, o option, val string, has bool, res *Result) {
	if o.effect != Read {
		res.Findings = append(res.Findings, Finding{o.effect, "option " + name + " of " + rl.title() + " " + o.why})
		return
	}
	if o.reads && has {
		res.Reads = append(res.Reads, val)
	}
}

// judgeOperands records the operands read as files and refuses operands
// the rule does not allow.
func (rl *Rule) judgeOperands(ops []string, pattern bool, res *Result) {
	if rl.max >= 0 && len(ops) > rl.max {
		res.Findings = append(res.Findings, Finding{Unknown, fmt.Sprintf("more than %d operands of %s", rl.max, rl.title())})
	}
	if rl.operands == PatternFiles && !pattern && len(ops) > 0 || rl.operands == Text {
		texts := ops
		if rl.operands == PatternFiles {
			texts = ops[:1]
		}
		for _, d := range rl.denyText {
			for _, t := range texts {
				if strings.Contains(t, d.word) {
					res.Findings = append(res.Findings, Finding{Unknown, rl.title() + " text holding " + d.word + ", which " + d.why})
					return
				}
			}
		}
	}
	switch rl.operands {
	case Files:
		res.Reads = append(res.Reads, ops...)
	case PatternFiles:
		if !pattern && len(ops) > 0 {
			ops = ops[1:]
		}
		res.Reads = append(res.Reads, ops...)
	case NoOperands:
		if len(ops) > 0 {
			res.Findings = append(res.Findings, Finding{Unknown, "operand " + ops[0] + " of " + rl.title()})
		}
	}
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Base returns the program name a rule is looked up by.
func Base(p string) string { return path.Base(p) }
