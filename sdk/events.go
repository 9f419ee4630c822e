package sdk

import (
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
)

// Event is one thing that happened in a session: one of the event
// types below, each with only its own fields (docs/events.md lists
// them). Switch on the type:
//
//	switch e := e.(type) {
//	case sdk.MessageDeltaEvent:
//		fmt.Print(e.Delta)
//	case sdk.ToolResultEvent:
//		fmt.Println(e.Tool, e.Outcome)
//	}
type Event = event.Event

// EventHeader is what every event carries: its time, session and turn.
type EventHeader = event.Header

// The event types.
type (
	AgentStartEvent       = event.AgentStart
	AgentEndEvent         = event.AgentEnd
	TurnStartEvent        = event.TurnStart
	TurnEndEvent          = event.TurnEnd
	MessageStartEvent     = event.MessageStart
	MessageDeltaEvent     = event.MessageDelta
	MessageEndEvent       = event.MessageEnd
	ToolCallEvent         = event.ToolCall
	ToolStartEvent        = event.ToolStart
	ToolEndEvent          = event.ToolEnd
	ToolResultEvent       = event.ToolResult
	ApprovalRequestEvent  = event.ApprovalRequest
	ApprovalDecisionEvent = event.ApprovalDecision
	RetryEvent            = event.Retry
	ErrorEvent            = event.Error
	SessionEndEvent       = event.SessionEnd
)

// EventType names an event kind, as Kind returns it and its JSON form's
// "type" says.
type EventType = event.Type

// The event kinds.
const (
	EventAgentStart       = event.TypeAgentStart
	EventAgentEnd         = event.TypeAgentEnd
	EventTurnStart        = event.TypeTurnStart
	EventTurnEnd          = event.TypeTurnEnd
	EventMessageStart     = event.TypeMessageStart
	EventMessageDelta     = event.TypeMessageDelta
	EventMessageEnd       = event.TypeMessageEnd
	EventToolCall         = event.TypeToolCall
	EventToolStart        = event.TypeToolStart
	EventToolEnd          = event.TypeToolEnd
	EventToolResult       = event.TypeToolResult
	EventApprovalRequest  = event.TypeApprovalRequest
	EventApprovalDecision = event.TypeApprovalDecision
	EventRetry            = event.TypeRetry
	EventError            = event.TypeError
	EventSessionEnd       = event.TypeSessionEnd
)

// EventBuffer is the capacity of the channel Events returns.
const EventBuffer = 256

// drainGrace is how long, after Close, events still waiting are offered
// to a reader before they are dropped and the channel is closed: long
// enough for a reader that is still ranging over the channel, short
// enough that a reader that left does not keep the session's goroutine.
const drainGrace = 5 * time.Second

// Events returns the session's events from the first call on (call it
// before Prompt), in the order they happened; every call returns the
// same channel. The session never waits for the reader: events that the
// channel's buffer cannot take wait in memory, and while they wait,
// consecutive message deltas are coalesced into one (its Delta the
// joined text, so no text is lost). Every other event is delivered, in
// order. A reader that stops reading keeps the events in memory until
// the session is closed; after Close the events still waiting are
// delivered for a few seconds more, then the channel is closed.
func (s *Session) Events() <-chan Event {
	s.feedMu.Lock()
	defer s.feedMu.Unlock()
	if s.feed == nil {
		s.feed = newFeed(EventBuffer, drainGrace)
		if s.isClosedLocked() {
			s.feed.close()
		} else {
			s.feed.unsubscribe = s.core.Subscribe(s.feed.push)
		}
	}
	return s.feed.out
}

func (s *Session) isClosedLocked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// feed moves a session's events to a channel without ever making the
// publisher wait: push queues, a goroutine of its own sends.
type feed struct {
	out         chan Event
	unsubscribe func()

	mu      sync.Mutex
	pending []Event
	closed  bool
	// sending says run holds events it has not sent yet.
	sending bool
	// wake says an event came; done is closed by close.
	wake chan struct{}
	done chan struct{}
	// grace is how long waiting events are offered after close.
	grace time.Duration
}

func newFeed(buffer int, grace time.Duration) *feed {
	f := &feed{out: make(chan Event, buffer), wake: make(chan struct{}, 1), done: make(chan struct{}), grace: grace}
	go f.run()
	return f
}

// push hands e to the channel when nothing waits before it, else queues
// it; a delta that follows a waiting delta of the same turn joins it.
func (f *feed) push(e Event) {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	if len(f.pending) == 0 && !f.sending {
		select {
		case f.out <- e:
			f.mu.Unlock()
			return
		default:
		}
	}
	if d, ok := e.(event.MessageDelta); ok && len(f.pending) > 0 {
		last, ok := f.pending[len(f.pending)-1].(event.MessageDelta)
		if ok && last.Turn == d.Turn && last.Session == d.Session {
			last.Delta += d.Delta
			f.pending[len(f.pending)-1] = last
			f.mu.Unlock()
			return
		}
	}
	f.pending = append(f.pending, e)
	f.mu.Unlock()
	f.signal()
}

func (f *feed) signal() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// close stops taking events; run delivers what waits, within the grace.
func (f *feed) close() {
	if f.unsubscribe != nil {
		f.unsubscribe()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.done)
	}
}

// keepBatch bounds the batch slice run hands back for reuse, so that a
// burst does not keep its memory.
const keepBatch = 1024

// take hands run every waiting event, and takes back the batch it sent
// (prev) to queue into; while run sends, push queues behind it instead
// of sending, so that the order holds.
func (f *feed) take(prev []Event) (batch []Event, closed bool) {
	clear(prev)
	if cap(prev) > keepBatch {
		prev = nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	batch, f.pending = f.pending, prev[:0]
	f.sending = len(batch) > 0
	return batch, f.closed
}

func (f *feed) run() {
	defer close(f.out)
	done := f.done
	var grace <-chan time.Time
	var batch []Event
	startGrace := func() {
		done = nil
		grace = time.NewTimer(f.grace).C
	}
	for {
		var closed bool
		batch, closed = f.take(batch)
		if closed && grace == nil {
			startGrace()
		}
		if len(batch) == 0 {
			if closed {
				return
			}
			select {
			case <-f.wake:
			case <-done:
			}
			continue
		}
		for _, e := range batch {
			for sent := false; !sent; {
				select {
				case f.out <- e:
					sent = true
				case <-done:
					startGrace()
				case <-grace:
					return
				}
			}
		}
	}
}
