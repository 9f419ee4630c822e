package host

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// A fork starts only before a prompt of the conversation as it stands:
// never before an answer or a results message (a steer rides in one),
// and never before the latest checkpoint, whose summary replaced what
// came earlier.
func TestCutBefore(t *testing.T) {
	user := func(text string) *chat.Message {
		return &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: text}}}
	}
	answer := func(text, call string) *chat.Message {
		m := &chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: text}}}
		if call != "" {
			m.Content = append(m.Content, chat.Block{Type: chat.ToolUse, ID: call, Name: "read"})
		}
		return m
	}
	steered := &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: "c1", Text: "r"}, {Type: chat.Text, Text: "STEER"}}}
	rec := func(m *chat.Message) transcript.Record {
		return transcript.Record{Type: transcript.TypeMessage, Message: m}
	}
	// A checkpoint keeps the latest prompt in the summary's message.
	summary := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: summaryMark + "\nSUMMARY"}, {Type: chat.Text, Text: "P2"}}}
	plain := []transcript.Record{rec(user("P1")), rec(answer("a", "c1")), rec(steered), rec(answer("b", "")), rec(user("P2")), rec(answer("c", ""))}
	compacted := append(append([]transcript.Record{}, plain...),
		transcript.Record{Type: transcript.TypeCheckpoint, Checkpoint: &transcript.Checkpoint{Summary: "SUMMARY", Messages: []chat.Message{summary, *answer("c", "")}}},
		rec(user("P3")), rec(answer("d", "")))
	tests := []struct {
		name   string
		branch []transcript.Record
		n      int
		kept   int    // records kept; -1: refused
		errHas string // part of the refusal
	}{
		{"before the first prompt", plain, 0, 0, ""},
		{"before a later prompt", plain, 4, 4, ""},
		{"the whole conversation", plain, 6, 6, ""},
		{"before the steered results", plain, 2, -1, "not a prompt"},
		{"before an answer after a steer", plain, 3, -1, "not a prompt"},
		{"past the end", plain, 7, -1, "does not exist"},
		{"after a checkpoint, counted from the summary", compacted, 2, 7, ""},
		{"before the summary", compacted, 0, -1, "not a prompt"},
		{"an answer kept by the checkpoint", compacted, 1, -1, "not a prompt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kept, err := cutBefore(tc.branch, tc.n)
			switch {
			case tc.kept < 0 && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
				t.Fatalf("kept %d records, err %v; want refused (%s)", len(kept), err, tc.errHas)
			case tc.kept >= 0 && err != nil:
				t.Fatal(err)
			case tc.kept >= 0 && len(kept) != tc.kept:
				t.Fatalf("kept %d records, want %d", len(kept), tc.kept)
			}
		})
	}
}
