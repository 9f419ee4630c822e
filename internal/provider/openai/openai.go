// Package openai adapts the official OpenAI Go SDK to provider.Provider over
// the Chat Completions API, streaming with tool calls. It serves both OpenAI
// itself and any server that speaks the same wire format (Ollama, llama.cpp,
// vLLM, LM Studio, OpenRouter), so it tolerates missing usage and ids. The
// SDK sends every request, but the messages in it are encoded by body.go,
// which is many times faster on a long history. SDK types never leave this
// package, and the SDK never retries on its own: provider.WithRetry does
// that so every retry is seen.
package openai

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/wirebody"
)

// DefaultBaseURL is OpenAI's own endpoint.
const DefaultBaseURL = "https://api.openai.com/v1/"

// Options configure the client. The environment is never read here (the
// SDK's OPENAI_* variables included): the caller resolves the key and base
// URL from wisp's configuration, so a key meant for OpenAI never reaches
// another server by accident.
type Options struct {
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// BaseURL is the API root including its /v1, e.g.
	// http://127.0.0.1:11434/v1 for Ollama. Empty means DefaultBaseURL.
	BaseURL string
	// HTTPClient replaces http.DefaultClient.
	HTTPClient *http.Client
	// MaxResponseBytes bounds the text and tool arguments of one response
	// (0 means provider.DefaultMaxResponseBytes).
	MaxResponseBytes int64
}

type client struct {
	completions sdk.ChatCompletionService
	limit       int64
	// compatible is true for servers other than OpenAI, which often know
	// max_tokens but not its successor max_completion_tokens.
	compatible bool
	history    wirebody.History
}

// New returns a provider speaking the Chat Completions API.
func New(o Options) provider.Provider {
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	// The service is built directly, not through NewClient, because
	// NewClient reads OPENAI_API_KEY and OPENAI_BASE_URL from the
	// environment.
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if o.APIKey != "" {
		opts = append(opts, option.WithAPIKey(o.APIKey))
	}
	limit := o.MaxResponseBytes
	if limit <= 0 {
		limit = provider.DefaultMaxResponseBytes
	}
	return &client{
		limit:       limit,
		completions: sdk.NewChatCompletionService(opts...),
		compatible:  strings.TrimRight(base, "/") != strings.TrimRight(DefaultBaseURL, "/"),
	}
}

func (c *client) Stream(ctx context.Context, req provider.Request, cb provider.Callbacks) (provider.Response, error) {
	params, body, err := c.requestBody(req)
	if err != nil {
		return provider.Response{}, fmt.Errorf("openai: %w", err)
	}
	guard := provider.NewGuard(c.limit)
	// The SDK encodes params, which lack the messages; the body sent is
	// ours (see body.go).
	stream := c.completions.NewStreaming(ctx, params, option.WithMiddleware(
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
			return provider.Response{}, fmt.Errorf("openai: %w", err)
		}
	}
	if err := stream.Err(); err != nil {
		return provider.Response{}, provider.Escaped(convertError(ctx, err, acc.started))
	}
	if acc.finish == "" && guard.SawDone() {
		// Some compatible servers end with [DONE] and never send a
		// finish reason; the message is whole all the same.
		acc.finish = "stop"
		if len(acc.calls) > 0 {
			acc.finish = "tool_calls"
		}
	}
	resp, err := acc.response()
	if err != nil {
		return provider.Response{}, fmt.Errorf("openai: %w", err)
	}
	return resp, nil
}

// accumulator rebuilds the message from chunks. Tool calls are keyed by
// their index; a server that reuses an index for a call with a new id
// (some local servers do) gets a new call.
type accumulator struct {
	budget  provider.Budget
	started bool
	text    strings.Builder
	calls   []*call
	byIdx   map[int64]*call
	usage   chat.Usage
	finish  string
}

type call struct {
	id, name string
	args     strings.Builder
}

func (a *accumulator) add(ch sdk.ChatCompletionChunk, onText func(string)) error {
	a.started = true
	if ch.JSON.Usage.Valid() {
		u := ch.Usage
		cached := u.PromptTokensDetails.CachedTokens
		// chat.Usage counts cached input apart from fresh input, as
		// Anthropic does; OpenAI's prompt_tokens includes the cached ones.
		a.usage = chat.Usage{
			InputTokens:     u.PromptTokens - cached,
			OutputTokens:    u.CompletionTokens,
			CacheReadTokens: cached,
		}
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue
		}
		d := choice.Delta
		if err := a.budget.Take(len(d.Content)); err != nil {
			return err
		}
		if d.Content != "" {
			a.text.WriteString(d.Content)
			if onText != nil {
				onText(d.Content)
			}
		}
		for _, tc := range d.ToolCalls {
			c := a.byIdx[tc.Index]
			if c == nil || (tc.ID != "" && c.id != "" && tc.ID != c.id) {
				c = &call{}
				if a.byIdx == nil {
					a.byIdx = map[int64]*call{}
				}
				a.byIdx[tc.Index] = c
				a.calls = append(a.calls, c)
			}
			if tc.ID != "" {
				c.id = tc.ID
			}
			if tc.Function.Name != "" {
				c.name = tc.Function.Name
			}
			if err := a.budget.Take(len(tc.Function.Arguments)); err != nil {
				return err
			}
			c.args.WriteString(tc.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
		}
	}
	return nil
}

func (a *accumulator) response() (provider.Response, error) {
	if a.finish == "" {
		return provider.Response{}, provider.ErrStreamCut
	}
	var resp provider.Response
	msg := chat.Message{Role: chat.Assistant, Content: []chat.Block{}}
	if a.text.Len() > 0 {
		msg.Content = append(msg.Content, chat.Block{Type: chat.Text, Text: a.text.String()})
	}
	for _, c := range a.calls {
		args := strings.TrimSpace(c.args.String())
		if args == "" {
			args = "{}"
		}
		id := c.id
		if id == "" {
			id = newCallID()
		}
		why := provider.CheckArguments(args, a.finish == "length")
		if c.name == "" {
			why = "the call names no tool"
		}
		if why != "" {
			if resp.Malformed == nil {
				resp.Malformed = map[string]string{}
			}
			resp.Malformed[id] = why
			args = "{}"
		}
		msg.Content = append(msg.Content, chat.Block{Type: chat.ToolUse, ID: id, Name: c.name, Input: json.RawMessage(args)})
	}
	resp.Message, resp.Usage, resp.StopReason = msg, a.usage, stopReason(a.finish)
	return resp, nil
}

// stopReason maps finish_reason onto the Anthropic words wisp uses
// everywhere, so the loop reads one vocabulary whatever the provider.
func stopReason(finish string) string {
	switch finish {
	case "stop":
		return "end_turn"
	case "tool_calls", "function_call":
		return "tool_use"
	case "length":
		return "max_tokens"
	case "content_filter":
		return "refusal"
	default:
		return finish
	}
}

func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

func convertError(ctx context.Context, err error, started bool) error {
	var se *ssestream.StreamError
	switch {
	case errors.As(err, new(*provider.APIError)) || provider.IsBoundError(err):
		return fmt.Errorf("openai: %w", err)
	case errors.As(err, &se):
		// An error inside a 200 stream: the server gave up mid-message.
		return fmt.Errorf("openai: %s: %w", provider.Escape(se.Message), provider.ErrStreamCut)
	case started && ctx.Err() == nil:
		return fmt.Errorf("openai: %w: %w", provider.ErrStreamCut, err)
	}
	return fmt.Errorf("openai: %w", err)
}
