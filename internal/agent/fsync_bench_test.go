package agent

import (
	"context"
	"fmt"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// formerRecords is how transcripts were kept before each result became
// a record of its own: every kept event fsynced on its own (tool calls
// and tool results without their payloads), the results written once,
// as one message, after the last call. It is the baseline of
// BenchmarkHundredCalls.
func formerRecords(e event.Event) []transcript.Record {
	switch e := e.(type) {
	case event.ToolStart:
		return nil
	case event.ToolResult:
		e.Result = ""
		return []transcript.Record{{Type: transcript.TypeEvent, Event: event.Any{Event: e}}}
	}
	return transcript.FromEvent(e)
}

// BenchmarkHundredCalls runs one response of 100 sequential calls of a
// trivial mutating tool (approved), with the transcript on the test's
// temporary folder, kept the former way (baseline) and the current way
// (every call's start and result fsynced as it happens, bookkeeping
// events written unsynced). The ratio of the two is the cost of per-call
// durability.
func BenchmarkHundredCalls(b *testing.B) {
	const n = 100
	calls := make([]chat.Block, n)
	for i := range calls {
		calls[i] = call(fmt.Sprintf("c%03d", i), "change", fmt.Sprintf(`{"n":%d}`, i))
	}
	change := &echoTool{name: "change", class: tool.Mutating}
	run := func(b *testing.B, sink func(w *transcript.Writer) event.Sink) {
		dir := b.TempDir()
		for b.Loop() {
			w, err := transcript.Create(dir, transcript.Header{Cwd: "/p"})
			if err != nil {
				b.Fatal(err)
			}
			s := sink(w)
			p := &scripted{turns: []chat.Message{answer(calls...), answer(text("done"))}}
			a := New(Options{Provider: p, Tools: tool.NewRegistry(change), Gate: gate.New(gate.Options{Approver: gate.Allow{}, Sink: s}), MaxToolIterations: -1, Sink: s}, nil)
			if _, err := a.Run(context.Background(), "go"); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("former", func(b *testing.B) {
		run(b, func(w *transcript.Writer) event.Sink {
			return func(e event.Event) {
				for _, r := range formerRecords(e) {
					if _, err := w.Append(r); err != nil {
						b.Error(err)
					}
				}
			}
		})
	})
	b.Run("per-call", func(b *testing.B) {
		run(b, func(w *transcript.Writer) event.Sink {
			return w.Sink(func(err error) { b.Error(err) })
		})
	})
}
