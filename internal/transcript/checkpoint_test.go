package transcript

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// A resumed conversation starts from the latest checkpoint on its branch;
// the records before it stay in the file, and what follows it is joined
// on as anywhere else (a started call without a result is interrupted).
func TestCheckpoint(t *testing.T) {
	call := func(id string) *chat.Message {
		return &chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.ToolUse, ID: id, Name: "ls", Input: json.RawMessage(`{}`)}}}
	}
	result := func(id, text string) *chat.Message {
		return &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: id, Text: text}}}
	}
	summary := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: "SUMMARY"}, {Type: chat.Text, Text: "latest"}}}
	cp := func(msgs ...chat.Message) Record {
		return Record{Type: TypeCheckpoint, Checkpoint: &Checkpoint{Summary: "SUMMARY", Messages: msgs, Reason: "manual", Replaced: 3}}
	}
	start := func(id string) Record {
		return Record{Type: TypeEvent, Event: event.Any{Event: event.ToolStart{CallID: id}}}
	}
	m := func(x *chat.Message) Record { return Record{Type: TypeMessage, Message: x} }
	tests := []struct {
		name string
		recs []Record
		want []chat.Message
	}{
		{"no checkpoint", []Record{m(msg(chat.User, "old")), m(msg(chat.Assistant, "a"))},
			[]chat.Message{*msg(chat.User, "old"), *msg(chat.Assistant, "a")}},
		{"checkpoint last", []Record{m(msg(chat.User, "old")), m(call("c1")), start("c1"), m(result("c1", "r1")), cp(summary)},
			[]chat.Message{summary}},
		{"records after it join on", []Record{m(msg(chat.User, "old")), cp(summary), m(msg(chat.Assistant, "a")), m(msg(chat.User, "next"))},
			[]chat.Message{summary, *msg(chat.Assistant, "a"), *msg(chat.User, "next")}},
		{"a call after it is interrupted", []Record{m(msg(chat.User, "old")), cp(summary), m(call("c1")), start("c1")},
			[]chat.Message{summary, *call("c1"), {Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: "c1", Text: Interrupted, IsError: true}}}}},
		{"the same call id before it does not count", []Record{m(call("c1")), start("c1"), cp(summary), m(call("c1"))},
			[]chat.Message{summary, *call("c1")}},
		{"the latest checkpoint wins", []Record{cp(*msg(chat.User, "first")), m(msg(chat.Assistant, "a")), cp(summary)},
			[]chat.Message{summary}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := create(t, t.TempDir(), Header{Cwd: "/p"})
			for _, r := range tc.recs {
				mustAppend(t, w, r)
			}
			w.Close()
			tr, err := Read(w.Path())
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Messages(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("messages\n got %s\nwant %s", dump(got), dump(tc.want))
			}
			if len(tr.Records) != len(tc.recs) {
				t.Errorf("%d records read, %d written: the history before a checkpoint must stay", len(tr.Records), len(tc.recs))
			}
			if got := Conversation(tr.Branch()); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Conversation of the branch differs from Messages: %s", dump(got))
			}
		})
	}
}

// A checkpoint line without its checkpoint is a malformed record, and
// Append refuses to write one.
func TestCheckpointMalformed(t *testing.T) {
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	if _, err := w.Append(Record{Type: TypeCheckpoint}); err == nil || !strings.Contains(err.Error(), "checkpoint record without checkpoint") {
		t.Errorf("Append: err = %v", err)
	}
	w.Close()
	appendRaw(t, w.Path(), `{"type":"checkpoint","id":"x","parent":""}`+"\n")
	tr, err := Read(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Damage) != 1 || !strings.Contains(tr.Damage[0].Error(), "checkpoint record without checkpoint") {
		t.Errorf("damage = %v", tr.Damage)
	}
}

// BenchmarkResume10k compares resuming a 10,000-record session (Read,
// then the conversation) without and with a checkpoint near its end: the
// file is read whole either way; the conversation starts at the
// checkpoint.
func BenchmarkResume10k(b *testing.B) {
	for _, withCheckpoint := range []bool{false, true} {
		name := "plain"
		if withCheckpoint {
			name = "checkpoint"
		}
		b.Run(name, func(b *testing.B) {
			path := writeBig(b, b.TempDir(), 10000)
			want := 3334
			if withCheckpoint {
				w, _, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				summary := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: strings.Repeat("summary ", 500)}}}
				if _, err := w.Append(Record{Type: TypeCheckpoint, Checkpoint: &Checkpoint{Summary: "s", Messages: []chat.Message{summary}, Reason: "auto"}}); err != nil {
					b.Fatal(err)
				}
				w.Close()
				want = 1
			}
			for b.Loop() {
				tr, err := Read(path)
				if err != nil {
					b.Fatal(err)
				}
				if n := len(tr.Messages()); n != want {
					b.Fatalf("%d messages, want %d", n, want)
				}
			}
		})
	}
}
