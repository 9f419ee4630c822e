package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}

// serialise renders a loaded transcript back to file bytes.
func serialise(t testing.TB, h Header, recs []Record) []byte {
	var b bytes.Buffer
	for _, r := range append([]Record{h.record()}, recs...) {
		line, err := encode(r)
		if err != nil {
			t.Fatalf("encode accepted record: %v", err)
		}
		b.Write(line)
	}
	return b.Bytes()
}

func FuzzLoad(f *testing.F) {
	const head = `{"type":"session","id":"0123456789abcdef","parent":"","time":"2026-11-30T08:45:12Z","version":1,"cwd":"/p","provider":"fake","model":"m"}` + "\n"
	f.Add([]byte(head))
	f.Add([]byte(head + `{"type":"message","id":"a","parent":"","time":"2026-11-30T08:45:13+01:00","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}` + "\n"))
	f.Add([]byte(head + `{"type":"event","id":"b","parent":"a","time":"2026-11-30T08:45:13Z","event":{"type":"tool_call","time":"0001-01-01T00:00:00Z","args":{ "x" : [1, 2] }}}` + "\n{\"type\""))
	f.Add([]byte(head + "\n\n" + `{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"tool_use","input":{"p":"\u00e9\ud800"}}]}}` + "\n"))
	f.Add([]byte(head + `{"type":"checkpoint","id":"c","parent":"","time":"2026-11-30T08:45:13Z","checkpoint":{"summary":"s","messages":[{"role":"user","content":[{"type":"text","text":"s"}]}],"reason":"manual","replaced":2}}` + "\n"))
	f.Add([]byte("garbage\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		// The listing's quick scan must cope with anything too.
		_, _ = summarizeFrom("fuzz.jsonl", bytes.NewReader(data))
		tr, err := parse("fuzz.jsonl", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "session: fuzz.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, d := range tr.Damage {
			if !strings.HasPrefix(d.Error(), "session: fuzz.jsonl:") || hasControl(d.Error()) {
				t.Fatalf("damage report does not name the file or carries control bytes: %q", d.Error())
			}
		}
		if tr.Leaf >= len(tr.Records) || (len(tr.Damage) == 0 && tr.Leaf != len(tr.Records)-1) {
			t.Fatalf("leaf %d of %d records with %d damaged lines", tr.Leaf, len(tr.Records), len(tr.Damage))
		}
		_ = tr.Messages()
		if len(tr.Damage) > 0 {
			return
		}
		h, recs := tr.Header, tr.Records
		// Whatever was accepted must survive a write and a read, and
		// then stay byte-for-byte stable.
		first := serialise(t, h, recs)
		tr2, err := parse("again.jsonl", first)
		if err == nil && len(tr2.Damage) > 0 {
			err = tr2.Damage[0]
		}
		if err != nil {
			t.Fatalf("re-serialised transcript does not load: %v\n%s", err, first)
		}
		h2, recs2 := tr2.Header, tr2.Records
		if len(recs2) != len(recs) {
			t.Fatalf("re-load has %d records, want %d", len(recs2), len(recs))
		}
		if second := serialise(t, h2, recs2); !bytes.Equal(first, second) {
			t.Fatalf("re-serialising is not stable:\n%s\n%s", first, second)
		}
		_ = Messages(recs)
		// On what this package writes, the quick count is exact.
		s, err := summarizeFrom("again.jsonl", bytes.NewReader(first))
		if err != nil {
			t.Fatalf("summary of a loadable transcript: %v", err)
		}
		n := 0
		for _, r := range recs {
			if r.Type == TypeMessage {
				n++
			}
		}
		if s.Messages != n || s.ID != h.ID {
			t.Fatalf("summary counts %d messages of session %q, want %d of %q", s.Messages, s.ID, n, h.ID)
		}
	})
}

// writeBig writes a session of n records shaped like what the agent's
// sink writes: prompts, answers that call tools, the kept events (without
// the payloads FromEvent leaves to the messages), and tool results of
// about 2 KB of code each.
func writeBig(tb testing.TB, dir string, n int) string {
	tb.Helper()
	h := Header{ID: "0123456789abcdef", Version: FormatVersion, Cwd: "/home/me/proj", Start: t0, Provider: "anthropic", Model: "claude-sonnet"}
	var b bytes.Buffer
	add := func(r Record) {
		line, err := encode(r)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(line)
	}
	add(h.record())
	answer := strings.Repeat("I will look at the file and then change the function. ", 6)
	output := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) {\n\treturn\n}\n", 30)
	parent := ""
	for i := 0; i < n; i++ {
		r := Record{ID: fmt.Sprintf("%08x", i), Parent: parent, Time: t0.Add(time.Duration(i) * time.Millisecond)}
		call := fmt.Sprintf("call_%d", i/6)
		switch i % 6 {
		case 0:
			r.Type, r.Message = TypeMessage, msg(chat.User, "please refactor the handler in server.go")
		case 1:
			r.Type, r.Message = TypeMessage, &chat.Message{Role: chat.Assistant, Content: []chat.Block{
				{Type: chat.Text, Text: answer},
				{Type: chat.ToolUse, ID: call, Name: "read", Input: json.RawMessage(`{"path":"internal/server/server.go","offset":120,"limit":200}`)},
			}}
		case 2:
			r.Type, r.Event = TypeEvent, event.Any{Event: event.MessageEnd{Header: event.Header{Time: r.Time, Turn: i / 6}, Usage: &chat.Usage{InputTokens: 12000, OutputTokens: 340, CacheReadTokens: 11000}, StopReason: "tool_use"}}
		case 3:
			r.Type, r.Event = TypeEvent, event.Any{Event: event.ToolCall{Header: event.Header{Time: r.Time}, CallID: call, Tool: "read", Class: "read"}}
		case 4:
			r.Type, r.Event = TypeEvent, event.Any{Event: event.ToolStart{Header: event.Header{Time: r.Time}, CallID: call, Tool: "read", Class: "read"}}
		case 5:
			r.Type, r.Message = TypeMessage, &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: call, Text: output}}}
		}
		add(r)
		parent = r.ID
	}
	path := filepath.Join(dir, "20261130T084512Z_0123456789abcdef.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkLoad10k measures resuming: Load plus Messages on a session of
// 10,000 records (about 6 MB). The budget is 100 ms.
// cpu-ms/op (all threads, from getrusage) is reported beside the wall
// time because the wall time means little on a busy machine.
func BenchmarkLoad10k(b *testing.B) {
	path := writeBig(b, b.TempDir(), 10000)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	before := cpuTime(b)
	n := 0
	b.ResetTimer()
	for b.Loop() {
		_, recs, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(Messages(recs)); n != 3334 {
			b.Fatalf("%d messages, want 3334", n)
		}
		n++
	}
	b.ReportMetric(float64((cpuTime(b)-before).Microseconds())/1000/float64(n), "cpu-ms/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkList measures listing 50 sessions of 1,000 records each.
func BenchmarkList(b *testing.B) {
	dir := b.TempDir()
	for i := range 50 {
		sub := filepath.Join(dir, fmt.Sprintf("s%d", i))
		os.MkdirAll(sub, 0o700)
		p := writeBig(b, sub, 1000)
		os.Rename(p, filepath.Join(sub, fmt.Sprintf("20261130T0845%02dZ_%016x.jsonl", i, i)))
	}
	b.ResetTimer()
	for b.Loop() {
		s, err := List(dir)
		if err != nil || len(s) != 50 || s[0].Messages != 500 {
			b.Fatalf("List: %d, %v", len(s), err)
		}
	}
}
