package host

import "github.com/wisp-agent/wisp/internal/event"

// Subscribe hands every later event of the session to fn, in order, on a
// goroutine of its own, until the returned function is called; that
// function returns once fn has seen what was published before it (or a
// few seconds passed). While fn is behind, consecutive text deltas reach
// it joined into one; no other event is dropped. A run's Prompt returns,
// and a question goes to the frontend's Approver, only once every
// subscriber has caught up, so output stays in order.
func (s *Session) Subscribe(fn event.Sink) (unsubscribe func()) {
	return s.bus.Subscribe(fn)
}
