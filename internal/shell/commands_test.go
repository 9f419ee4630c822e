package shell

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/shell/rules"
)

// TestCommandExamples runs every example of commands.rules through the
// whole classifier: the table's levels are what wisp gives.
// So are assignments.rules' levels.
func TestCommandExamples(t *testing.T) {
	for file, tb := range map[string]*rules.Commands{
		"commands.rules":    rules.DefaultCommands(),
		"assignments.rules": rules.DefaultAssignments(),
	} {
		ex := tb.Examples()
		if len(ex) < 30 {
			t.Fatalf("%s has only %d examples", file, len(ex))
		}
		for _, e := range ex {
			if got := ClassifyWith(e.Line, testOpts).Level.String(); got != e.Level {
				t.Errorf("%s: example %q is %s, the table says %s", file, e.Line, got, e.Level)
			}
		}
	}
}

// TestAssignmentJudgementsExist: every judgement assignments.rules names
// is one envVar has, which otherwise fails closed.
func TestAssignmentJudgementsExist(t *testing.T) {
	rules.DefaultAssignments().Each(func(name string, c rules.Command) {
		if c.Judge == "" {
			return
		}
		r := &res{}
		n := strings.TrimSuffix(name, "*") + "FLAGS"
		cl := &classifier{opts: testOpts, table: rules.Default()}
		cl.setupRoots()
		cl.envVar(ctx{f: &frame{src: n, cwd: testOpts.Workdir}}, n, literalArg("x"), r)
		if strings.Contains(strings.Join(r.reasons, " "), "cannot judge") {
			t.Errorf("%s: no judgement %q in envVar", name, c.Judge)
		}
	})
}

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
