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
}

type rule struct {
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
	// Rule is the pattern that denied the line, or a sentence starting
	// "allow list:" when no allow pattern matched. Empty when allowed.
	Rule string
	// Command is the simple command (in normalised form) that the rule
	// matched, or failed to match; empty when it was the whole line.
	Command string
}

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

// defaultRules are the default deny patterns, each with the words one of
// which a match must contain.
func defaultRules() []rule {
	p := defaultPatterns()
	need := [][]string{
		{"su", "doas", "pkexec", "run0"},
		{"rm"},
		{"|"},
		{"<("},
		{"mk"},
		{"dd"},
		{"wisp"},
		{"wisp"},
		{"wisp"},
	}
	out := make([]rule, len(p))
	for i := range p {
		out[i] = rule{pattern: p[i], re: regexp.MustCompile(p[i])}
		if i < len(need) {
			out[i].need = need[i]
		}
	}
	return out
}

func defaultPatterns() []string {
	return []string{
		// Privilege escalation.
		cmdStart + dir + `(?:sudo|su|doas|pkexec|run0)` + end,
		// Deleting the root or the home directory.
		cmdStart + dir + `rm(?:\s+[^\s;&|()]+)*?\s+["']?(?:/\*?|~/?\*?|\$\{?HOME\}?/?\*?)["']?` + end,
		// Piping anything into a shell.
		`\|&?\s*(?:(?:sudo|doas|env|exec|command|nohup|time)\s+(?:-\S+\s+)*)*` + dir + `(?:sh|bash|zsh|dash|ksh|mksh|ash|fish|csh|tcsh|yash)` + end,
		// A shell running a process substitution: bash <(curl ...).
		cmdStart + dir + `(?:sh|bash|zsh|dash|ksh)\s+(?:-\S+\s+)*<\(`,
		// Making file systems.
		cmdStart + dir + `(?:mkfs(?:\.[\w.-]+)?|mke2fs|mkswap)` + end,
		// Writing raw devices with dd.
		cmdStart + dir + `dd\s(?:[^;&|\n]*\s)?["']?of=["']?/dev/(?:[^n\s;&|)'"]|n[^u]|nu[^l]|nul[^l]|null[^\s;&|)'"])`,
		// wisp answering its own approval requests.
		cmdStart + dir + `wisp\s(?:[^;&|\n]*\s)?approvals\s+(?:approve|deny)` + end,
		// wisp trusting a project on its own.
		cmdStart + dir + `wisp\s(?:[^;&|\n]*\s)?trust\s+(?:allow|revoke|forget)` + end,
		// wisp starting another agent: a bare wisp, or a first word that is
		// not one of the subcommands that only print.
		cmdStart + dir + `wisp(?:\s*$|\s*[;&|)]|\s+` + notOneOf(wispSubcommands) + end + `)`,
	}
}

// Compile builds a policy from the user's deny and allow patterns, after
// the defaults. A pattern that does not compile is a *PatternError.
func Compile(deny, allow []string) (*Policy, error) {
	p := &Policy{}
	p.deny = append(p.deny, defaultRules()...)
	for i, d := range deny {
		re, err := regexp.Compile(d)
		if err != nil {
			return nil, &PatternError{Key: "commandPolicy.deny", Index: i, Pattern: d, Err: err}
		}
		p.deny = append(p.deny, rule{pattern: d, re: re})
	}
	for i, a := range allow {
		re, err := regexp.Compile(a)
		if err != nil {
			return nil, &PatternError{Key: "commandPolicy.allow", Index: i, Pattern: a, Err: err}
		}
		p.allow = append(p.allow, rule{pattern: a, re: re})
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
func (p *Policy) Check(line string) Decision {
	cmds, perr := shell.ParseCommands(line)
	for _, r := range p.deny {
		if r.match(line) {
			return Decision{Rule: r.pattern}
		}
		for _, c := range cmds {
			for _, f := range c.Forms {
				if r.match(f) {
					return Decision{Rule: r.pattern, Command: c.Text}
				}
			}
		}
	}
	if len(p.allow) == 0 {
		return Decision{Allowed: true}
	}
	if !p.allowed(line) {
		return Decision{Rule: NoAllowMatch}
	}
	if perr != nil {
		return Decision{Rule: Unparsable}
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
			return Decision{Rule: NoAllowMatch, Command: c.Text}
		}
	}
	return Decision{Allowed: true}
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
