package transcript

import (
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// Interrupted is the result a resumed conversation gives a call whose
// start is on record but whose result is not: wisp stopped while it ran,
// so it may have done part of its work.
const Interrupted = "error: interrupted: this call started but wisp stopped before it finished; it may have partly run"

// conversation rebuilds the messages along a branch, from its latest
// checkpoint when it has one. Each tool result is
// a record of its own (written the moment its call ended), so the user
// messages after an assistant message are joined into one, its results in
// the order of the calls; a call that started but has no result gets the
// Interrupted result. Calls that never started are left without one for
// the agent's repair to answer.
func conversation(branch []Record) []chat.Message {
	var msgs []chat.Message
	// started holds, per assistant message (by its index in msgs), the
	// calls whose start was recorded after it: ids are unique within a
	// response, but some servers (and the fake) repeat them across
	// responses, so an earlier call's start must not count for a later
	// call of the same id.
	started := map[int]map[string]bool{}
	current := -1
	for _, r := range branch {
		switch {
		case r.Type == TypeMessage && r.Message != nil:
			m := *r.Message
			if n := len(msgs); n > 0 && m.Role == chat.User && msgs[n-1].Role == chat.User {
				msgs[n-1].Content = append(append([]chat.Block(nil), msgs[n-1].Content...), m.Content...)
				continue
			}
			msgs = append(msgs, m)
			if m.Role == chat.Assistant {
				current = len(msgs) - 1
				started[current] = map[string]bool{}
			}
		case r.Type == TypeEvent && current >= 0:
			switch e := r.Event.Event.(type) {
			case event.ToolStart:
				started[current][e.CallID] = true
			case event.ApprovalRequest:
				// tool_execution_start comes before the gate asks: a
				// call whose question was never answered never ran, so
				// it is "not run", not "may have partly run".
				delete(started[current], e.CallID)
			case event.ApprovalDecision:
				if e.Approved {
					started[current][e.CallID] = true
				}
			}
		case r.Type == TypeCheckpoint && r.Checkpoint != nil:
			// A compaction: what came before is replaced by its summary
			// and the turns it kept, whose calls all have their results.
			msgs = append([]chat.Message(nil), r.Checkpoint.Messages...)
			started, current = map[int]map[string]bool{}, -1
			for i, m := range msgs {
				if m.Role == chat.Assistant {
					current = i
					started[i] = map[string]bool{}
				}
			}
		}
	}
	var out []chat.Message
	for i, m := range msgs {
		if len(out) == 0 && m.Role != chat.User {
			// The branch's start is missing (a record deleted by hand
			// makes the rest a root): providers refuse a history that
			// does not open with the user, so say what happened instead.
			out = append(out, chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: MissingStart}}})
		}
		calls := m.ToolUses()
		if m.Role == chat.User && i > 0 && msgs[i-1].Role == chat.Assistant && len(msgs[i-1].ToolUses()) > 0 {
			continue // written with its answer below
		}
		out = append(out, m)
		if m.Role != chat.Assistant || len(calls) == 0 {
			continue
		}
		var next *chat.Message
		if i+1 < len(msgs) && msgs[i+1].Role == chat.User {
			next = &msgs[i+1]
		}
		// The results go right after their calls, also when the next
		// message on record is another answer (the results' records
		// were lost): anywhere else they would answer no call.
		if results := answer(calls, next, started[i]); len(results.Content) > 0 {
			out = append(out, results)
		}
	}
	return out
}

// MissingStart opens a resumed conversation whose first records are
// missing from the transcript.
const MissingStart = "[wisp: the start of this conversation is missing from the session's transcript]"

// answer orders next's tool results by calls (first result per call,
// results of other calls dropped), adds Interrupted for started calls
// without one, and keeps next's other blocks after them.
func answer(calls []chat.Block, next *chat.Message, started map[string]bool) chat.Message {
	have := map[string]chat.Block{}
	var rest []chat.Block
	if next != nil {
		for _, b := range next.Content {
			if b.Type != chat.ToolResult {
				rest = append(rest, b)
				continue
			}
			if _, dup := have[b.ToolUseID]; !dup {
				have[b.ToolUseID] = b
			}
		}
	}
	out := chat.Message{Role: chat.User}
	for _, c := range calls {
		if b, ok := have[c.ID]; ok {
			out.Content = append(out.Content, b)
		} else if started[c.ID] {
			out.Content = append(out.Content, chat.Block{Type: chat.ToolResult, ToolUseID: c.ID, Text: Interrupted, IsError: true})
		}
	}
	out.Content = append(out.Content, rest...)
	return out
}

// LastInputTokens is the input of the newest request on a branch whose
// answer's usage is on record after its latest checkpoint (input, cache
// read and cache write tokens): how near the model's context window a
// resumed conversation already is. 0 when none is.
func LastInputTokens(branch []Record) int64 {
	for i := len(branch) - 1; i >= 0; i-- {
		r := branch[i]
		if r.Type == TypeCheckpoint {
			return 0
		}
		if e, ok := r.Event.Event.(event.MessageEnd); ok && r.Type == TypeEvent && e.Usage != nil {
			return e.Usage.InputTokens + e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens
		}
	}
	return 0
}
