package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/frontend/tui/picker"
)

// filesMsg carries the workspace's files, walked once for the picker.
type filesMsg struct{ files []string }

// key takes one key press. While a dialog is open it gets every key.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	name := k.String()
	if len(m.dialogs) > 0 {
		if name == "ctrl+c" {
			return m.ctrlCPressed()
		}
		m.answerDialog(name, k.Text)
		return nil
	}
	if cmd, done := m.completionKey(name); done {
		return cmd
	}
	switch name {
	case "ctrl+c":
		return m.ctrlCPressed()
	case "esc":
		if m.busy {
			m.cancelTurn()
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit("exit")
		}
	case "enter":
		text := m.input.Value()
		m.input.Reset()
		m.layout()
		return m.submit(text)
	case "pgup":
		m.scrollBy(max(1, m.convHeight()-2))
		return nil
	case "pgdown":
		m.scrollBy(-max(1, m.convHeight()-2))
		return nil
	case "ctrl+o":
		m.expanded = !m.expanded
		m.conv.invalidateAll()
		return nil
	case "up":
		if m.input.Line() == 0 {
			if s, ok := m.hist.Prev(m.input.Value()); ok {
				m.setInput(s)
			}
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 {
			if s, ok := m.hist.Next(); ok {
				m.setInput(s)
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.layout()
	return tea.Batch(cmd, m.refreshCompletion())
}

func (m *Model) setInput(s string) {
	m.input.SetValue(s)
	m.input.CursorEnd()
	m.layout()
}

// ctrlCPressed cancels what runs (or clears the input); a second press
// within quitWindow quits.
func (m *Model) ctrlCPressed() tea.Cmd {
	now := m.now()
	if !m.ctrlC.IsZero() && now.Sub(m.ctrlC) < quitWindow {
		return m.quit("interrupted")
	}
	m.ctrlC = now
	switch {
	case len(m.dialogs) > 0 || m.busy:
		m.denyDialogs()
		m.cancelTurn()
	case m.input.Value() != "":
		m.input.Reset()
		m.layout()
	default:
		m.conv.add(entryNote, "(press Ctrl+C again to quit)")
	}
	return nil
}

// quit leaves the screen once a running turn has wound down.
func (m *Model) quit(reason string) tea.Cmd {
	m.end.reason = reason
	m.denyDialogs()
	if m.busy {
		m.cancelTurn()
		if reason != "interrupted" {
			// Wait for the turn: turnDone quits.
			return nil
		}
	}
	return tea.Quit
}

// completion is the list shown above the input: slash commands, or
// files for @.
type completion struct {
	items []string
	sel   int
	// at is where the completed word starts in the input; file says it
	// is an @ path.
	at   int
	file bool
}

// completionKey lets the list take Tab, ↑, ↓ and Enter while it shows.
func (m *Model) completionKey(name string) (tea.Cmd, bool) {
	if len(m.compl.items) == 0 {
		return nil, false
	}
	switch name {
	case "up":
		m.compl.sel = (m.compl.sel + len(m.compl.items) - 1) % len(m.compl.items)
		return nil, true
	case "down":
		m.compl.sel = (m.compl.sel + 1) % len(m.compl.items)
		return nil, true
	case "esc":
		m.compl = completion{}
		return nil, true
	case "tab", "enter":
		m.accept()
		if name == "enter" && !m.compl.file && commandTakesNoArgs(m.input.Value()) {
			text := m.input.Value()
			m.input.Reset()
			m.layout()
			return m.submit(text), true
		}
		return nil, true
	}
	return nil, false
}

// accept puts the chosen item into the input.
func (m *Model) accept() {
	v := m.input.Value()
	item := m.compl.items[m.compl.sel]
	if m.compl.file {
		m.setInput(v[:m.compl.at] + "@" + item + " ")
	} else {
		m.setInput(item + " ")
	}
	m.compl = completion{}
}

// refreshCompletion follows what is typed: a / at the start lists the
// commands, an @ word lists the files that match it.
func (m *Model) refreshCompletion() tea.Cmd {
	v := m.input.Value()
	m.compl.items = nil
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		for _, c := range commands {
			if strings.HasPrefix(c.name, v) {
				m.compl.items = append(m.compl.items, c.name)
			}
		}
		m.compl.file, m.compl.sel = false, min(m.compl.sel, max(0, len(m.compl.items)-1))
		return nil
	}
	at := strings.LastIndexAny(v, " \n") + 1
	word := v[at:]
	if !strings.HasPrefix(word, "@") {
		return nil
	}
	if m.files == nil {
		if m.filesAsked {
			return nil
		}
		m.filesAsked = true
		root := m.conf.Workdir
		return func() tea.Msg { return filesMsg{files: picker.Files(root)} }
	}
	m.compl.items = picker.Rank(m.files, word[1:], 8)
	m.compl.at, m.compl.file = at, true
	m.compl.sel = min(m.compl.sel, max(0, len(m.compl.items)-1))
	return nil
}
