package tui

import (
	"context"
	"errors"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// onSession draws what the session said (events.go made the message).
func (m *Model) onSession(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case runStartMsg:
		if msg.queued && (m.dropPending(msg.prompt) || !m.shownLast(msg.prompt)) {
			// A follow-up (or a steer that came too late) runs now.
			m.conv.add(entryUser, msg.prompt)
		}
	case assistantMsg:
		m.reconcile()
	case deltaMsg:
		m.conv.streamingAnswer().text.WriteString(msg.text)
		m.conv.last().invalidate()
	case assistantEnd:
		m.conv.endAnswer()
		if msg.usage != nil {
			m.ctxTokens = msg.usage.input + msg.usage.output
		}
	case toolCallMsg:
		c := m.conv.call(msg.id, msg.tool)
		c.class, c.args = msg.class, msg.args
	case toolStartMsg:
		if c := m.conv.known(msg.id); c != nil {
			c.running, c.started = true, m.now()
			return m.startTicking()
		}
	case toolEndMsg:
		if c := m.conv.known(msg.id); c != nil {
			c.running, c.elapsed = false, msg.elapsed
		}
	case toolResultMsg:
		m.toolResult(msg)
	case askedMsg:
		if c := m.conv.known(msg.id); c != nil {
			c.asked, c.reasons = msg.level, msg.reasons
		}
	case verdictMsg:
		m.verdict(msg)
	case noteMsg:
		kind := entryNote
		if msg.isErr {
			kind = entryError
		}
		m.conv.endAnswer()
		m.conv.add(kind, msg.text)
	case runEndMsg:
		m.conv.endAnswer()
	}
	return nil
}

func (m *Model) verdict(msg verdictMsg) {
	c := m.conv.known(msg.id)
	if c == nil {
		return
	}
	switch {
	case msg.approved:
		c.verdict = "approved"
	case msg.reason != "":
		c.verdict = "denied: " + msg.reason
	default:
		c.verdict = "denied"
	}
}

func (m *Model) toolResult(msg toolResultMsg) {
	c := m.conv.call(msg.id, msg.tool)
	if c.tool == "" {
		c.tool = msg.tool
	}
	c.running, c.done = false, true
	c.result, c.mark, c.isError, c.refused = msg.result, msg.mark, msg.isError, msg.refused
	if c.elapsed == 0 && !c.started.IsZero() {
		c.elapsed = m.now().Sub(c.started)
	}
	m.reconcile()
}

// reconcile moves the steers the session has taken from the pending
// list into the conversation: they reach the model with its next
// request.
func (m *Model) reconcile() {
	if len(m.pendings) == 0 {
		return
	}
	q := m.s.Queued()
	waiting := map[string]int{}
	for _, t := range q.Steer {
		waiting["s"+t]++
	}
	for _, t := range q.FollowUp {
		waiting["f"+t]++
	}
	kept := m.pendings[:0]
	for _, p := range m.pendings {
		k := "s" + p.text
		if p.follow {
			k = "f" + p.text
		}
		if waiting[k] > 0 {
			waiting[k]--
			kept = append(kept, p)
			continue
		}
		if !p.follow {
			m.conv.endAnswer()
			m.conv.add(entryUser, p.text)
		}
	}
	m.pendings = kept
}

// dropPending forgets the pending entry a queued run has started, and
// says whether there was one.
func (m *Model) dropPending(text string) bool {
	for i, p := range m.pendings {
		if p.text == text {
			m.pendings = append(m.pendings[:i], m.pendings[i+1:]...)
			return true
		}
	}
	return false
}

// shownLast says the newest prompt on screen is text.
func (m *Model) shownLast(text string) bool {
	for i := len(m.conv.entries) - 1; i >= 0; i-- {
		if e := m.conv.entries[i]; e.kind == entryUser {
			return e.text.String() == text
		}
	}
	return false
}

// submit sends what was typed: a command, a !command, a prompt, or,
// while a turn runs, a steer.
func (m *Model) submit(text string) tea.Cmd {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return nil
	}
	if err := m.hist.Add(text); err != nil {
		m.conv.add(entryError, err.Error())
	}
	m.scroll = 0
	if strings.HasPrefix(trimmed, "/") {
		return m.command(trimmed)
	}
	if line, ok := strings.CutPrefix(trimmed, "!"); ok {
		return m.shell(strings.TrimSpace(line))
	}
	if m.busy {
		if err := m.s.Steer(text); err != nil {
			m.conv.add(entryError, "not queued: "+err.Error())
			return nil
		}
		m.pendings = append(m.pendings, pending{text: text})
		return nil
	}
	return m.startTurn(text)
}

// startTurn runs one prompt; its end comes back as turnDoneMsg.
func (m *Model) startTurn(text string) tea.Cmd {
	m.conv.add(entryUser, text)
	if len(m.shellOut) > 0 {
		text = strings.Join(m.shellOut, "\n\n") + "\n\n" + text
		m.shellOut = nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy, m.busySince, m.cancel = true, m.now(), cancel
	m.turns.Add(1)
	s, turns := m.s, m.turns
	run := func() tea.Msg {
		defer turns.Done()
		defer cancel()
		_, err := s.Prompt(ctx, text)
		return turnDoneMsg{err: err, cancelled: ctx.Err() != nil}
	}
	return tea.Batch(run, m.startTicking())
}

// turnDone ends a turn: what it left pending is shown as dropped.
func (m *Model) turnDone(msg turnDoneMsg) tea.Cmd {
	m.busy, m.cancel = false, nil
	m.conv.endAnswer()
	for _, e := range m.conv.calls {
		if e.card.running {
			e.card.running = false
			e.invalidate()
		}
	}
	switch {
	case msg.cancelled:
		m.conv.add(entryNote, "(turn cancelled)")
	case msg.err != nil && !errors.Is(msg.err, context.Canceled):
		// An error event has shown it already, unless it came before any.
		if l := m.conv.last(); l == nil || l.kind != entryError {
			m.conv.add(entryError, "error: "+msg.err.Error())
		}
	}
	m.pendings = nil
	switch {
	case m.s.TranscriptBroken():
		// The warning is out; the session ends with this turn.
		return m.quit("exit")
	case m.s.Failed() != "":
		// The audit log failed (an error event said why).
		m.end.failed = m.s.Failed()
		return m.quit("exit")
	}
	return m.quitIfLeaving()
}

// cancelTurn stops the running turn; what waited for it goes back into
// the input so that nothing typed is lost.
func (m *Model) cancelTurn() {
	dropped := m.s.Cancel()
	if m.cancel != nil {
		m.cancel()
	}
	if len(dropped) > 0 {
		back := strings.Join(dropped, "\n")
		if v := m.input.Value(); v != "" {
			back += "\n" + v
		}
		m.input.SetValue(back)
		m.layout()
	}
	m.pendings = nil
}
