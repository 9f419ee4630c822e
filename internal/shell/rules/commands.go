package rules

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

// Command is what the classifier makes of a program it knows: either one
// level whatever the arguments (Level), or a judgement kept in code that
// reads them (Judge). Why is the reason given when nothing worse is found.
type Command struct {
	Level string // "safe", "moderate" or "dangerous"; "" when Judge decides
	Judge string // the name of the judgement in code; "" when Level is fixed
	Why   string
	Verbs *Verbs // the verbs lines of a "verbs" or "judge" entry
}

// Verbs is what a program's subcommand says of it (apt list, apt remove).
// The verb is the first operand; Values are the options before it that
// take a value. Safe verbs only read, Dangerous ones give their reason;
// for a "verbs" entry any other verb gets the entry's Why at level
// moderate, while a judgement reads them as it needs. Network says the
// program reaches the network: "always", or "unless-safe"; NetworkVerbs
// are the verbs that do. A judgement may also list Moderate verbs, and
// When: options that make a verb worse than its own line says.
type Verbs struct {
	Values       []string
	Optional     []string // short options whose value is optional and attached (-i.bak)
	Posix        bool     // options end at the first operand (env, nice, timeout)
	Safe         map[string]string
	Moderate     map[string]string
	Dangerous    map[string]string
	When         map[string][]When
	Words        []Word // "on" lines: the first argument one of them names decides
	Else         Word   // the "else" line: the outcome when no argument decides
	Network      string
	NetworkVerbs map[string]bool
}

// When is a "when VERB LEVEL OPTION... : why" line: given any of Options,
// VERB is at Level for Why. A verb's When lines are tried in table order.
type When struct {
	Level   string
	Options []string
	Why     string
}

// Word is an "on LEVEL WORD... : why" line (an argument equal to one of
// Words, or starting with one that ends in "*", puts the program at Level
// for Why), an "on-unknown LEVEL : why" line (Unknown: an argument only
// known at run time does), or the "else LEVEL : why" line.
type Word struct {
	Level   string
	Words   []string
	Unknown bool
	Why     string
}

// Matches reports whether an argument, known or not, is one the line
// names.
func (w Word) Matches(known bool, val string) bool {
	if !known {
		return w.Unknown
	}
	for _, x := range w.Words {
		if p, ok := strings.CutSuffix(x, "*"); ok && strings.HasPrefix(val, p) || x == val {
			return true
		}
	}
	return false
}

func newVerbs() *Verbs {
	return &Verbs{Safe: map[string]string{}, Moderate: map[string]string{}, Dangerous: map[string]string{},
		When: map[string][]When{}, NetworkVerbs: map[string]bool{}}
}

// Example is a line of commands.rules and the level the whole classifier
// must give it.
type Example struct {
	Level, Line string
}

// Commands is the loaded commands.rules: read-only once loaded and safe
// for concurrent use.
type Commands struct {
	exact    map[string]Command
	prefixes []prefixCommand
	examples []Example
}

type prefixCommand struct {
	prefix string
	cmd    Command
}

//go:embed commands.rules
var commandsText string

//go:embed assignments.rules
var assignmentsText string

// DefaultCommands returns the built-in commands table, loaded once. The
// package's tests parse it, so failing here means a broken build.
var DefaultCommands = sync.OnceValue(func() *Commands {
	c, err := ParseCommands(commandsText)
	if err != nil {
		panic(err)
	}
	return c
})

// DefaultAssignments returns the built-in assignments.rules (how much
// setting a variable matters), loaded once, in the format of
// commands.rules.
var DefaultAssignments = sync.OnceValue(func() *Commands {
	c, err := parseEntries("assignments.rules", assignmentsText)
	if err != nil {
		panic(err)
	}
	return c
})

var levelNames = map[string]bool{"safe": true, "moderate": true, "dangerous": true}

