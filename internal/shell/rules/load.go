package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The program table is a line-oriented text: a "program NAME [VERB]" line
// opens a rule and the lines after it, each a keyword and its words, fill
// it in. docs/classifier.md describes every keyword.

type parser struct {
	t    *Table
	rl   *Rule
	line int
}

func (t *Table) parsePrograms(text string) error {
	p := &parser{t: t}
	for i, raw := range strings.Split(text, "\n") {
		p.line = i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if err := p.keyword(key, rest); err != nil {
			return fmt.Errorf("programs.rules line %d: %w", p.line, err)
		}
	}
	return nil
}

func (p *parser) keyword(key, rest string) error {
	if key == "program" {
		return p.open(rest)
	}
	if p.rl == nil {
		return fmt.Errorf("%q before any program line", key)
	}
	rl := p.rl
	switch key {
	case "why":
		rl.Why = rest
	case "never":
		eff, why, err := effectAndWhy(rest)
		if err != nil {
			return err
		}
		rl.never, rl.neverWhy = eff, why
	case "flags":
		return p.opts(strings.Fields(rest), option{})
	case "values":
		return p.opts(strings.Fields(rest), option{value: true})
	case "optional":
		return p.opts(strings.Fields(rest), option{optional: true})
	case "reads":
		return p.opts(strings.Fields(rest), option{value: true, reads: true})
	case "pattern":
		return p.opts(strings.Fields(rest), option{value: true, pattern: true})
	case "pattern-file":
		return p.opts(strings.Fields(rest), option{value: true, pattern: true, reads: true})
	case "writes", "runs", "network", "secret", "private":
		names, why, _ := strings.Cut(rest, ":")
		return p.opts(strings.Fields(names), option{effect: effectNames[key], why: strings.TrimSpace(why)})
	case "bsd":
		return p.bsd(rest, option{})
	case "bsd-secret":
		letters, why, _ := strings.Cut(rest, ":")
		return p.bsd(strings.TrimSpace(letters), option{effect: Secret, why: strings.TrimSpace(why)})
	case "style":
		return p.style(strings.Fields(rest))
	case "operands":
		return p.operands(strings.Fields(rest))
	case "deny-text":
		words, why, _ := strings.Cut(rest, ":")
		if strings.TrimSpace(why) == "" {
			return fmt.Errorf("deny-text needs a reason after ':'")
		}
		for _, w := range strings.Fields(words) {
			rl.denyText = append(rl.denyText, denied{w, strings.TrimSpace(why)})
		}
	case "match":
		rl.match = append(rl.match, rest)
	case "not_match":
		rl.notMatch = append(rl.notMatch, rest)
	default:
		return fmt.Errorf("unknown keyword %q", key)
	}
	return nil
}

func (p *parser) open(rest string) error {
	f := strings.Fields(rest)
	if len(f) < 1 || len(f) > 2 {
		return fmt.Errorf("want program NAME [VERB], got %q", rest)
	}
	rl := &Rule{Name: f[0], opts: map[string]option{}, max: -1}
	key := f[0]
	if len(f) == 2 {
		rl.Verb = f[1]
		key += " " + f[1]
		parent := p.t.rules[f[0]]
		if parent == nil || !parent.subs {
			return fmt.Errorf("subcommand rule %q before a program %s with style subcommands", key, f[0])
		}
	}
	if _, dup := p.t.rules[key]; dup {
		return fmt.Errorf("program %q twice", key)
	}
	p.t.rules[key] = rl
	p.rl = rl
	return nil
}

func (p *parser) opts(names []string, o option) error {
	if len(names) == 0 {
		return fmt.Errorf("no options listed")
	}
	for _, n := range names {
		if o.effect != Read && o.why == "" {
			return fmt.Errorf("option %s has an effect but no reason after ':'", n)
		}
		if _, dup := p.rl.opts[n]; dup {
			return fmt.Errorf("option %s of %s listed twice", n, p.rl.title())
		}
		if !strings.HasPrefix(n, "-") && !p.rl.words {
			return fmt.Errorf("option %s does not start with '-'", n)
		}
		p.rl.opts[n] = o
		p.rl.risky = p.rl.risky || o.effect != Read || o.reads
	}
	return nil
}

func (p *parser) bsd(letters string, o option) error {
	if p.rl.bsd == nil {
		p.rl.bsd = map[byte]option{}
	}
	for i := 0; i < len(letters); i++ {
		p.rl.bsd[letters[i]] = o
	}
	return nil
}

