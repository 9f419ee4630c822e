package difftest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell"
)

// Kind names one way bash differed from a verdict.
type Kind string

const (
	// UnnamedProgram: a shim recorded a program no part names.
	UnnamedProgram Kind = "ran a program the classifier did not name"
	// UnnamedCommand: the trace shows a command (a builtin such as eval,
	// source, exec, trap, or a name that resolved to something) no part
	// names.
	UnnamedCommand Kind = "ran a command the classifier did not name"
	// FunctionBody: the trace shows code running inside a function or a
	// sourced file.
	FunctionBody Kind = "ran code in a function or sourced file"
	// NotTheProgram: a name that is a program on this system ran, by the
	// trace, more often than the program did, in a line whose trace shows
	// what makes that possible (hash, BASH_CMDS, PATH, enable, alias): the
	// name ran something else.
	NotTheProgram Kind = "a program's name ran something else"
	// ByPath: a command ran by a path outside the shims.
	ByPath Kind = "ran a program by path"
	// Wrote: a file appeared, changed or went away.
	Wrote Kind = "wrote to the file system"
	// Untraced: the line turned tracing off or redirected it, or wrote
	// more trace than the harness reads, so what ran cannot be shown.
	Untraced Kind = "hid what it ran from the trace"
	// Environment: a program was given a variable that is not on the
	// list a safe line may set, or a changed PATH or HOME: variables
	// steer what programs run (PAGER, GIT_*, LD_PRELOAD, TAR_OPTIONS).
	Environment Kind = "gave a program a changed environment"
	// ReadSecret: the content of a planted credential file showed up in
	// the output, the trace or a program's arguments or environment, or a
	// program was handed a planted credential file's path.
	ReadSecret Kind = "read a secret"
)

// Baseline is what every run starts from, which Compare measures against.
type Baseline struct {
	Shims    map[string]bool   // program names that had a shim
	Builtins map[string]bool   // bash's builtins and keywords
	Env      map[string]string // the environment bash is given
	// Canary is planted in every credential file of the run's HOME (and
	// may be in the harness's own environment, which a line could read
	// through /proc); a line that itself holds it is not checked for it.
	Canary string
	// Home is the run's HOME, where the credential files are planted.
	Home string
}

// bashEnv are variables bash itself exports to what it runs.
var bashEnv = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// guardedEnv are base variables whose value a safe line may not change.
var guardedEnv = map[string]bool{"PATH": true, "HOME": true, "SHELLOPTS": true, "BASH_XTRACEFD": true, "PS4": true, "TMPDIR": true}

// SafeEnv reports the variables a safe line may hand to a program: the
// locale, the time zone and the terminal's size and colours.
func SafeEnv(name string) bool {
	if strings.HasPrefix(name, "LC_") {
		return true
	}
	switch name {
	case "LANG", "LANGUAGE", "TZ", "NO_COLOR", "TERM", "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR":
		return true
	}
	return false
}

// Finding is one difference between what bash did and what a verdict
// named.
type Finding struct {
	Kind   Kind
	Detail string
}

func (f Finding) String() string { return string(f.Kind) + ": " + f.Detail }

// traceKeywords are trace records that are compound commands' headers, not
// commands; what they evaluate is traced on its own.
var traceKeywords = map[string]bool{"[[": true, "((": true, "for": true, "case": true, "select": true}