// ParseCommands reads commands.rules text: "LEVEL NAME... : why",
// "judge RULE NAME... [: why]" and "example LEVEL LINE" lines. Every entry
// must carry an example and every name may appear once.
func ParseCommands(text string) (*Commands, error) {
	return parseEntries("commands.rules", text)
}

// parseEntries reads a table in the format of commands.rules from file.
func parseEntries(file, text string) (*Commands, error) {
	c := &Commands{exact: map[string]Command{}}
	seen := map[string]bool{}
	var open []string // the names of the entry examples attach to
	var cur Command   // that entry, whose verbs lines may follow
	hasExample := true
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s line %d", file, i+1)
		if rest, ok := strings.CutPrefix(line, "example "); ok {
			lvl, ex, _ := strings.Cut(rest, " ")
			if !levelNames[lvl] || strings.TrimSpace(ex) == "" || open == nil {
				return nil, fmt.Errorf("%s: want example LEVEL LINE after an entry", where)
			}
			c.examples = append(c.examples, Example{Level: lvl, Line: ex})
			hasExample = true
			continue
		}
		if open != nil && cur.Verbs != nil && !hasExample {
			if done, err := cur.Verbs.parseLine(line, cur.Judge != ""); done || err != nil {
				if err != nil {
					return nil, fmt.Errorf("%s: %w", where, err)
				}
				continue
			}
		}
		if !hasExample {
			return nil, fmt.Errorf("%s: %s has no example", file, strings.Join(open, " "))
		}
		cmd, names, err := parseCommandEntry(line)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for _, n := range names {
			if seen[n] {
				return nil, fmt.Errorf("%s: %s appears twice", where, n)
			}
			seen[n] = true
			if p, ok := strings.CutSuffix(n, "*"); ok {
				c.prefixes = append(c.prefixes, prefixCommand{prefix: p, cmd: cmd})
			} else {
				c.exact[n] = cmd
			}
		}
		open, hasExample, cur = names, false, cmd
	}
	if !hasExample {
		return nil, fmt.Errorf("%s: %s has no example", file, strings.Join(open, " "))
	}
	return c, nil
}

// parseCommandEntry reads one LEVEL or judge line. The reason follows the
// last " : ", so that the program ":" can be named before it.
func parseCommandEntry(line string) (Command, []string, error) {
	head, why := line, ""
	if i := strings.LastIndex(line, " : "); i >= 0 {
		head, why = line[:i], strings.TrimSpace(line[i+3:])
	}
	f := strings.Fields(head)
	var cmd Command
	switch {
	case len(f) >= 3 && f[0] == "judge":
		cmd, f = Command{Judge: f[1], Why: why, Verbs: newVerbs()}, f[2:]
	case len(f) >= 2 && f[0] == "verbs" && why != "":
		cmd, f = Command{Why: why, Verbs: newVerbs()}, f[1:]
	case len(f) >= 2 && levelNames[f[0]] && why != "":
		cmd, f = Command{Level: f[0], Why: why}, f[1:]
	default:
		return cmd, nil, fmt.Errorf("want LEVEL NAME... : why, judge RULE NAME... [: why] or verbs NAME... : why")
	}
	return cmd, f, nil
}

