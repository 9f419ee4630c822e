package programs

import (
	"testing"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// TestCommandJudgementsExist: every judgement the table names is one the
// code has, and every judgement in the code is used.
func TestCommandJudgementsExist(t *testing.T) {
	used := map[string]bool{}
	rules.DefaultCommands().Each(func(name string, c rules.Command) {
		if c.Judge == "" {
			return
		}
		used[c.Judge] = true
		if _, ok := judgements[c.Judge]; !ok {
			t.Errorf("%s: no judgement %q in the code", name, c.Judge)
		}
	})
	for j := range judgements {
		if !used[j] {
			t.Errorf("judgement %q is named by no entry of commands.rules", j)
		}
	}
}
