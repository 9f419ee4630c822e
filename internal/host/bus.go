package host

import (
	"sync"

	"github.com/wisp-agent/wisp/internal/event"
)

// bus hands each event to every subscriber, one event at a time, so that
// all of them see the same order: the loop, the gate and parallel tool
// calls publish from several goroutines.
type bus struct {
	mu   sync.Mutex
	next int
	subs map[int]event.Sink
	// order is the subscribers' ids in the order they came, so that
	// delivery order does not depend on map iteration.
	order []int
}

func (b *bus) subscribe(fn event.Sink) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[int]event.Sink{}
	}
	id := b.next
	b.next++
	b.subs[id] = fn
	b.order = append(b.order, id)
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs, id)
		for i, o := range b.order {
			if o == id {
				b.order = append(b.order[:i:i], b.order[i+1:]...)
				break
			}
		}
	}
}

func (b *bus) publish(e event.Event) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range b.order {
		b.subs[id](e)
	}
}

// Subscribe hands every later event of the session to fn, in order,
// until the returned function is called. fn runs on the goroutine that
// published the event, while no other event is delivered: it must not
// block for long, nor call back into the session's Prompt.
func (s *Session) Subscribe(fn event.Sink) (unsubscribe func()) {
	return s.bus.subscribe(fn)
}
