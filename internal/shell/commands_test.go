package shell

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/programs"
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
// is one programs.EnvVar has, which otherwise fails closed.
func TestAssignmentJudgementsExist(t *testing.T) {
	rules.DefaultAssignments().Each(func(name string, c rules.Command) {
		if c.Judge == "" {
			return
		}
		r := &judge.Result{}
		n := strings.TrimSuffix(name, "*") + "FLAGS"
		cl := &classifier{opts: testOpts, table: rules.Default()}
		cl.setupRoots()
		programs.EnvVar(cl.walk(ctx{f: &frame{src: n, cwd: testOpts.Workdir}}), n, judge.LiteralArg("x"), r)
		if strings.Contains(strings.Join(r.Reasons, " "), "cannot judge") {
			t.Errorf("%s: no judgement %q in programs.EnvVar", name, c.Judge)
		}
	})
}
