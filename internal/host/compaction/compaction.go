// Package compaction holds the parts of compacting a conversation that
// need no session: where to cut it at a turn boundary, the plain-text
// digest sent to be summarised, the summary request's wording and the
// conversation a summary leaves. It must not call a provider, write a
// transcript or audit anything; package host does that.
package compaction

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/chat"
)

// Bounds of a compaction, in bytes of text.
const (
	// SummaryTokens bounds the summary the model writes.
	SummaryTokens = 8192
	// KeepBytes is how much of the latest turn is kept verbatim when the
	// model's window is unknown; with a known window, a quarter of it.
	KeepBytes = 32 << 10
	// DigestBytes bounds the conversation sent to be summarised when the
	// window is unknown; with a known window, what fits in it.
	DigestBytes = 256 << 10
	// resultBytes and argsBytes bound each tool result and each call's
	// arguments in that text; the summary needs their gist only.
	resultBytes = 2 << 10
	argsBytes   = 1 << 10
	// textBytes bounds any other block.
	textBytes = 8 << 10
)

// SummaryMark starts the text block that holds a summary, so that a later
// compaction can tell it from a prompt.
const SummaryMark = "[wisp: summary of the conversation so far]"

// KeptTurn is what a compaction keeps verbatim: the latest user turn,
// from its prompt on, when it is smaller than budget bytes and is not the
// whole conversation; else that prompt alone. A prompt is a user message
// with text and no tool results, so the cut before it never separates a
// call from its result, and every call after it has its result after it
// too. ok is false when there is nothing to summarise.
func KeptTurn(msgs []chat.Message, budget int) (kept []chat.Message, ok bool) {
	p := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if StartsTurn(msgs[i]) {
			p = i
			break
		}
	}
	if p < 0 {
		return nil, len(msgs) > 0
	}
	prompt := chat.Message{Role: chat.User}
	for _, b := range msgs[p].Content {
		if b.Type == chat.Text && !strings.HasPrefix(b.Text, SummaryMark) {
			prompt.Content = append(prompt.Content, b)
		}
	}
	turn := append([]chat.Message{prompt}, msgs[p+1:]...)
	if p > 0 && conversationBytes(turn) <= budget {
		return turn, true
	}
	if len(msgs) == 1 && len(prompt.Content) == len(msgs[0].Content) {
		return nil, false
	}
	return []chat.Message{prompt}, true
}

// StartsTurn says whether m is a prompt: a user message with text of its
// own (not only an earlier summary) and no tool results.
func StartsTurn(m chat.Message) bool {
	if m.Role != chat.User {
		return false
	}
	text := false
	for _, b := range m.Content {
		switch {
		case b.Type == chat.ToolResult:
			return false
		case b.Type == chat.Text && b.Text != "" && !strings.HasPrefix(b.Text, SummaryMark):
			text = true
		}
	}
	return text
}

// conversationBytes is the bytes of text a conversation holds.
func conversationBytes(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Input)
		}
	}
	return n
}

// WithSummary is the conversation a compaction leaves: the summary, then
// the kept turn, whose prompt joins the summary's user message (the wire
// formats want roles to alternate).
func WithSummary(summary string, kept []chat.Message) []chat.Message {
	text := SummaryMark + "\nThe conversation before this point was compacted into this summary; the turn after it is kept as it was.\n\n" + summary
	first := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: text}}}
	if len(kept) == 0 {
		return []chat.Message{first}
	}
	first.Content = append(first.Content, kept[0].Content...)
	return append([]chat.Message{first}, kept[1:]...)
}

// System is what the model is told when it is asked for a summary.
const System = "You summarise the conversation of a coding agent with a person, so that the agent can go on with the work from your summary alone, without the conversation. Be exact and brief: keep paths, names, commands, numbers and error messages as they were; leave out pleasantries and anything already resolved that does not matter for what comes next."

// summaryAsk is the request for a summary, before the conversation.
const summaryAsk = `Summarise the conversation below under these headings, in this order:

## Goal
What the person wants done, in their terms.
## Decisions
What was decided or agreed, and why.
## Files touched
Each file read, created or changed, with its path and what was done or learned there.
## Open tasks
What is left to do, the next step first.
## Errors seen
Errors and failed commands, with their messages, and whether they are fixed.

Write "none" under a heading with nothing to say. Answer with the summary only.`

// Digest renders a conversation as plain text for the summary request,
// each block cut to its bound; when the whole is over budget bytes, the
// oldest messages are left out (an earlier summary at the start is kept)
// and a line says how many. Plain text rather than the messages
// themselves: a request with tool calls but no tools is refused by some
// providers, and the bounds keep the request inside the window.
func Digest(msgs []chat.Message, budget int) string {
	parts := make([]string, len(msgs))
	total := 0
	for i, m := range msgs {
		parts[i] = RenderMessage(m)
		total += len(parts[i])
	}
	first := 0
	if len(msgs) > 0 && len(msgs[0].Content) > 0 && strings.HasPrefix(msgs[0].Content[0].Text, SummaryMark) {
		first = 1 // the earlier summary stands for everything before it
	}
	drop := first
	for total > budget && drop < len(parts)-1 {
		total -= len(parts[drop])
		drop++
	}
	var b strings.Builder
	b.WriteString(strings.Join(parts[:first], ""))
	if n := drop - first; n > 0 {
		fmt.Fprintf(&b, "[%d earlier messages left out to fit]\n\n", n)
	}
	b.WriteString(strings.Join(parts[drop:], ""))
	return b.String()
}

// RenderMessage is one message as the digest shows it, each block cut to
// its bound.
func RenderMessage(m chat.Message) string {
	var b strings.Builder
	for _, bl := range m.Content {
		switch {
		case bl.Type == chat.Text && strings.HasPrefix(bl.Text, SummaryMark):
			fmt.Fprintf(&b, "[earlier summary]\n%s\n\n", clipText(bl.Text, textBytes*4))
		case bl.Type == chat.Text:
			fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, clipText(bl.Text, textBytes))
		case bl.Type == chat.ToolUse:
			fmt.Fprintf(&b, "[tool call %s] %s\n\n", bl.Name, clipText(string(bl.Input), argsBytes))
		case bl.Type == chat.ToolResult:
			label := "tool result"
			if bl.IsError {
				label = "tool error"
			}
			fmt.Fprintf(&b, "[%s]\n%s\n\n", label, clipText(bl.Text, resultBytes))
		}
	}
	return b.String()
}

// clipText keeps the start and the end of s within n bytes, on rune
// boundaries, marking the cut: a result's end often holds its error.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	cut := len(s) - tail
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", s[:head], cut-head, s[cut:])
}

// Ask is the request for a summary of msgs, with the person's extra
// instructions, the conversation cut to budget bytes.
func Ask(msgs []chat.Message, instructions string, budget int) string {
	ask := summaryAsk
	if strings.TrimSpace(instructions) != "" {
		ask += "\n\nAlso: " + strings.TrimSpace(instructions)
	}
	return ask + "\n\n<conversation>\n" + Digest(msgs, budget) + "</conversation>"
}

// Budget is how many bytes of conversation the summary request may hold
// for a model with this window (0: unknown), leaving reserve tokens free.
func Budget(window, reserve int) int {
	if window <= 0 {
		return DigestBytes
	}
	// About 3 bytes a token, leaving the reserve and the summary free.
	return max(16<<10, 3*(window-min(reserve, window/4)-SummaryTokens))
}
