package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
)

// scene fills a screen with a short conversation: a prompt, an answer
// in markdown, an edit shown as a diff and a command with long output.
func scene(m *Model) {
	run(m, runStartMsg{})
	m.conv.add(entryUser, "rename the greeting and run the tests")
	run(m, assistantMsg{})
	run(m, deltaMsg{text: "I'll **edit** `main.go`, then run the tests."})
	run(m, assistantEnd{usage: &usageInfo{input: 12000, output: 345}})
	run(m, toolCallMsg{id: "e1", tool: "edit", class: "mutating", args: `{"path":"main.go","old_text":"package main\n\nfunc hello() string {\n\treturn \"hello\"\n}\n","new_text":"package main\n\nfunc greet() string {\n\treturn \"hello\"\n}\n"}`})
	run(m, toolStartMsg{id: "e1"})
	run(m, askedMsg{id: "e1", level: "moderate", reasons: "changes files in the workspace"})
	run(m, verdictMsg{id: "e1", approved: true})
	run(m, toolEndMsg{id: "e1", elapsed: 12 * time.Millisecond})
	run(m, toolResultMsg{id: "e1", tool: "edit", result: "edited main.go", mark: "✓"})
	var out strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&out, "ok  \tpkg/%02d\t0.%02ds\n", i, i)
	}
	run(m, toolCallMsg{id: "b1", tool: "bash", class: "command", args: `{"command":"go test ./..."}`})
	run(m, toolStartMsg{id: "b1"})
	run(m, toolEndMsg{id: "b1", elapsed: 2300 * time.Millisecond})
	run(m, toolResultMsg{id: "b1", tool: "bash", result: out.String(), mark: "✓"})
}

func TestGoldenFrames(t *testing.T) {
	dialogReq := gate.Request{Tool: "bash", Class: tool.Command, Subject: "git push origin main\x1b[8m", Part: "git push origin main", Level: shell.Moderate,
		Reasons: []string{"reaches the network", "changes a remote"}, Pattern: "git push"}
	tests := []struct {
		name    string
		w, h    int
		noColor bool
		setup   func(m *Model)
		// part picks what the golden holds: the whole frame or a piece.
		part func(m *Model) string
	}{
		{"approval_dialog", 80, 24, false, func(m *Model) { scene(m); ask(m, dialogReq) }, nil},
		{"approval_dialog_dangerous", 80, 24, true, func(m *Model) {
			ask(m, gate.Request{Tool: "bash", Class: tool.Command, Subject: "rm -rf build\nrm -rf ~", Part: "rm -rf ~", Level: shell.Dangerous, Reasons: []string{"deletes files outside the workspace"}})
		}, nil},
		{"card_diff", 80, 24, false, scene, func(m *Model) string {
			return strings.Join(m.conv.calls["e1"].lines(80, &m.st, false, "⠋", fixedNow), "\n")
		}},
		{"folded_output", 80, 24, false, scene, func(m *Model) string {
			return strings.Join(m.conv.calls["b1"].lines(80, &m.st, false, "⠋", fixedNow), "\n")
		}},
		{"expanded_output", 80, 40, true, func(m *Model) { scene(m); m.expanded = true; m.conv.invalidateAll() }, nil},
		{"footer", 80, 24, false, func(m *Model) {
			scene(m)
			m.pendings = []pending{{text: "use rg"}, {follow: true, text: "then commit"}}
		}, func(m *Model) string { return m.footer() }},
		{"frame_80x24", 80, 24, false, scene, nil},
		{"frame_80x24_no_color", 80, 24, true, func(m *Model) {
			scene(m)
			m.busy, m.busySince = true, fixedNow.Add(-3*time.Second)
			m.pendings = []pending{{text: "use rg instead"}}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModel(t, &fakeSession{}, tt.w, tt.h, tt.noColor)
			tt.setup(m)
			got := m.Frame()
			if tt.part != nil {
				got = tt.part(m)
			}
			if tt.noColor && hasColour(got) {
				t.Errorf("a colour under NO_COLOR: %q", got)
			}
			golden(t, tt.name, got)
		})
	}
}

// sgr finds the parameters of every SGR sequence.
var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// hasColour says whether any SGR sequence in s sets a colour.
func hasColour(s string) bool {
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for p := range strings.SplitSeq(m[1], ";") {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 107) {
				return true
			}
		}
	}
	return false
}
