// Package anthropic adapts the official Anthropic Go SDK to provider.Provider:
// it streams the Messages API with tool use and translates between chat
// types and SDK types. The SDK sends every request, but the messages in it
// are encoded by body.go, which is many times faster on a long history.
// SDK types never leave this package, and the SDK never retries on its
// own: provider.WithRetry does that so every retry is seen.
package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/wirebody"
)

// Options configure the client. The environment is never read here: the
// caller resolves the key and base URL from wisp's configuration.
type Options struct {
	APIKey string
	// BaseURL replaces https://api.anthropic.com/ (for proxies and tests).
	BaseURL string
	// HTTPClient replaces http.DefaultClient.
	HTTPClient *http.Client
	// MaxResponseBytes bounds the text and tool arguments of one response
	// (0 means provider.DefaultMaxResponseBytes).
	MaxResponseBytes int64
}

type client struct {
	messages sdk.MessageService
	limit    int64
	history  wirebody.History
}

// New returns a provider speaking the Anthropic Messages API.
func New(o Options) provider.Provider {
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithMaxRetries(0),
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	if o.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(o.BaseURL))
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	opts = append(opts, option.WithHTTPClient(hc))
	c := sdk.NewClient(opts...)
	limit := o.MaxResponseBytes
	if limit <= 0 {
		limit = provider.DefaultMaxResponseBytes
	}
	return &client{messages: c.Messages, limit: limit}
}

func (c *client) Stream(ctx context.Context, req provider.Request, cb provider.Callbacks) (provider.Response, error) {
	params, body, err := c.requestBody(req)
	if err != nil {
		return provider.Response{}, fmt.Errorf("anthropic: %w", err)
	}
	guard := provider.NewGuard(c.limit)
	// The SDK encodes params, which lack the messages; the body sent is
	// ours (see body.go).
	stream := c.messages.NewStreaming(ctx, params, option.WithMiddleware(
		func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			body.Attach(r)
			res, err := next(r)
			if err != nil {
				return nil, err
			}
			return guard.Check(res)
		}))
	defer stream.Close()

	acc := accumulator{budget: provider.Budget{Limit: c.limit}}
	for stream.Next() {
		if err := acc.add(stream.Current(), cb.Text); err != nil {
			return provider.Response{}, fmt.Errorf("anthropic: %w", err)
		}
	}
	if err := stream.Err(); err != nil {
		return provider.Response{}, provider.Escaped(convertError(ctx, err, acc.started))
	}
	resp, err := acc.response()
	if err != nil {
		return provider.Response{}, fmt.Errorf("anthropic: %w", err)
	}
	return resp, nil
}

// inputSchema splits a JSON Schema object into the SDK's fields, keeping
// every keyword it has no field for.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	if len(raw) == 0 {
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	for k, v := range m {
		switch k {
		case "type":
		case "properties":
			s.Properties = v
		case "required":
			list, _ := v.([]any)
			for _, r := range list {
				if name, ok := r.(string); ok {
					s.Required = append(s.Required, name)
				}
			}
		default:
			if s.ExtraFields == nil {
				s.ExtraFields = map[string]any{}
			}
			s.ExtraFields[k] = v
		}
	}
	return s, nil
}

// accumulator rebuilds the message from stream events. It keeps its own
// state rather than the SDK's Accumulate so that it can tell a cut stream
// (no message_stop: nothing is returned) from a whole message with a bad
// tool call (returned, the call marked malformed), and so that it counts
// what it holds against the response bound.
type accumulator struct {
	budget     provider.Budget
	started    bool
	blocks     []*block
	usage      chat.Usage
	stopReason string
	stopped    bool
}

type block struct {
	typ, id, name string
	text          strings.Builder
	input         strings.Builder
	closed        bool
}

