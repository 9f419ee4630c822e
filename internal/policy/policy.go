// Package policy holds the command policy: regular expressions that deny
// or allow shell lines before they run. It matches patterns against the
// line and against every simple command the shell parser finds in it, so a
// denied command hidden in a substitution, a wrapper or an sh -c string is
// still denied. It never runs anything and never reads files; the caller
// loads the configuration and hands the patterns in.
package policy

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell"
)

// Policy is a compiled command policy. Deny patterns win; a non-empty
// allow list means a line and every command in it must match one.
type Policy struct {
	deny  []rule
	allow []rule
	// cache keeps recent decisions (cache.go); nil keeps none.
	cache *decisionCache
}

type rule struct {
	// name is what a denial is reported by: a short name for a default,
	// commandPolicy.deny[N] or commandPolicy.allow[N] for the user's.
	name string
	// about says in a few words what the rule stops.
	about   string
	pattern string
	re      *regexp.Regexp
	// need lists substrings one of which any match must contain; a string
	// holding none of them is not searched. Empty: always search.
	need []string
}

// match runs the rule's pattern, skipping strings that cannot match: most
// commands contain none of the defaults' key words, and a substring test
// is far cheaper than the pattern.
func (r rule) match(s string) bool {
	if len(r.need) > 0 {
		found := false
		for _, n := range r.need {
			if strings.Contains(s, n) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return r.re.MatchString(s)
}

// Decision is the outcome of Check.
type Decision struct {
	Allowed bool
	// Name is the name of the rule that denied the line (a default's
	// name, such as rm-root-or-home, commandPolicy.deny[N] for the user's
	// N-th deny pattern, or AllowListName). Empty when allowed.
	Name string
	// About says in a few words what the rule stops.
	About string
	// Rule is the pattern that denied the line, or a sentence starting
	// "allow list:" when no allow pattern matched. Empty when allowed.
	Rule string
	// Command is the simple command (in normalised form) that the rule
	// matched, or failed to match; empty when it was the whole line.
	Command string
}

// AllowListName names every allow-list denial.
const AllowListName = "allow-list"

// The messages of allow-list denials.
const (
	NoAllowMatch = "allow list: no pattern matched"
	Unparsable   = "allow list: the line cannot be parsed, so its commands cannot be checked"
)

// PatternError is a pattern that does not compile. Key is
// "commandPolicy.deny" or "commandPolicy.allow" and Index the position in
// the user's list, so a config loader can say where the mistake is.
type PatternError struct {
	Key     string
	Index   int
	Pattern string
	Err     error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("%s[%d]: invalid pattern %q: %v", e.Key, e.Index, e.Pattern, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }

// cmdStart matches where a command can begin in a raw line: the start, a
// newline, an operator, a paren, a brace, a backquote or $(.
const cmdStart = `(?:^|[\n;&|(){}!` + "`" + `]|\$\()\s*`

// dir matches a directory in front of a program name (/usr/bin/).
const dir = `(?:[^\s;&|()]*/)?`

// end matches the end of a word.
const end = `(?:\s|$|[;&|)'"` + "`" + `])`

// wispSubcommands are the wisp invocations that do not start an agent.
var wispSubcommands = []string{"classify", "logs", "tools", "trust", "approvals", "help", "version", "--version", "--help", "-h", "-V", "-v"}

// Defaults returns the deny patterns that every policy has. A user's
// configuration adds to them and cannot remove them.
func Defaults() []string {
	var out []string
	for _, d := range defaultRules() {
		out = append(out, d.pattern)
	}
	return out
}

// DefaultNames returns the names of the default deny rules, in the order
// of Defaults.
func DefaultNames() []string {
	var out []string
	for _, d := range defaultRules() {
		out = append(out, d.name)
	}
	return out
}

// defaultRule is a default deny rule as written: its name, what it stops,
// its pattern and the words one of which a match must contain.
type defaultRule struct {
	name, about, pattern string
	need                 []string
}

// defaultRules compiles the default deny patterns.
func defaultRules() []rule {
	d := defaultTable()
	out := make([]rule, len(d))
	for i, r := range d {
		out[i] = rule{name: r.name, about: r.about, pattern: r.pattern, re: regexp.MustCompile(r.pattern), need: r.need}
	}
	return out
}

// defaultTable is the default deny rules. A name says what the rule stops,
// so that a person reading a refusal knows why without the pattern.
func defaultTable() []defaultRule {
	return []defaultRule{
		{"privilege-escalation", "runs a command as another user", cmdStart + dir + `(?:sudo|su|doas|pkexec|run0)` + end,
			[]string{"su", "doas", "pkexec", "run0"}},
		{"rm-root-or-home", "deletes the root or the home folder",
			cmdStart + dir + `rm(?:\s+[^\s;&|()]+)*?\s+["']?(?:/\*?|~/?\*?|\$\{?HOME\}?/?\*?)["']?` + end, []string{"rm"}},
		{"pipe-into-shell", "pipes text into a shell, which runs whatever arrives",
			`\|&?\s*(?:(?:sudo|doas|env|exec|command|nohup|time)\s+(?:-\S+\s+)*)*` + dir + `(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|yash)` + end, []string{"|"}},
		{"shell-process-substitution", "runs the output of another command as a script (bash <(curl …))",
			cmdStart + dir + `(?:sh|bash|zsh|dash|ksh)\s+(?:-\S+\s+)*<\(`, []string{"<("}},
		{"make-filesystem", "formats a disk or partition",
			cmdStart + dir + `(?:mkfs(?:\.[\w.-]+)?|mke2fs|mkswap)` + end, []string{"mk"}},
		{"dd-to-device", "writes a raw device with dd",
			cmdStart + dir + `dd\s(?:[^;&|\n]*\s)?["']?of=["']?/dev/(?:[^n\s;&|)'"]|n[^u]|nu[^l]|nul[^l]|null[^\s;&|)'"])`, []string{"dd"}},
		{"wisp-self-approval", "lets wisp answer its own approval questions",
			cmdStart + dir + `wisp\s(?:[^;&|\n]*\s)?approvals\s+(?:approve|deny)` + end, []string{"wisp"}},
		{"wisp-self-trust", "lets wisp change which projects it trusts",
			cmdStart + dir + `wisp\s(?:[^;&|\n]*\s)?trust\s+(?:allow|revoke|forget)` + end, []string{"wisp"}},
		// A bare wisp, or a first word that is not one of the subcommands
		// that only print.
		{"wisp-nested-agent", "starts another wisp agent",
			cmdStart + dir + `wisp(?:\s*$|\s*[;&|)]|\s+` + notOneOf(wispSubcommands) + end + `)`, []string{"wisp"}},
	}
}

// Compile builds a policy from the user's deny and allow patterns, after
// the defaults. A pattern that does not compile is a *PatternError.
func Compile(deny, allow []string) (*Policy, error) {
	p := &Policy{cache: newDecisionCache()}
	p.deny = append(p.deny, defaultRules()...)
	for i, d := range deny {
		re, err := regexp.Compile(d)
		if err != nil {
			return nil, &PatternError{Key: "commandPolicy.deny", Index: i, Pattern: d, Err: err}
		}
		p.deny = append(p.deny, rule{name: fmt.Sprintf("commandPolicy.deny[%d]", i), about: "matches your deny pattern", pattern: d, re: re})
	}
	for i, a := range allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, &PatternError{Key: "commandPolicy.allow", Index: i, Pattern: a, Err: err}
		}
		p.allow = append(p.allow, rule{name: fmt.Sprintf("commandPolicy.allow[%d]", i), pattern: a, re: re})
	}
	return p, nil
}

// Deny returns the deny patterns in force, defaults first.
func (p *Policy) Deny() []string {
	out := make([]string, len(p.deny))
	for i, r := range p.deny {
		out[i] = r.pattern
	}
	return out
}

// Allow returns the allow patterns.
func (p *Policy) Allow() []string {
	out := make([]string, len(p.allow))
	for i, r := range p.allow {
		out[i] = r.pattern
	}
	return out
}

// Check decides whether line may run. Deny patterns are tried on the raw
// line and on every normalised form of every simple command in it
// (shell.ParseCommands); any match denies. Then, when there is an allow
// list, the line and each of its commands must match an allow pattern.
// A line checked recently gets the decision it got then: the patterns
// cannot change.
func (p *Policy) Check(line string) Decision {
	if d, ok := p.cache.get(line); ok {
		return d
	}
	d := p.check(line)
	p.cache.put(line, d)
	return d
}

func (p *Policy) check(line string) Decision {
	cmds, perr := shell.ParseCommands(line)
	for _, r := range p.deny {
		if r.match(line) {
			return r.denial("")
		}
		for _, c := range cmds {
			for _, f := range c.Forms {
				if r.match(f) {
					return r.denial(c.Text)
				}
			}
		}
	}
	if len(p.allow) == 0 {
		return Decision{Allowed: true}
	}
	if !p.allowed(line) {
		return allowDenial(NoAllowMatch, "")
	}
	if perr != nil {
		return allowDenial(Unparsable, "")
	}
	for _, c := range cmds {
		ok := false
		for _, f := range c.Forms {
			if p.allowed(f) {
				ok = true
				break
			}
		}
		if !ok {
			return allowDenial(NoAllowMatch, c.Text)
		}
	}
	return Decision{Allowed: true}
}

func (r rule) denial(command string) Decision {
	return Decision{Name: r.name, About: r.about, Rule: r.pattern, Command: command}
}

func allowDenial(why, command string) Decision {
	return Decision{Name: AllowListName, About: strings.TrimPrefix(why, "allow list: "), Rule: why, Command: command}
}

func (p *Policy) allowed(s string) bool {
	for _, r := range p.allow {
		if r.match(s) {
			return true
		}
	}
	return false
}

// notOneOf builds a pattern for one word that is none of words. RE2 has no
// negative lookahead, so the pattern spells out the complement: a word
// that leaves the tree of the listed words at some letter, or stops short
// of one, or runs past one.
func notOneOf(words []string) string {
	type node struct {
		next map[byte]*node
		word bool
	}
	root := &node{next: map[byte]*node{}}
	for _, w := range words {
		n := root
		for i := 0; i < len(w); i++ {
			c := w[i]
			if n.next[c] == nil {
				n.next[c] = &node{next: map[byte]*node{}}
			}
			n = n.next[c]
		}
		n.word = true
	}
	const other = `\s;&|()<>`
	var walk func(n *node, top bool) string
	walk = func(n *node, top bool) string {
		var alts []string
		if !n.word && !top {
			alts = append(alts, "")
		}
		keys := make([]byte, 0, len(n.next))
		for c := range n.next {
			keys = append(keys, c)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		var excl strings.Builder
		for _, c := range keys {
			excl.WriteString(regexp.QuoteMeta(string(c)))
		}
		ex := excl.String()
		ex = strings.ReplaceAll(ex, "-", `\-`)
		alts = append(alts, `[^`+other+ex+`][^`+other+`]*`)
		for _, c := range keys {
			alts = append(alts, regexp.QuoteMeta(string(c))+`(?:`+walk(n.next[c], false)+`)`)
		}
		return strings.Join(alts, "|")
	}
	return `(?:` + walk(root, true) + `)`
}
