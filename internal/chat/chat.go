// Package chat holds the provider-neutral conversation types: messages,
// content blocks, tool specifications and token usage. Provider packages
// translate these to and from their wire formats; SDK types never leave
// the provider packages.
package chat

import "encoding/json"

// Role says who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockType names the kind of a content block.
type BlockType string

const (
	Text       BlockType = "text"
	ToolUse    BlockType = "tool_use"
	ToolResult BlockType = "tool_result"
)

// Block is one piece of a message. Which fields are set depends on Type:
// Text uses Text; ToolUse uses ID, Name and Input; ToolResult uses
// ToolUseID, Text and IsError.
type Block struct {
	Type      BlockType       `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// TextOf joins the text blocks of a message.
func (m Message) TextOf() string {
	var s string
	for _, b := range m.Content {
		if b.Type == Text {
			s += b.Text
		}
	}
	return s
}

// ToolUses returns the tool calls a message asks for, in order.
func (m Message) ToolUses() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == ToolUse {
			out = append(out, b)
		}
	}
	return out
}

// UserText builds a user message holding one text block.
func UserText(s string) Message {
	return Message{Role: User, Content: []Block{{Type: Text, Text: s}}}
}

// ToolSpec is what the model is told about a tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Usage counts the tokens of one provider response.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Add sums two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
	}
}