func (a *accumulator) add(ev sdk.MessageStreamEventUnion, onText func(string)) error {
	switch ev.Type {
	case "message_start":
		a.started = true
		u := ev.Message.Usage
		a.usage = chat.Usage{
			InputTokens:      u.InputTokens,
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.CacheCreationInputTokens,
		}
	case "content_block_start":
		for int(ev.Index) >= len(a.blocks) {
			a.blocks = append(a.blocks, nil)
		}
		cb := ev.ContentBlock
		b := &block{typ: cb.Type, id: cb.ID, name: cb.Name}
		a.blocks[ev.Index] = b
		if cb.Type == "text" && cb.Text != "" {
			if err := a.budget.Take(len(cb.Text)); err != nil {
				return err
			}
			b.text.WriteString(cb.Text)
			if onText != nil {
				onText(cb.Text)
			}
		}
	case "content_block_delta":
		b := a.block(ev.Index)
		if b == nil {
			return nil
		}
		switch ev.Delta.Type {
		case "text_delta":
			if err := a.budget.Take(len(ev.Delta.Text)); err != nil {
				return err
			}
			b.text.WriteString(ev.Delta.Text)
			if onText != nil && ev.Delta.Text != "" {
				onText(ev.Delta.Text)
			}
		case "input_json_delta":
			if err := a.budget.Take(len(ev.Delta.PartialJSON)); err != nil {
				return err
			}
			b.input.WriteString(ev.Delta.PartialJSON)
		}
	case "content_block_stop":
		if b := a.block(ev.Index); b != nil {
			b.closed = true
		}
	case "message_delta":
		a.stopReason = string(ev.Delta.StopReason)
		u := ev.Usage
		a.usage.OutputTokens = u.OutputTokens
		// The later counts are totals for the message, so they replace.
		if u.JSON.InputTokens.Valid() {
			a.usage.InputTokens = u.InputTokens
		}
		if u.JSON.CacheReadInputTokens.Valid() {
			a.usage.CacheReadTokens = u.CacheReadInputTokens
		}
		if u.JSON.CacheCreationInputTokens.Valid() {
			a.usage.CacheWriteTokens = u.CacheCreationInputTokens
		}
	case "message_stop":
		a.stopped = true
	}
	return nil
}

func (a *accumulator) block(i int64) *block {
	if i < 0 || int(i) >= len(a.blocks) {
		return nil
	}
	return a.blocks[i]
}

func (a *accumulator) response() (provider.Response, error) {
	if !a.stopped {
		return provider.Response{}, provider.ErrStreamCut
	}
	var resp provider.Response
	msg := chat.Message{Role: chat.Assistant, Content: []chat.Block{}}
	for _, b := range a.blocks {
		if b == nil {
			continue
		}
		switch b.typ {
		case "text":
			if b.text.Len() > 0 {
				msg.Content = append(msg.Content, chat.Block{Type: chat.Text, Text: b.text.String()})
			}
		case "tool_use":
			input := strings.TrimSpace(b.input.String())
			if input == "" {
				input = "{}"
			}
			why := provider.CheckArguments(input, a.stopReason == "max_tokens")
			if why == "" && !b.closed {
				// message_stop came, so the message is whole; a block
				// left open is the server's slip, and its input is suspect.
				why = "the server never closed this tool call"
			}
			if why != "" {
				if resp.Malformed == nil {
					resp.Malformed = map[string]string{}
				}
				resp.Malformed[b.id] = why
				input = "{}"
			}
			msg.Content = append(msg.Content, chat.Block{Type: chat.ToolUse, ID: b.id, Name: b.name, Input: json.RawMessage(input)})
		}
		// Thinking and server-side tool blocks are not part of wisp's
		// conversation and are dropped.
	}
	resp.Message, resp.Usage, resp.StopReason = msg, a.usage, a.stopReason
	return resp, nil
}

// statusOfType gives the HTTP status an error event sent inside a stream
// stands for; such events arrive on a response that began with 200.
func statusOfType(t string) int {
	switch t {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "overloaded_error":
		return 529
	case "timeout_error":
		return http.StatusGatewayTimeout
	default:
		return http.StatusInternalServerError
	}
}

func convertError(ctx context.Context, err error, started bool) error {
	var ae *sdk.Error
	switch {
	case errors.As(err, new(*provider.APIError)) || provider.IsBoundError(err):
		return fmt.Errorf("anthropic: %w", err)
	case errors.As(err, &ae):
		// An error event inside a stream that began with 200.
		status := ae.StatusCode
		if status < 400 {
			status = statusOfType(string(ae.Type()))
		}
		msg := ae.Message
		if msg == "" {
			msg = strings.TrimSpace(ae.RawJSON())
		}
		// provider.APIError escapes the message when it is printed.
		return fmt.Errorf("anthropic: %w", &provider.APIError{Status: status, Message: msg, Err: err})
	case started && ctx.Err() == nil:
		return fmt.Errorf("anthropic: %w: %w", provider.ErrStreamCut, err)
	}
	return fmt.Errorf("anthropic: %w", err)
}