// Compare lists what run did that v does not name, measured against base.
//
// Named means: the program of a part, or one of the words of the part's
// command up to its program (the wrappers: env, nice, command, timeout).
// A safe line must write nothing, run nothing by path, run no function
// and hide nothing from the trace.
func Compare(line string, v shell.Verdict, run Run, base Baseline) []Finding {
	named := NamedBy(v)
	var out []Finding
	seen := map[string]bool{}
	add := func(k Kind, detail string) {
		key := string(k) + "\x00" + detail
		if !seen[key] {
			seen[key] = true
			out = append(out, Finding{Kind: k, Detail: detail})
		}
	}
	for _, e := range run.Execs {
		if !named[e.Name] {
			add(UnnamedProgram, fmt.Sprintf("%s (argv %q)", e.Name, e.Argv))
		}
	}
	traced := map[string]int{}
	evidence := ""
	for _, c := range run.Trace {
		compareTrace(c, named, add)
		if !c.Assign && base.Shims[c.Name] && !base.Builtins[c.Name] {
			traced[c.Name]++
		}
		if evidence == "" && changesLookup(c) {
			evidence = c.Text
		}
	}
	if evidence != "" {
		compareCounts(traced, run.Execs, evidence, add)
	}
	for _, ch := range run.Changes {
		add(Wrote, ch)
	}
	for _, e := range run.Execs {
		compareEnv(e, base.Env, add)
	}
	if where := secretSeen(run, base.Canary); where != "" && !strings.Contains(line, base.Canary) {
		add(ReadSecret, "a planted credential's content is in "+where)
	}
	for _, e := range run.Execs {
		if p := secretArg(e.Argv[1:], base.Home); p != "" {
			add(ReadSecret, fmt.Sprintf("%s was handed the credential file %s", e.Name, p))
		}
	}
	if run.TraceTruncated {
		add(Untraced, fmt.Sprintf("the trace is longer than %d bytes", maxTrace))
	}
	return out
}

// compareCounts reports programs that ran, by the trace, more often than
// their shims did. It is called only when the trace shows something that
// changes what a name runs: a trace record without its exec is otherwise
// a command whose redirection failed, or a background job the sandbox
// ended with the shell.
func compareCounts(traced map[string]int, execs []Exec, evidence string, add func(Kind, string)) {
	ran := map[string]int{}
	for _, e := range execs {
		ran[e.Name]++
	}
	names := make([]string, 0, len(traced))
	for n := range traced {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if traced[n] > ran[n] {
			add(NotTheProgram, fmt.Sprintf("%q ran %d times by the trace but the program %d times, after %s", n, traced[n], ran[n], clip(evidence, 120)))
		}
	}
}

// lookupWord finds PATH as a word (not CDPATH, not MANPATH).
var lookupWord = regexp.MustCompile(`(^|[^A-Za-z0-9_])(PATH|BASH_CMDS|BASH_ALIASES)([^A-Za-z0-9_]|$)`)

// changesLookup reports a trace record that may change what a command
// name runs: hashing, loadable builtins, aliases, and anything naming
// PATH, BASH_CMDS or BASH_ALIASES (assignments, declare, read, printf -v).
func changesLookup(c TraceCmd) bool {
	switch c.Name {
	case "hash", "enable", "alias":
		return true
	}
	return lookupWord.MatchString(c.Text)
}

// compareTrace checks one trace record.
func compareTrace(c TraceCmd, named map[string]bool, add func(Kind, string)) {
	if c.Function != "" {
		add(FunctionBody, fmt.Sprintf("%q runs %s", c.Function, clip(c.Text, 200)))
	}
	if hidesTrace(c) {
		add(Untraced, clip(c.Text, 200))
	}
	if c.Depth == 0 {
		add(Untraced, "the line wrote to the trace itself: "+clip(c.Text, 200))
		return
	}
	if c.Assign || traceKeywords[c.Name] || isKeyword(c.Name) || named[c.Name] {
		return
	}
	if strings.Contains(c.Name, "/") {
		add(ByPath, clip(c.Text, 200))
		return
	}
	add(UnnamedCommand, clip(c.Text, 200))
}

// isKeyword reports the reserved words a trace may begin with.
func isKeyword(name string) bool {
	switch name {
	case "if", "then", "else", "elif", "fi", "while", "until", "do", "done", "esac", "in", "function", "coproc", "time", "!", "{", "}", "]]":
		return true
	}
	return false
}

// setters are the builtins that can set, unset or export a variable by
// name, or move a file descriptor.
var setters = map[string]bool{
	"declare": true, "typeset": true, "local": true, "export": true, "readonly": true, "unset": true,
	"read": true, "printf": true, "mapfile": true, "readarray": true, "getopts": true, "exec": true,
}

