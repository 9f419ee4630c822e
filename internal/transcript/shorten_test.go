package transcript

import (
	"fmt"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
)

func TestLastTurns(t *testing.T) {
	// Three turns: a prompt, a call and its result, an answer each; the
	// second turn's result message holds only a tool result.
	var branch []Record
	add := func(role chat.Role, b chat.Block) {
		id := fmt.Sprintf("r%d", len(branch))
		parent := ""
		if n := len(branch); n > 0 {
			parent = branch[n-1].ID
		}
		branch = append(branch, Record{Type: TypeMessage, ID: id, Parent: parent, Message: &chat.Message{Role: role, Content: []chat.Block{b}}})
	}
	for i := range 3 {
		add(chat.User, chat.Block{Type: chat.Text, Text: fmt.Sprintf("prompt %d", i)})
		add(chat.Assistant, chat.Block{Type: chat.ToolUse, ID: fmt.Sprintf("c%d", i), Name: "ls"})
		add(chat.User, chat.Block{Type: chat.ToolResult, ToolUseID: fmt.Sprintf("c%d", i), Text: "x"})
		add(chat.Assistant, chat.Block{Type: chat.Text, Text: "done"})
	}
	for _, tc := range []struct {
		n, wantLen, wantDropped int
		wantFirst               string
	}{
		{0, 12, 0, "prompt 0"},
		{1, 4, 2, "prompt 2"},
		{2, 8, 1, "prompt 1"},
		{3, 12, 0, "prompt 0"},
		{9, 12, 0, "prompt 0"},
	} {
		kept, dropped := LastTurns(branch, tc.n)
		if len(kept) != tc.wantLen || dropped != tc.wantDropped {
			t.Fatalf("keep %d: %d records, %d dropped; want %d, %d", tc.n, len(kept), dropped, tc.wantLen, tc.wantDropped)
		}
		if got := kept[0].Message.TextOf(); got != tc.wantFirst || kept[0].Parent != "" {
			t.Errorf("keep %d: starts at %q (parent %q), want %q as a root", tc.n, got, kept[0].Parent, tc.wantFirst)
		}
		msgs := Conversation(kept)
		if len(msgs) != tc.wantLen || msgs[1].ToolUses()[0].ID != kept[1].Message.Content[0].ID {
			t.Errorf("keep %d: conversation of %d messages does not match the records kept", tc.n, len(msgs))
		}
	}
	if branch[4].Parent == "" {
		t.Error("LastTurns changed the branch it was given")
	}
}
