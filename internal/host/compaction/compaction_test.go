package compaction

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/chat"
)

func user(text string) chat.Message { return chat.UserText(text) }

func answer(text string, calls ...string) chat.Message {
	m := chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: text}}}
	for _, id := range calls {
		m.Content = append(m.Content, chat.Block{Type: chat.ToolUse, ID: id, Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)})
	}
	return m
}

func results(ids ...string) chat.Message {
	m := chat.Message{Role: chat.User}
	for _, id := range ids {
		m.Content = append(m.Content, chat.Block{Type: chat.ToolResult, ToolUseID: id, Text: "out " + id})
	}
	return m
}

func TestStartsTurn(t *testing.T) {
	tests := []struct {
		name string
		m    chat.Message
		want bool
	}{
		{"a prompt", user("fix it"), true},
		{"tool results", results("c1"), false},
		{"a steer beside results", chat.Message{Role: chat.User, Content: append(results("c1").Content, chat.Block{Type: chat.Text, Text: "also"})}, false},
		{"an answer", answer("done"), false},
		{"only an earlier summary", user(SummaryMark + "\nold"), false},
		{"an empty text", user(""), false},
	}
	for _, tt := range tests {
		if got := StartsTurn(tt.m); got != tt.want {
			t.Errorf("%s: StartsTurn = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestKeptTurnNeverSplitsACall: what is kept starts at a prompt, so
// every call in it has its result in it too.
func TestKeptTurnNeverSplitsACall(t *testing.T) {
	conv := []chat.Message{user("first"), answer("a", "c1"), results("c1"), answer("b"),
		user("second"), answer("c", "c2", "c3"), results("c2", "c3"), answer("d")}
	kept, ok := KeptTurn(conv, 1<<20)
	if !ok || len(kept) != 4 || kept[0].TextOf() != "second" {
		t.Fatalf("kept %d messages (%v), want the last turn of 4", len(kept), ok)
	}
	calls, res := map[string]bool{}, map[string]bool{}
	for _, m := range kept {
		for _, b := range m.Content {
			if b.Type == chat.ToolUse {
				calls[b.ID] = true
			}
			if b.Type == chat.ToolResult {
				res[b.ToolUseID] = true
			}
		}
	}
	for id := range calls {
		if !res[id] {
			t.Errorf("call %s kept without its result", id)
		}
	}
	// Over budget: the prompt alone.
	if kept, ok := KeptTurn(conv, 10); !ok || len(kept) != 1 || kept[0].TextOf() != "second" {
		t.Errorf("over budget: kept %v", kept)
	}
	// One prompt and nothing else: nothing to summarise.
	if _, ok := KeptTurn([]chat.Message{user("only")}, 1<<20); ok {
		t.Error("a lone prompt was compacted")
	}
}

func TestWithSummaryAlternatesRoles(t *testing.T) {
	out := WithSummary("## Goal\nx", []chat.Message{user("second"), answer("d")})
	if len(out) != 2 || out[0].Role != chat.User || out[1].Role != chat.Assistant {
		t.Fatalf("roles: %+v", out)
	}
	if !strings.HasPrefix(out[0].Content[0].Text, SummaryMark) || out[0].Content[1].Text != "second" {
		t.Errorf("the summary and the kept prompt share the first message: %+v", out[0])
	}
}

// TestDigestBounds: long blocks are clipped at rune boundaries keeping
// both ends, and the oldest messages go first when over budget, but an
// earlier summary stays.
func TestDigestBounds(t *testing.T) {
	long := strings.Repeat("é", 10000) + "THE END"
	d := RenderMessage(chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, Text: long}}})
	if !utf8.ValidString(d) || !strings.Contains(d, "THE END") || !strings.Contains(d, "bytes left out") || len(d) > resultBytes+200 {
		t.Errorf("clipped result: %d bytes, valid %v", len(d), utf8.ValidString(d))
	}
	conv := []chat.Message{user(SummaryMark + "\nearlier"), answer(strings.Repeat("x", 4000)), answer(strings.Repeat("y", 4000)), user("latest")}
	got := Digest(conv, 5000)
	if !strings.Contains(got, "[earlier summary]") || !strings.Contains(got, "latest") || !strings.Contains(got, "earlier messages left out") {
		t.Errorf("digest over budget:\n%.300s", got)
	}
	if strings.Contains(got, "xxxx") {
		t.Error("the oldest answer was kept over budget")
	}
}

func TestAskAndBudget(t *testing.T) {
	ask := Ask([]chat.Message{user("hi")}, "  keep the SQL  ", 1000)
	for _, want := range []string{"## Goal", "## Errors seen", "Also: keep the SQL", "<conversation>\n[user]\nhi"} {
		if !strings.Contains(ask, want) {
			t.Errorf("the ask lacks %q", want)
		}
	}
	if Budget(0, 16384) != DigestBytes {
		t.Error("unknown window")
	}
	if b := Budget(200000, 16384); b <= 16<<10 || b > 3*200000 {
		t.Errorf("budget for 200k: %d", b)
	}
	if Budget(10000, 16384) != 16<<10 {
		t.Errorf("a small window keeps the floor: %d", Budget(10000, 16384))
	}
}
