// Package kill is wisp's kill harness: it runs the built wisp binary
// against the fake provider (both wire formats) on a scripted task whose
// tool calls have side effects, kills it at a random moment (SIGKILL,
// SIGTERM or SIGHUP), resumes the session with --continue, and checks
// what a reliability engineer would: no call that ran is reported to the
// model as "not run", no process the killed wisp started survives it, and
// every resumed request passes a strict validator. `go test ./bench/kill`
// runs a short version; WISP_KILL_TRIALS=N runs N trials.
//
// The package holds tests and their helpers only; nothing imports it.
package kill

import (
	"encoding/json"
	"fmt"
)

// call is one tool call found in a request, with what was sent back for it.
type call struct {
	id, name string
	input    string // the arguments as JSON text
	result   string
	isError  bool
}

// validateAnthropic checks a Messages API request strictly: the first
// message is the user's, roles alternate, every tool_use is answered by
// exactly one tool_result at the start of the next (user) message, in
// order, and no tool_result answers anything else. It returns the calls
// in order.
func validateAnthropic(body []byte) ([]call, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("no messages")
	}
	var calls []call
	seen := map[string]bool{}
	var pending []int // indexes into calls awaiting results
	for i, m := range req.Messages {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return nil, fmt.Errorf("message %d has role %q, want %q (roles must alternate, user first)", i, m.Role, want)
		}
		var blocks []block
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			if s == "" {
				return nil, fmt.Errorf("message %d is empty", i)
			}
			blocks = []block{{Type: "text", Text: s}}
		} else if err := json.Unmarshal(m.Content, &blocks); err != nil {
			return nil, fmt.Errorf("message %d content: %w", i, err)
		}
		if len(blocks) == 0 {
			return nil, fmt.Errorf("message %d has no content", i)
		}
		k := 0
		for _, p := range pending {
			if k >= len(blocks) || blocks[k].Type != "tool_result" {
				return nil, fmt.Errorf("message %d: tool_use %s has no tool_result at the start of the next message", i, calls[p].id)
			}
			if blocks[k].ToolUseID != calls[p].id {
				return nil, fmt.Errorf("message %d block %d: tool_result for %q, want %q (results in call order)", i, k, blocks[k].ToolUseID, calls[p].id)
			}
			calls[p].result, calls[p].isError = resultText(blocks[k].Content, blocks[k].Text), blocks[k].IsError
			k++
		}
		pending = nil
		for j, b := range blocks[k:] {
			switch b.Type {
			case "text":
				if b.Text == "" {
					return nil, fmt.Errorf("message %d block %d: empty text", i, k+j)
				}
			case "tool_use":
				if m.Role != "assistant" {
					return nil, fmt.Errorf("message %d: tool_use in a %s message", i, m.Role)
				}
				if b.ID == "" || seen[b.ID] {
					return nil, fmt.Errorf("message %d: tool_use id %q missing or repeated", i, b.ID)
				}
				if !json.Valid(b.Input) {
					return nil, fmt.Errorf("message %d: tool_use %s input is not JSON", i, b.ID)
				}
				seen[b.ID] = true
				pending = append(pending, len(calls))
				calls = append(calls, call{id: b.ID, name: b.Name, input: string(b.Input)})
			case "tool_result":
				return nil, fmt.Errorf("message %d block %d: tool_result for %q answers no tool_use of the message before", i, k+j, b.ToolUseID)
			default:
				return nil, fmt.Errorf("message %d block %d: unknown block type %q", i, k+j, b.Type)
			}
		}
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("the last message's tool_use %s is not answered", calls[pending[0]].id)
	}
	if req.Messages[len(req.Messages)-1].Role != "user" {
		return nil, fmt.Errorf("the request does not end with a user message")
	}
	return calls, nil
}

// resultText is a tool_result's text, whether its content is a string or
// a list of text blocks.
func resultText(content json.RawMessage, text string) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) == nil {
		out := ""
		for _, b := range blocks {
			out += b.Text
		}
		return out
	}
	return text
}

// validateOpenAI checks a Chat Completions request strictly: system
// messages only first, then a user message; user and assistant turns
// alternate; an assistant message with tool_calls is followed by exactly
// one tool message per call, in order, and tool messages appear nowhere
// else; arguments are JSON; the request ends with a user or tool message.
func validateOpenAI(body []byte) ([]call, error) {
	var req struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("body is not JSON: %w", err)
	}
	msgs := req.Messages
	i := 0
	for i < len(msgs) && (msgs[i].Role == "system" || msgs[i].Role == "developer") {
		i++
	}
	if i == len(msgs) || msgs[i].Role != "user" {
		return nil, fmt.Errorf("the first message after the system prompt is not the user's")
	}
	var calls []call
	seen := map[string]bool{}
	last := "" // the previous turn: user, assistant, or tool (results)
	for ; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case "user":
			if last == "user" {
				return nil, fmt.Errorf("message %d: two user messages in a row", i)
			}
			if len(m.Content) == 0 || string(m.Content) == `""` || string(m.Content) == "null" {
				return nil, fmt.Errorf("message %d: empty user message", i)
			}
			last = "user"
		case "assistant":
			if last != "user" && last != "tool" {
				return nil, fmt.Errorf("message %d: an assistant message not after a user message or tool results", i)
			}
			last = "assistant"
			for _, tc := range m.ToolCalls {
				if tc.ID == "" || seen[tc.ID] || tc.Type != "function" || !json.Valid([]byte(tc.Function.Arguments)) {
					return nil, fmt.Errorf("message %d: tool call %q malformed or repeated", i, tc.ID)
				}
				seen[tc.ID] = true
				if i+1 >= len(msgs) || msgs[i+1].Role != "tool" || msgs[i+1].ToolCallID != tc.ID {
					return nil, fmt.Errorf("message %d: tool call %s is not answered by the next tool message in order", i, tc.ID)
				}
				i++
				var text string
				if err := json.Unmarshal(msgs[i].Content, &text); err != nil {
					return nil, fmt.Errorf("message %d: tool content is not a string: %w", i, err)
				}
				calls = append(calls, call{id: tc.ID, name: tc.Function.Name, input: tc.Function.Arguments, result: text})
			}
			if len(m.ToolCalls) > 0 {
				last = "tool"
			}
			if len(m.ToolCalls) == 0 && (len(m.Content) == 0 || string(m.Content) == `""` || string(m.Content) == "null") {
				return nil, fmt.Errorf("message %d: empty assistant message", i)
			}
		case "tool":
			return nil, fmt.Errorf("message %d: a tool message that answers no tool call", i)
		default:
			return nil, fmt.Errorf("message %d: role %q", i, m.Role)
		}
	}
	if last != "user" && last != "tool" {
		return nil, fmt.Errorf("the request does not end with a user message or tool results")
	}
	return calls, nil
}