func (p *parser) style(words []string) error {
	for _, w := range words {
		switch w {
		case "words":
			p.rl.words = true
		case "digits":
			p.rl.digits = true
		case "posix":
			p.rl.posix = true
		case "subcommands":
			p.rl.subs = true
		case "textopts":
			p.rl.textOpts = true
		default:
			return fmt.Errorf("unknown style %q", w)
		}
	}
	return nil
}

func (p *parser) operands(words []string) error {
	if len(words) == 0 {
		return fmt.Errorf("operands needs a kind")
	}
	k, ok := operandNames[words[0]]
	if !ok {
		return fmt.Errorf("unknown operand kind %q", words[0])
	}
	p.rl.operands = k
	if len(words) == 3 && words[1] == "max" {
		n, err := strconv.Atoi(words[2])
		if err != nil || n < 0 {
			return fmt.Errorf("bad operand count %q", words[2])
		}
		p.rl.max = n
	} else if len(words) != 1 {
		return fmt.Errorf("want operands KIND [max N]")
	}
	return nil
}

func effectAndWhy(rest string) (Effect, string, error) {
	name, why, _ := strings.Cut(rest, " ")
	eff, ok := effectNames[name]
	if !ok || eff == Read {
		return 0, "", fmt.Errorf("unknown effect %q (want writes, runs, network or secret)", name)
	}
	if strings.TrimSpace(why) == "" {
		return 0, "", fmt.Errorf("effect %s needs a reason", name)
	}
	return eff, strings.TrimSpace(why), nil
}

// parseVariables reads "EFFECT NAME... : why" lines.
func (t *Table) parseVariables(text string) error {
	for i, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, why, ok := strings.Cut(line, ":")
		f := strings.Fields(head)
		if !ok || len(f) < 2 || strings.TrimSpace(why) == "" {
			return fmt.Errorf("variables.rules line %d: want EFFECT NAME... : why", i+1)
		}
		eff, known := effectNames[f[0]]
		if !known {
			return fmt.Errorf("variables.rules line %d: unknown effect %q", i+1, f[0])
		}
		for _, n := range f[1:] {
			t.vars = append(t.vars, varRule{pattern: n, effect: eff, why: strings.TrimSpace(why)})
		}
	}
	// Exact names before prefixes, longer prefixes first, so that
	// GIT_* cannot hide a more specific entry.
	slices.SortStableFunc(t.vars, func(a, b varRule) int {
		as, bs := strings.HasSuffix(a.pattern, "*"), strings.HasSuffix(b.pattern, "*")
		switch {
		case as != bs && !as:
			return -1
		case as != bs:
			return 1
		}
		return len(b.pattern) - len(a.pattern)
	})
	return nil
}

func (t *Table) sortedKeys() []string {
	keys := make([]string, 0, len(t.rules))
	for k := range t.rules {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkExamples runs a rule's examples through the whole table.
func (t *Table) checkExamples(rl *Rule) error {
	if rl.never == Read && !rl.subs && len(rl.match) == 0 {
		return fmt.Errorf("rule %s: a read-only rule needs match examples", rl.title())
	}
	if len(rl.notMatch) == 0 && !rl.subs {
		return fmt.Errorf("rule %s: needs not_match examples", rl.title())
	}
	for _, ex := range rl.match {
		words, err := Split(ex)
		if err != nil {
			return fmt.Errorf("rule %s: match %q: %w", rl.title(), ex, err)
		}
		if r := t.Check(words); !r.ReadOnly() || r.Rule != rl {
			return fmt.Errorf("rule %s: match example %q is not accepted by it: %v", rl.title(), ex, r.Findings)
		}
	}
	for _, ex := range rl.notMatch {
		words, err := Split(ex)
		if err != nil {
			return fmt.Errorf("rule %s: not_match %q: %w", rl.title(), ex, err)
		}
		if r := t.Check(words); r.ReadOnly() {
			return fmt.Errorf("rule %s: not_match example %q is accepted", rl.title(), ex)
		}
	}
	return nil
}

// Examples returns every rule's examples, for tests that run them through
// the whole classifier.
func (t *Table) Examples() (match, notMatch []string) {
	for _, k := range t.sortedKeys() {
		rl := t.rules[k]
		match = append(match, rl.match...)
		notMatch = append(notMatch, rl.notMatch...)
	}
	return match, notMatch
}

// Split splits an example line into words: blanks separate words, and
// single or double quotes keep text together (nothing is expanded).
func Split(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if in {
		words = append(words, b.String())
	}
	return words, nil
}