// parseLine reads a line of a verbs or judge entry ("values OPT...",
// "safe VERB... : why", "dangerous VERB... : why", "network
// always|unless-safe", "network-verbs VERB...", and for a judgement
// "moderate VERB... : why", "when VERB LEVEL OPTION... : why", "on LEVEL
// WORD... : why", "on-unknown LEVEL : why" and "else LEVEL : why") and
// reports whether it was one.
func (v *Verbs) parseLine(line string, judge bool) (bool, error) {
	head, why := line, ""
	if i := strings.LastIndex(line, " : "); i >= 0 {
		head, why = line[:i], strings.TrimSpace(line[i+3:])
	}
	f := strings.Fields(head)
	switch f[0] {
	case "values":
		v.Values = append(v.Values, f[1:]...)
		return true, nil
	case "posix":
		if len(f) != 1 {
			return true, fmt.Errorf("posix takes no words")
		}
		v.Posix = true
		return true, nil
	case "optional":
		for _, o := range f[1:] {
			if len(o) != 2 || o[0] != '-' || o[1] == '-' {
				return true, fmt.Errorf("optional takes short options (-i), not %s", o)
			}
		}
		v.Optional = append(v.Optional, f[1:]...)
		return true, nil
	case "network-verbs":
		for _, verb := range f[1:] {
			v.NetworkVerbs[verb] = true
		}
		return true, nil
	case "network":
		if len(f) != 2 || (f[1] != "always" && f[1] != "unless-safe") {
			return true, fmt.Errorf("want network always or network unless-safe")
		}
		v.Network = f[1]
		return true, nil
	case "on", "on-unknown", "else":
		return true, v.addWord(f, why, judge)
	case "when":
		if !judge || len(f) < 4 || !levelNames[f[2]] || why == "" {
			return true, fmt.Errorf("want when VERB LEVEL OPTION... : why, in a judge entry")
		}
		v.When[f[1]] = append(v.When[f[1]], When{Level: f[2], Options: f[3:], Why: why})
		return true, nil
	case "safe", "moderate", "dangerous":
		if f[0] == "moderate" && !judge {
			return true, fmt.Errorf("moderate verbs belong to a judge entry; a verbs entry makes every other verb moderate")
		}
		return true, v.addVerbs(f[0], f[1:], why)
	}
	return false, nil
}

// addWord records an "on", "on-unknown" or "else" line (f, its words).
func (v *Verbs) addWord(f []string, why string, judge bool) error {
	n := map[string]int{"on": 3, "on-unknown": 2, "else": 2}[f[0]]
	if !judge || why == "" || len(f) < n || f[0] != "on" && len(f) != n || !levelNames[f[1]] {
		return fmt.Errorf("want on LEVEL WORD... : why, on-unknown LEVEL : why or else LEVEL : why, in a judge entry")
	}
	w := Word{Level: f[1], Words: f[2:], Unknown: f[0] == "on-unknown", Why: why}
	if f[0] == "else" {
		if v.Else.Level != "" {
			return fmt.Errorf("else appears twice")
		}
		v.Else = w
		return nil
	}
	v.Words = append(v.Words, w)
	return nil
}

// addVerbs records the verbs of a "safe", "moderate" or "dangerous" line.
func (v *Verbs) addVerbs(level string, verbs []string, why string) error {
	if len(verbs) == 0 || why == "" {
		return fmt.Errorf("want %s VERB... : why", level)
	}
	m := map[string]map[string]string{"safe": v.Safe, "moderate": v.Moderate, "dangerous": v.Dangerous}[level]
	for _, verb := range verbs {
		_, s := v.Safe[verb]
		_, mo := v.Moderate[verb]
		_, d := v.Dangerous[verb]
		if s || mo || d {
			return fmt.Errorf("verb %s appears twice", verb)
		}
		m[verb] = why
	}
	return nil
}

// Lookup returns the entry for a program name: an exact name first, then
// the longest prefix.
func (c *Commands) Lookup(name string) (Command, bool) {
	if cmd, ok := c.exact[name]; ok {
		return cmd, true
	}
	best, found := prefixCommand{}, false
	for _, p := range c.prefixes {
		if strings.HasPrefix(name, p.prefix) && len(p.prefix) >= len(best.prefix) {
			best, found = p, true
		}
	}
	return best.cmd, found
}

// Each calls fn for every name of the table, prefixes with their "*".
func (c *Commands) Each(fn func(name string, cmd Command)) {
	for n, cmd := range c.exact {
		fn(n, cmd)
	}
	for _, p := range c.prefixes {
		fn(p.prefix+"*", p.cmd)
	}
}

// Examples returns every example of the table, for the classifier's
// tests to run.
func (c *Commands) Examples() []Example {
	return c.examples
}