// traceVars are the variables the trace depends on.
var traceVars = regexp.MustCompile(`(^|[^A-Za-z0-9_])(PS4|BASH_XTRACEFD|SHELLOPTS)([^A-Za-z0-9_]|$)`)

// hidesTrace reports a command that turns tracing off or moves it: set +x,
// set +o xtrace, shopt -u -o xtrace, and an assignment or a setter that
// names PS4, BASH_XTRACEFD or SHELLOPTS.
func hidesTrace(c TraceCmd) bool {
	if (c.Assign || setters[c.Name]) && traceVars.MatchString(c.Text) {
		return true
	}
	if c.Name != "set" && c.Name != "shopt" {
		return false
	}
	for _, w := range strings.Fields(c.Text)[1:] {
		if w == "xtrace" || (strings.HasPrefix(w, "+") && strings.Contains(w, "x")) {
			return true
		}
	}
	return false
}

// NamedBy is every name a verdict's parts account for: each part's
// program (and its base name) and the words of its command before the
// program, assignments left out.
func NamedBy(v shell.Verdict) map[string]bool {
	named := map[string]bool{}
	for _, p := range v.Parts {
		prog := p.Program
		if prog != "" {
			named[prog] = true
			named[filepath.Base(prog)] = true
		}
		for i, w := range strings.Fields(p.Command) {
			if i >= 16 || prog == "" {
				break
			}
			if assignment.MatchString(w) {
				continue
			}
			u := FirstWord(w)
			named[u] = true
			if u == prog || filepath.Base(u) == filepath.Base(prog) {
				break
			}
		}
	}
	return named
}

// compareEnv checks the environment one program was given.
func compareEnv(e Exec, base map[string]string, add func(Kind, string)) {
	names := make([]string, 0, len(e.Env))
	for n := range e.Env {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		val := e.Env[n]
		bv, inBase := base[n]
		switch {
		case n == "SHELLOPTS":
			// Bash rewrites it with every option it has on.
			if !slices.Contains(strings.Split(val, ":"), "xtrace") {
				add(Untraced, fmt.Sprintf("%s ran with SHELLOPTS=%q, tracing off", e.Name, val))
			}
		case inBase && guardedEnv[n] && val != bv:
			add(Environment, fmt.Sprintf("%s ran with %s=%q", e.Name, n, clip(val, 100)))
		case !inBase && !bashEnv[n] && !SafeEnv(n):
			add(Environment, fmt.Sprintf("%s ran with %s=%q", e.Name, n, clip(val, 100)))
		}
	}
}

// secretSeen says where the canary shows up in what the run produced, or
// "" when it does not.
func secretSeen(run Run, canary string) string {
	if canary == "" {
		return ""
	}
	if strings.Contains(run.Stdout, canary) {
		return "the standard output"
	}
	if strings.Contains(run.Stderr, canary) {
		return "the standard error"
	}
	for _, c := range run.Trace {
		if strings.Contains(c.Text, canary) {
			return "the trace: " + clip(c.Text, 120)
		}
	}
	for _, e := range run.Execs {
		for _, a := range e.Argv {
			if strings.Contains(a, canary) {
				return "the arguments of " + e.Name
			}
		}
		for n, v := range e.Env {
			if strings.Contains(v, canary) {
				return "the variable " + n + " given to " + e.Name
			}
		}
	}
	return ""
}

// secretArg returns the first argument that names a planted credential
// file: its path under home anywhere in the argument (--file=PATH), or a
// path ending in the file's place in the home folder (after a cd).
func secretArg(args []string, home string) string {
	for _, a := range args {
		clean := filepath.Clean(a)
		for _, rel := range secretFiles {
			if (home != "" && containsPath(a, filepath.Join(home, rel))) || clean == rel || strings.HasSuffix(clean, "/"+rel) {
				return a
			}
		}
	}
	return ""
}

// containsPath reports whether p occurs in s as a whole path: not followed
// by more of a file name (id_rsa is not id_rsa.pub).
func containsPath(s, p string) bool {
	for i := strings.Index(s, p); i >= 0; {
		end := i + len(p)
		if end == len(s) || !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", rune(s[end])) {
			return true
		}
		j := strings.Index(s[i+1:], p)
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
