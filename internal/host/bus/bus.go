// Package bus fans a session's events out to its subscribers, each on
// a queue and goroutine of its own. It holds no session state and must
// never write the transcript or the audit: those are written before an
// event is published, not through the bus.
package bus

import (
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
)

// Bus hands the session's events to its subscribers. Each subscriber has
// its own queue and goroutine, so a slow one (a terminal, a pipe nobody
// reads) never holds up the run or the others: its text deltas are
// coalesced while it is behind, and every other event reaches it, in
// the order the session published it. The transcript and the audit are
// written before an event is published, not through the bus.
type Bus struct {
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

// Subscribe hands every later event to fn until the returned function
// is called.
func (b *Bus) Subscribe(fn event.Sink) func() {
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

// Publish queues e for every subscriber; it never waits for one.
func (b *Bus) Publish(e event.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.subs {
		s.push(e)
	}
}

// Drain waits, up to drainWait, until every subscriber has handled what
// was published so far.
func (b *Bus) Drain() { b.DrainWithin(drainWait) }

// DrainWithin is Drain with its own bound.
func (b *Bus) DrainWithin(limit time.Duration) {
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
