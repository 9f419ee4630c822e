package sdk

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A feed nobody reads takes every event without blocking, joins the
// deltas of a turn that wait, keeps every other event in order, and
// delivers it all to a reader that comes after Close.
func TestFeedCoalescesWaitingDeltas(t *testing.T) {
	f := newFeed(2, time.Minute)
	var want []string
	push := func(e Event) { f.push(e) }
	for turn := 1; turn <= 3; turn++ {
		push(TurnStartEvent{Header: EventHeader{Turn: turn}})
		want = append(want, fmt.Sprintf("turn_start %d", turn))
		for i := 0; i < 1000; i++ {
			push(MessageDeltaEvent{Header: EventHeader{Turn: turn}, Delta: "w "})
		}
		push(ToolCallEvent{Header: EventHeader{Turn: turn}, CallID: fmt.Sprint(turn)})
		want = append(want, fmt.Sprintf("tool_call %d", turn))
	}
	f.close()
	push(ErrorEvent{}) // after close: dropped
	var got []string
	text := map[int]string{}
	deltas := 0
	for e := range f.out {
		if d, ok := e.(MessageDeltaEvent); ok {
			deltas++
			text[d.Turn] += d.Delta
			continue
		}
		got = append(got, fmt.Sprintf("%s %d", e.Kind(), e.Head().Turn))
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("events %v, want %v", got, want)
	}
	for turn := 1; turn <= 3; turn++ {
		if text[turn] != strings.Repeat("w ", 1000) {
			t.Errorf("turn %d: deltas carry %d bytes, want 2000", turn, len(text[turn]))
		}
	}
	if deltas > 3*3 {
		t.Errorf("%d deltas delivered: they were not coalesced while waiting", deltas)
	}
}

// A reader that never reads does not keep the feed: after Close it gives
// up within its grace and closes the channel.
func TestFeedGivesUpOnAbsentReader(t *testing.T) {
	f := newFeed(1, 20*time.Millisecond)
	for i := 0; i < 10; i++ {
		f.push(ToolCallEvent{CallID: fmt.Sprint(i)})
	}
	f.close()
	time.Sleep(200 * time.Millisecond)
	n := 0
	for range f.out {
		n++
	}
	if n == 0 || n >= 10 {
		t.Errorf("%d events left for a reader that came past the grace; want the channel's buffer only", n)
	}
}

// While a reader keeps up, nothing is coalesced.
func TestFeedKeepsDeltasForAPromptReader(t *testing.T) {
	f := newFeed(1, time.Minute)
	for i := 0; i < 100; i++ {
		f.push(MessageDeltaEvent{Header: EventHeader{Turn: 1}, Delta: "x"})
		if e, ok := (<-f.out).(MessageDeltaEvent); !ok || e.Delta != "x" {
			t.Fatalf("delta %d: got %#v", i, e)
		}
	}
	f.close()
	if _, ok := <-f.out; ok {
		t.Error("the channel stayed open after close with nothing waiting")
	}
}

// BenchmarkFeed is an event through the feed to a reader;
// BenchmarkChannel, a plain buffered channel send and receive, is its
// baseline.
func BenchmarkFeed(b *testing.B) {
	f := newFeed(EventBuffer, time.Second)
	done := make(chan struct{})
	go func() {
		for range f.out {
		}
		close(done)
	}()
	var e Event = ToolCallEvent{}
	for i := 0; i < b.N; i++ {
		f.push(e)
	}
	f.close()
	<-done
}

func BenchmarkChannel(b *testing.B) {
	ch := make(chan Event, EventBuffer)
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	var e Event = ToolCallEvent{}
	for i := 0; i < b.N; i++ {
		ch <- e
	}
	close(ch)
	<-done
}
