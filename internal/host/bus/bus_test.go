package bus

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
)

// A subscriber that stops reading holds up neither the publisher nor the
// others; when it reads again it gets every event in order, its text
// deltas joined, and drain waits for it.
func TestBusSlowSubscriber(t *testing.T) {
	var b Bus
	release := make(chan struct{})
	var (
		mu        sync.Mutex
		slow, all []event.Event
	)
	first := true
	unsubSlow := b.Subscribe(func(e event.Event) {
		if first {
			first = false
			<-release
		}
		mu.Lock()
		slow = append(slow, e)
		mu.Unlock()
	})
	unsubFast := b.Subscribe(func(e event.Event) {
		mu.Lock()
		all = append(all, e)
		mu.Unlock()
	})
	start := time.Now()
	b.Publish(event.AgentStart{})
	for i := range 1000 {
		b.Publish(event.MessageDelta{Delta: fmt.Sprint(i % 10)})
	}
	b.Publish(event.ToolCall{CallID: "c1"})
	b.Publish(event.MessageDelta{Delta: "x"})
	b.Publish(event.AgentEnd{})
	if d := time.Since(start); d > time.Second {
		t.Fatalf("publishing waited for the stuck subscriber: %v", d)
	}
	b.DrainWithin(100 * time.Millisecond) // the slow one is still stuck
	mu.Lock()
	if got := seen(all); got != wantSeen {
		t.Errorf("the fast subscriber saw %s, want %s", got, wantSeen)
	}
	fastCount := len(all)
	mu.Unlock()
	close(release)
	b.Drain()
	mu.Lock()
	if got := seen(slow); got != wantSeen {
		t.Errorf("the slow subscriber saw %s, want %s", got, wantSeen)
	}
	slowCount := len(slow)
	mu.Unlock()
	unsubSlow()
	unsubFast()
	b.Publish(event.AgentStart{})
	time.Sleep(10 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(slow) != slowCount || len(all) != fastCount {
		t.Error("an unsubscribed sink still gets events")
	}
}

// wantSeen is what a subscriber makes of the published events: every
// kind in order (consecutive deltas joined), and all the text.
var wantSeen = "agent_start message_delta tool_call message_delta agent_end / " + strings.Repeat("0123456789", 100) + "x"

func seen(events []event.Event) string {
	var kinds []string
	var text strings.Builder
	for _, e := range events {
		if e.Kind() != event.TypeMessageDelta || len(kinds) == 0 || kinds[len(kinds)-1] != string(event.TypeMessageDelta) {
			kinds = append(kinds, string(e.Kind()))
		}
		if d, ok := e.(event.MessageDelta); ok {
			text.WriteString(d.Delta)
		}
	}
	return strings.Join(kinds, " ") + " / " + text.String()
}
