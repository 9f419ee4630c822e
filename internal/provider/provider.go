// Package provider defines the one interface every model API sits behind.
// Subpackages adapt the official SDKs (anthropic, openai) and serve a
// scripted fake of both wire formats (fake). SDK types never leave a
// provider package.
package provider

import (
	"context"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
)

// Request is one model call.
type Request struct {
	Model    string
	System   string
	Messages []chat.Message
	Tools    []chat.ToolSpec
	// MaxTokens bounds the reply; 0 means MaxTokensFor(Model).
	MaxTokens int
}

// Response is a complete assistant message.
type Response struct {
	Message    chat.Message
	Usage      chat.Usage
	StopReason string
	// Malformed maps the id of each tool call whose arguments arrived
	// complete but unusable (not a JSON object, or cut by the token limit)
	// to what was wrong with them. Such a call's Input is {} so that the
	// message stays sendable; the loop answers it with an error instead
	// of running it, and the model can try again.
	Malformed map[string]string
}

// Callbacks let the loop follow a call while it streams.
type Callbacks struct {
	// Text receives each text delta as it arrives.
	Text func(delta string)
	// Retry is told before each retry: which attempt comes next (2 for the first retry), how long
	// the wait is and what failed.
	Retry func(attempt int, delay time.Duration, cause error)
}

// Provider streams one assistant message. A stream that ends early is an
// error, never a partial message: a half-received tool call must not run.
type Provider interface {
	Stream(ctx context.Context, req Request, cb Callbacks) (Response, error)
}
