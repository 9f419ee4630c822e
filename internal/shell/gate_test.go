package shell_test

import (
	"testing"

	"github.com/wisp-agent/wisp/internal/policy"
	"github.com/wisp-agent/wisp/internal/shell"
)

// TestTableThroughPolicy runs the classifier's table through the default
// command policy and the classifier together, as the gate does: the
// policy never denies a line the classifier would let through as less
// than dangerous, and never denies a safe line.
func TestTableThroughPolicy(t *testing.T) {
	p, err := policy.Compile(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The policy also matches the raw line, which is deliberately blunt:
	// text that only looks like a command, in an inert here-doc, is
	// denied too. These are the table's lines where that happens.
	rawText := map[string]bool{"quoted heredoc inert": true}
	denied := 0
	for _, tc := range shell.LineTable() {
		t.Run(tc.Name, func(t *testing.T) {
			d := p.Check(tc.Line)
			v := shell.ClassifyWith(tc.Line, shell.TestOptions)
			if v.Level != tc.Want {
				t.Errorf("classifier: %s, want %s", v.Level, tc.Want)
			}
			if !d.Allowed {
				denied++
				if rawText[tc.Name] {
					return
				}
				if v.Level != shell.Dangerous {
					t.Errorf("policy denies (%s) a line the classifier calls %s", d.Rule, v.Level)
				}
			}
			if tc.Want == shell.Safe && !d.Allowed {
				t.Errorf("policy denies a safe line: %s", d.Rule)
			}
		})
	}
	if denied < 20 {
		t.Errorf("the default policy denied only %d table lines", denied)
	}
}
