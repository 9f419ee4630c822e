package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

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
// JSON value the SDK wrote for the params the previous code built;
// TestBodyMatchesSDK and FuzzBodyMatchesSDK hold it to that.

// requestBody returns the request's body and the params (without the
// messages) to hand the SDK alongside it.
func (c *client) requestBody(req provider.Request) (sdk.MessageNewParams, *wirebody.Body, error) {
	p, err := headParams(req)
	if err != nil {
		return p, nil, err
	}
	head, err := json.Marshal(p)
	if err != nil {
		return p, nil, fmt.Errorf("encode request fields: %w", err)
	}
	// Two cache breakpoints: the system prompt (which caches the tools
	// before it) and the newest message that is sent, so each turn of a
	// loop re-reads the whole conversation from the cache.
	last := -1
	for i, m := range req.Messages {
		if slices.ContainsFunc(m.Content, sent) {
			last = i
		}
	}
	parts, err := c.history.Encode(req.Messages, last, encodeMessage)
	if err != nil {
		return p, nil, err
	}
	body, err := wirebody.NewBody(head, parts)
	return p, body, err
}

// headParams builds every field but the messages.
func headParams(req provider.Request) (sdk.MessageNewParams, error) {
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = int64(provider.MaxTokensFor(req.Model))
	}
	p := sdk.MessageNewParams{
		Model:     sdk.Model(req.Model),
		MaxTokens: maxTokens,
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: sdk.NewCacheControlEphemeralParam()}}
	}
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tp := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	return p, nil
}

// sent tells whether a block is sent: the API refuses empty text blocks,
// so they are dropped, and a message left with none is not sent at all.
func sent(b chat.Block) bool { return b.Type != chat.Text || b.Text != "" }

// encodeMessage encodes one message as an element of "messages", or as
// nothing when it has no block to send; last puts the cache breakpoint
// on its final block.
func encodeMessage(out []byte, m chat.Message, last bool) ([]byte, error) {
	final := -1
	for i, b := range m.Content {
		if sent(b) {
			final = i
		}
	}
	if final < 0 {
		return out, nil
	}
	out = append(out, `{"role":`...)
	out = wirebody.AppendString(out, string(m.Role))
	out = append(out, `,"content":[`...)
	sep := false
	for i, b := range m.Content {
		if !sent(b) {
			continue
		}
		if sep {
			out = append(out, ',')
		}
		sep = true
		var err error
		if out, err = appendBlock(out, b); err != nil {
			return nil, err
		}
		if last && i == final {
			out = append(out, `,"cache_control":{"type":"ephemeral"}`...)
		}
		out = append(out, '}')
	}
	if m.Role != chat.User && m.Role != chat.Assistant {
		return nil, fmt.Errorf("message of unknown role %q", m.Role)
	}
	return append(out, "]}"...), nil
}

// appendBlock appends one content block but its closing brace, so that
// the caller can add a cache breakpoint.
func appendBlock(out []byte, b chat.Block) ([]byte, error) {
	switch b.Type {
	case chat.Text:
		out = append(out, `{"type":"text","text":`...)
		out = wirebody.AppendString(out, b.Text)
	case chat.ToolUse:
		out = append(out, `{"type":"tool_use","id":`...)
		out = wirebody.AppendString(out, b.ID)
		out = append(out, `,"name":`...)
		out = wirebody.AppendString(out, b.Name)
		out = append(out, `,"input":`...)
		input := []byte(b.Input)
		if len(input) == 0 {
			input = []byte(`{}`)
		}
		var err error
		if out, err = wirebody.AppendRaw(out, input); err != nil {
			return nil, fmt.Errorf("tool call %s: input: %w", b.ID, err)
		}
	case chat.ToolResult:
		out = append(out, `{"type":"tool_result","tool_use_id":`...)
		out = wirebody.AppendString(out, b.ToolUseID)
		if b.IsError {
			out = append(out, `,"is_error":true`...)
		}
		// The API refuses empty text blocks; an empty result is no content.
		if b.Text != "" {
			out = append(out, `,"content":[{"type":"text","text":`...)
			out = wirebody.AppendString(out, b.Text)
			out = append(out, "}]"...)
		}
	default:
		return nil, fmt.Errorf("message block of unknown type %q", b.Type)
	}
	return out, nil
}
