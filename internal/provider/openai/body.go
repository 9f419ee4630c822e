package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/wirebody"
)

// The messages of a request are encoded here by hand, appending to a byte
// slice, because the SDK's reflection-based encoder takes about 100 ms for
// a 10,000-record history (about 6 MB): most of what a resumed session
// waited before its first request. The SDK is still the client (it sends
// this body with its headers and decodes the stream) and still encodes
// every other field, which is small. encodeMessage writes exactly the
// JSON values the SDK wrote for the params the previous code built;
// TestBodyMatchesSDK and FuzzBodyMatchesSDK hold it to that.

// requestBody returns the request's body and the params (without the
// messages) to hand the SDK alongside it.
func (c *client) requestBody(req provider.Request) (sdk.ChatCompletionNewParams, *wirebody.Body, error) {
	p, err := c.headParams(req)
	if err != nil {
		return p, nil, err
	}
	head, err := json.Marshal(p)
	if err != nil {
		return p, nil, fmt.Errorf("encode request fields: %w", err)
	}
	parts, err := c.history.Encode(req.Messages, -1, func(dst []byte, m chat.Message, _ bool) ([]byte, error) {
		return encodeMessage(dst, m)
	})
	if err != nil {
		return p, nil, err
	}
	if req.System != "" {
		system := wirebody.AppendString([]byte(`{"role":"system","content":`), req.System)
		parts = append([][]byte{append(system, '}')}, parts...)
	}
	body, err := wirebody.NewBody(head, parts)
	return p, body, err
}

// headParams builds every field but the messages.
func (c *client) headParams(req provider.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
	}
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = int64(provider.MaxTokensFor(req.Model))
	}
	if c.compatible {
		p.MaxTokens = param.NewOpt(maxTokens)
	} else {
		p.MaxCompletionTokens = param.NewOpt(maxTokens)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		if len(t.Schema) > 0 {
			if err := json.Unmarshal(t.Schema, &fn.Parameters); err != nil {
				return p, fmt.Errorf("tool %s: input schema is not a JSON object: %w", t.Name, err)
			}
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	return p, nil
}

// encodeMessage encodes one chat message as its elements of "messages"
// (none, one or several, joined by commas). A user message's tool results
// become role=tool messages placed first, because they must directly
// follow the assistant message that asked for them.
func encodeMessage(out []byte, m chat.Message) ([]byte, error) {
	var texts []string
	var calls []chat.Block
	for _, b := range m.Content {
		switch b.Type {
		case chat.Text:
			texts = append(texts, b.Text)
		case chat.ToolResult:
		case chat.ToolUse:
			calls = append(calls, b)
		default:
			return nil, fmt.Errorf("message block of unknown type %q", b.Type)
		}
	}
	if m.Role != chat.User && m.Role != chat.Assistant {
		return nil, fmt.Errorf("message of unknown role %q", m.Role)
	}
	// Texts are joined before they are escaped: a character may be split
	// between two blocks.
	text := strings.Join(texts, "")
	start := len(out)
	for _, b := range m.Content {
		if b.Type != chat.ToolResult {
			continue
		}
		// The wire has no error flag; the result text has to say it.
		out = separate(out, start)
		out = append(out, `{"role":"tool","content":`...)
		out = wirebody.AppendString(out, b.Text)
		out = append(out, `,"tool_call_id":`...)
		out = wirebody.AppendString(out, b.ToolUseID)
		out = append(out, '}')
	}
	switch {
	case m.Role == chat.User && text != "":
		out = separate(out, start)
		out = append(out, `{"role":"user","content":`...)
		out = wirebody.AppendString(out, text)
		out = append(out, '}')
	case m.Role == chat.Assistant && (text != "" || len(calls) > 0):
		out = separate(out, start)
		out = append(out, `{"role":"assistant"`...)
		if text != "" {
			out = append(out, `,"content":`...)
			out = wirebody.AppendString(out, text)
		}
		if len(calls) > 0 {
			out = append(out, `,"tool_calls":[`...)
			for i, c := range calls {
				if i > 0 {
					out = append(out, ',')
				}
				out = appendCall(out, c)
			}
			out = append(out, ']')
		}
		out = append(out, '}')
	}
	return out, nil
}

// separate puts a comma after an element already in out[start:].
func separate(out []byte, start int) []byte {
	if len(out) > start {
		out = append(out, ',')
	}
	return out
}

// appendCall appends a tool call; its arguments travel as a string
// holding the input's JSON text as it came.
func appendCall(out []byte, c chat.Block) []byte {
	args := string(c.Input)
	if args == "" {
		args = "{}"
	}
	out = append(out, `{"id":`...)
	out = wirebody.AppendString(out, c.ID)
	out = append(out, `,"type":"function","function":{"name":`...)
	out = wirebody.AppendString(out, c.Name)
	out = append(out, `,"arguments":`...)
	out = wirebody.AppendString(out, args)
	return append(out, "}}"...)
}
