package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/shell"
)

// A kept decision is the one the line gets afresh, line by line and
// policy by policy: a cache keyed wrongly, or shared between policies,
// hands one line's or one policy's answer to another.
func TestCheckCacheKeepsEachLinesDecision(t *testing.T) {
	deny := mustCompile(t, []string{`^make\s+deploy`}, nil)
	allow := mustCompile(t, nil, []string{`^make\b`})
	for _, tc := range []struct {
		name         string
		line         string
		deny, allow  bool
		denyRuleName string
	}{
		{"make test", "make test", true, true, ""},
		{"make deploy", "make deploy", false, true, "commandPolicy.deny[0]"},
		{"sudo make", "sudo make test", false, false, "privilege-escalation"},
		{"ls", "ls -la", true, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Twice each, after every other line has been asked too.
			for round := 0; round < 2; round++ {
				if d := deny.Check(tc.line); d.Allowed != tc.deny || d.Name != tc.denyRuleName {
					t.Errorf("round %d: deny policy: %+v, want allowed=%v rule %q", round, d, tc.deny, tc.denyRuleName)
				}
				if d := allow.Check(tc.line); d.Allowed != tc.allow {
					t.Errorf("round %d: allow policy: %+v, want allowed=%v", round, d, tc.allow)
				}
			}
		})
	}
}

// The cache stays bounded, drops the least recently used line first, and
// a dropped line is checked afresh with the same answer.
func TestCheckCacheBound(t *testing.T) {
	p := mustCompile(t, []string{`^echo 7$`}, nil)
	for i := 0; i < cacheSize+50; i++ {
		p.Check(fmt.Sprintf("echo %d", i))
		// "echo 7" stays the most recently used.
		if d := p.Check("echo 7"); d.Allowed {
			t.Fatalf("echo 7 allowed after %d lines", i)
		}
	}
	if n := p.cache.len(); n != cacheSize {
		t.Fatalf("cache holds %d decisions, want %d", n, cacheSize)
	}
	if _, ok := p.cache.get("echo 0"); ok {
		t.Error("the least recently used line was kept")
	}
	if _, ok := p.cache.get("echo 7"); !ok {
		t.Error("the most recently used line was dropped")
	}
	if d := p.Check("echo 0"); !d.Allowed {
		t.Errorf("echo 0 checked afresh: %+v", d)
	}
	long := "echo " + strings.Repeat("x", cacheLineMax)
	p.Check(long)
	if _, ok := p.cache.get(long); ok {
		t.Error("a line over cacheLineMax was kept")
	}
}

// Every line of the default cases gets from the cache what a fresh check
// gives, under user patterns too.
func TestCheckCacheMatchesFreshCheck(t *testing.T) {
	p := mustCompile(t, []string{`^git\s+push`}, []string{`^(git|ls|go|echo)\b`})
	for round := 0; round < 2; round++ {
		for _, tc := range defaultCases {
			if got, want := p.Check(tc.line), p.check(tc.line); got != want {
				t.Errorf("round %d: %q: cached %+v, fresh %+v", round, tc.line, got, want)
			}
		}
	}
}

// A rule's key words only skip strings the pattern cannot match: every
// match a default pattern finds, in every test line and every command in
// it, holds one of them.
func TestKeyWordsNeverSkipAMatch(t *testing.T) {
	for _, r := range defaultRules() {
		if len(r.need) == 0 {
			continue
		}
		for _, tc := range defaultCases {
			subjects := []string{tc.line}
			cmds, _ := shell.ParseCommands(tc.line)
			for _, c := range cmds {
				subjects = append(subjects, c.Forms...)
			}
			for _, s := range subjects {
				for _, m := range r.re.FindAllString(s, -1) {
					if !containsAny(m, r.need) {
						t.Errorf("%s: match %q in %q holds none of %q", r.name, m, s, r.need)
					}
				}
			}
		}
	}
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Parallel tool calls check lines at once.
func TestCheckCacheConcurrent(t *testing.T) {
	p := mustCompile(t, nil, nil)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 2*cacheSize; i++ {
				line := fmt.Sprintf("echo %d", i%(cacheSize+10))
				if d := p.Check(line); !d.Allowed {
					t.Errorf("%q denied: %+v", line, d)
				}
				if d := p.Check("sudo ls"); d.Allowed {
					t.Error("sudo ls allowed")
				}
			}
			done <- true
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
