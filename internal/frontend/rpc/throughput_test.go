package rpc

import (
	"bufio"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/frontend"
)

// sampleEvents is a run's worth of events: mostly deltas, with the tool
// and message events around them.
func sampleEvents(n int) []event.Event {
	msg := chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: "The answer is 42."}}}
	u := chat.Usage{InputTokens: 1200, OutputTokens: 40}
	kinds := []event.Event{
		event.MessageDelta{Delta: "some streamed text "},
		event.ToolCall{CallID: "toolu_01", Tool: "read", Class: "read", Args: json.RawMessage(`{"path":"main.go"}`)},
		event.ToolResult{CallID: "toolu_01", Tool: "read", Result: "package main\n", Outcome: "ok"},
		event.MessageEnd{Message: &msg, Usage: &u, StopReason: "end_turn"},
	}
	out := make([]event.Event, n)
	now := time.Now().UTC()
	for i := range out {
		e := kinds[0]
		if i%4 == 3 {
			e = kinds[1+i%3]
		}
		out[i] = event.Stamp(e, event.Header{Time: now, Session: "3f9c2a7d41e0b6c8", Turn: 1 + i/100})
	}
	return out
}

// countLines reads lines until the reader ends and reports how many.
func countLines(r io.Reader, done chan<- int) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
	}
	done <- n
}

// rpcRate is how many events a second the RPC output hands to a reader
// at the other end of a pipe.
func rpcRate(events []event.Event) (perSecond float64, lines int) {
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go countLines(pr, done)
	srv := &server{out: newWriter(pw)}
	start := time.Now()
	for _, e := range events {
		srv.event(e)
	}
	_ = srv.out.close()
	_ = pw.Close()
	lines = <-done
	return float64(len(events)) / time.Since(start).Seconds(), lines
}

// jsonModeRate is the same for --mode json's writer, the baseline.
func jsonModeRate(events []event.Event) float64 {
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go countLines(pr, done)
	sink := frontend.JSONLines(pw)
	start := time.Now()
	for _, e := range events {
		sink(e)
	}
	_ = pw.Close()
	<-done
	return float64(len(events)) / time.Since(start).Seconds()
}

// TestThroughput wants at least minRate events a second to a reader,
// every one of them delivered when the reader keeps up.
func TestThroughput(t *testing.T) {
	events := sampleEvents(50_000)
	rate, lines := rpcRate(events)
	base := jsonModeRate(events)
	t.Logf("rpc: %.0f events/s (%d of %d frames written, deltas joined); --mode json writer: %.0f events/s (ratio %.2f)", rate, lines, len(events), base, rate/base)
	if frames := rate * float64(lines) / float64(len(events)); frames < minRate {
		t.Fatalf("%.0f frames a second reached the reader, want at least %d", frames, minRate)
	}
	if lines == 0 || lines > len(events) {
		t.Fatalf("%d lines for %d events", lines, len(events))
	}
}

// TestSlowReaderKeepsEveryEventButDeltas joins deltas only while the
// reader is behind, and never drops or reorders another event.
func TestSlowReaderKeepsEveryEventButDeltas(t *testing.T) {
	pr, pw := io.Pipe()
	srv := &server{out: newWriter(pw)}
	events := sampleEvents(3 * deltaHighWater)
	for _, e := range events { // nobody reads yet: the queue grows
		srv.event(e)
	}
	var got []event.Event
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			e, err := event.Decode(sc.Bytes())
			if err != nil {
				t.Errorf("bad line %q", sc.Text())
			}
			got = append(got, e)
		}
	}()
	_ = srv.out.close()
	_ = pw.Close()
	<-done
	var want, have []event.Type
	text := map[int]string{}
	gotText := map[int]string{}
	for _, e := range events {
		if d, ok := e.(event.MessageDelta); !ok {
			want = append(want, e.Kind())
		} else {
			text[d.Turn] += d.Delta
		}
	}
	for _, e := range got {
		if d, ok := e.(event.MessageDelta); !ok {
			have = append(have, e.Kind())
		} else {
			gotText[d.Turn] += d.Delta
		}
	}
	if len(want) != len(have) {
		t.Fatalf("%d other events, want %d", len(have), len(want))
	}
	for i := range want {
		if want[i] != have[i] {
			t.Fatalf("event %d is %s, want %s", i, have[i], want[i])
		}
	}
	for turn, s := range text {
		if gotText[turn] != s {
			t.Fatalf("turn %d's text differs after joining", turn)
		}
	}
	if len(got) >= len(events) {
		t.Fatalf("no delta was joined for a reader %d frames behind", len(events))
	}
}

func BenchmarkEvents(b *testing.B) {
	events := sampleEvents(b.N)
	b.ResetTimer()
	rate, _ := rpcRate(events)
	b.ReportMetric(rate, "events/s")
}
