package host

import (
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
)

// bus hands the session's events to its subscribers. Each subscriber has
// its own queue and goroutine, so a slow one (a terminal, a pipe nobody
// reads) never holds up the run or the others: its text deltas are
// coalesced while it is behind, and every other event reaches it, in
// the order the session published it. The transcript and the audit are
// written before an event is published, not through the bus.
type bus struct {
	mu   sync.Mutex
	subs []*subscriber
}

// subscriber is one Subscribe: its queue and the goroutine that empties it.
type subscriber struct {
	fn     event.Sink
	mu     sync.Mutex
	cond   *sync.Cond
	queue  []event.Event
	busy   bool // fn is running
	closed bool
	done   chan struct{}
}

// drainWait bounds how long the session waits for a subscriber to catch
// up before it asks a question or returns from a run: a frontend that
// stopped reading must not hang the session.
const drainWait = 5 * time.Second

func (b *bus) subscribe(fn event.Sink) func() {
	s := &subscriber{fn: fn, done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	b.mu.Lock()
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	go s.run()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			for i, o := range b.subs {
				if o == s {
					b.subs = append(b.subs[:i:i], b.subs[i+1:]...)
					break
				}
			}
			b.mu.Unlock()
			s.close()
		})
	}
}

func (b *bus) publish(e event.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		s.push(e)
	}
}

// drain waits, up to drainWait, until every subscriber has handled what
// was published so far.
func (b *bus) drain() { b.drainWithin(drainWait) }

func (b *bus) drainWithin(limit time.Duration) {
	b.mu.Lock()
	subs := append([]*subscriber(nil), b.subs...)
	b.mu.Unlock()
	deadline := time.Now().Add(limit)
	for _, s := range subs {
		s.wait(deadline)
	}
}

func (s *subscriber) push(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if d, ok := e.(event.MessageDelta); ok && len(s.queue) > 0 {
		last, ok := s.queue[len(s.queue)-1].(event.MessageDelta)
		if ok && last.Turn == d.Turn && last.Session == d.Session {
			last.Delta += d.Delta
			s.queue[len(s.queue)-1] = last
			return
		}
	}
	s.queue = append(s.queue, e)
	s.cond.Broadcast()
}

func (s *subscriber) run() {
	defer close(s.done)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed {
			s.cond.Wait()
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		e := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		s.busy = true
		s.mu.Unlock()
		s.fn(e)
		s.mu.Lock()
		s.busy = false
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// wait returns once the queue is empty and fn idle, or at the deadline.
func (s *subscriber) wait(deadline time.Time) {
	timer := time.AfterFunc(time.Until(deadline), func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer timer.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for (len(s.queue) > 0 || s.busy) && time.Now().Before(deadline) {
		s.cond.Wait()
	}
}

// close delivers what is queued (up to drainWait) and stops.
func (s *subscriber) close() {
	s.wait(time.Now().Add(drainWait))
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	s.cond.Broadcast()
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-time.After(drainWait):
	}
}

// Subscribe hands every later event of the session to fn, in order, on a
// goroutine of its own, until the returned function is called; that
// function returns once fn has seen what was published before it (or a
// few seconds passed). While fn is behind, consecutive text deltas reach
// it joined into one; no other event is dropped. A run's Prompt returns,
// and a question goes to the frontend's Approver, only once every
// subscriber has caught up, so output stays in order.
func (s *Session) Subscribe(fn event.Sink) (unsubscribe func()) {
	return s.bus.subscribe(fn)
}
