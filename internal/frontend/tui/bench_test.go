package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/chat"
)

// bigSession is a saved session of n messages: prompts, markdown
// answers and calls with their results.
func bigSession(n int) []chat.Message {
	var msgs []chat.Message
	for i := 0; len(msgs) < n; i++ {
		msgs = append(msgs, chat.UserText(fmt.Sprintf("step %d: look at the handler and fix the error path", i)))
		id := fmt.Sprintf("call%d", i)
		input, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./internal/pkg%d/...", i)})
		msgs = append(msgs, chat.Message{Role: chat.Assistant, Content: []chat.Block{
			{Type: chat.Text, Text: "Here is the plan:\n\n- read **the handler**\n- run `go test`\n\n```go\nfunc main() {}\n```"},
			{Type: chat.ToolUse, ID: id, Name: "bash", Input: input},
		}})
		msgs = append(msgs, chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: id, Text: strings.Repeat("ok  pkg 0.1s\n", 20)}}})
		msgs = append(msgs, chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: "The tests pass."}}})
	}
	return msgs[:n]
}

// loadedModel is a screen on a 500-message session whose last call
// printed 2,000 lines, with an answer streaming.
func loadedModel(t testing.TB) *Model {
	f := &fakeSession{saved: bigSession(500)}
	m := testModel(t, f, 120, 40, false)
	var out strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&out, "line %d of the output: some words to wrap and draw\n", i)
	}
	m.Update(toolCallMsg{id: "big", tool: "bash", class: "command", args: `{"command":"cat big.log"}`})
	m.Update(toolResultMsg{id: "big", tool: "bash", result: out.String(), mark: "✓"})
	m.expanded = true
	m.conv.invalidateAll()
	m.Update(assistantMsg{})
	m.Frame()
	return m
}

// BenchmarkStreamingFrame is one streamed piece of an answer and the
// frame drawn after it; frames/s is what the screen could sustain.
func BenchmarkStreamingFrame(b *testing.B) {
	m := loadedModel(b)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		// An answer of up to 200 pieces (4 KB), then the next one.
		if i++; i%200 == 0 {
			m.Update(assistantEnd{})
			m.Update(assistantMsg{})
		}
		m.Update(deltaMsg{text: "some streamed words, "})
		_ = m.Frame()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkKeypress is a key typed into the input and the frame that
// shows it: the input latency.
func BenchmarkKeypress(b *testing.B) {
	m := loadedModel(b)
	b.ResetTimer()
	i := 0
	for b.Loop() {
		// A prompt of up to 200 characters, then a fresh one.
		if i++; i%200 == 0 {
			m.input.Reset()
		}
		m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"})
		_ = m.Frame()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/key")
}

// BenchmarkSessionMemory reports the heap the screen adds to a
// 500-message session's messages (which every frontend holds) once all
// of it has been drawn by scrolling to the top.
func BenchmarkSessionMemory(b *testing.B) {
	for b.Loop() {
		var before, mid, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		msgs := bigSession(500)
		runtime.GC()
		runtime.ReadMemStats(&mid)
		m := testModel(b, &fakeSession{saved: msgs}, 120, 40, false)
		m.scroll = 1 << 30
		_ = m.Frame()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(m)
		runtime.KeepAlive(msgs)
		b.ReportMetric(float64(mid.HeapAlloc-before.HeapAlloc)/1e6, "MB-messages")
		b.ReportMetric(float64(after.HeapAlloc-mid.HeapAlloc)/1e6, "MB-screen")
	}
}

// TestDrawingStaysFast holds the bounds with a wide margin: on
// a 500-message session with 2,000 lines of output, a key is shown
// within 50 ms and a streamed piece within 1/30 s (medians).
func TestDrawingStaysFast(t *testing.T) {
	m := loadedModel(t)
	median := func(f func()) time.Duration {
		var ds []time.Duration
		for range 15 {
			start := time.Now()
			f()
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	key := median(func() { m.Update(tea.KeyPressMsg{Code: 'a', Text: "a"}); _ = m.Frame() })
	frame := median(func() { m.Update(deltaMsg{text: "more words "}); _ = m.Frame() })
	if key > 50*time.Millisecond {
		t.Errorf("a key takes %v to show, want < 50ms", key)
	}
	if frame > time.Second/30 {
		t.Errorf("a streamed piece takes %v to draw, want < 1/30 s", frame)
	}
}
