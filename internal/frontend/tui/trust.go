package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
	"github.com/wisp-agent/wisp/internal/trust"
)

// trustExplanation tells the person what the answer changes.
const trustExplanation = "Trusting a project lets wisp load its .wisp/settings.json, AGENTS.md/CLAUDE.md and skills. Untrusted, wisp still works but ignores them."

// trustModel is the trust question, asked before the screen opens: y
// trusts, n, Enter or Esc does not, Ctrl+C leaves it unanswered.
type trustModel struct {
	project       string
	noColor       bool
	answered, yes bool
	width         int
}

func (t *trustModel) Init() tea.Cmd { return nil }

func (t *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		t.width = msg.Width
	case tea.KeyPressMsg:
		switch msg.String() {
		case "y", "Y":
			t.answered, t.yes = true, true
			return t, tea.Quit
		case "n", "N", "enter", "esc":
			t.answered = true
			return t, tea.Quit
		case "ctrl+c", "ctrl+d":
			return t, tea.Quit
		}
	}
	return t, nil
}

func (t *trustModel) View() tea.View {
	st := newStyles(t.noColor)
	q := trust.Question(render.Clean(t.project))
	answer := ""
	if t.answered {
		answer = map[bool]string{true: "y", false: "n"}[t.yes] + "\n"
	}
	width := t.width
	if width <= 0 {
		width = 80
	}
	explain := strings.Join(render.Wrap(trustExplanation, width), "\n")
	return tea.NewView(st.faint.Render(explain) + "\n" + st.dialog.Render(q) + " [y/n] " + answer)
}
