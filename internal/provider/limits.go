package provider

import (
	"fmt"
	"strings"
)

// DefaultMaxTokens bounds a reply when neither the settings nor the model
// table say otherwise. Every request carries a bound: a server left to
// choose may stream until its own context is full.
const DefaultMaxTokens = 32000

// DefaultMaxResponseBytes is the client-side bound on one response: the
// text and tool-call arguments wisp keeps in memory while a message
// streams. A response that passes it is stopped, never stored.
const DefaultMaxResponseBytes = 8 << 20

// wireFactor is how much larger than the response bound the raw stream may
// grow. Framing costs a streamed token 100 to 250 bytes on the wire, so a
// legitimate reply stays far below it; a server that streams pings or
// empty chunks forever does not.
const wireFactor = 16

// eventSlack is what one stream event may add to the response bound for
// its own framing (the JSON around a delta, the event line).
const eventSlack = 64 << 10

// knownOutputLimits are the most tokens some models may write in one
// reply. Only limits below DefaultMaxTokens change the default; the
// larger entries are here so that a longer name is not taken for a
// shorter one that allows less (gpt-4o is not gpt-4).
var knownOutputLimits = map[string]int{
	"claude-3-haiku":    4096,
	"claude-3-sonnet":   4096,
	"claude-3-opus":     4096,
	"claude-3-5-haiku":  8192,
	"claude-3-5-sonnet": 8192,
	"claude-3-7-sonnet": 64000,
	"claude-sonnet-4":   64000,
	"claude-opus-4":     32000,
	"claude-haiku-4":    64000,
	"gpt-3.5-turbo":     4096,
	"gpt-4":             8192,
	"gpt-4-turbo":       4096,
	"gpt-4-0125":        4096,
	"gpt-4-1106":        4096,
	"gpt-4o":            16384,
	"chatgpt-4o":        16384,
	"gpt-4.1":           32768,
	"gpt-4.5":           16384,
	"gpt-5":             128000,
	"o1":                100000,
	"o1-mini":           65536,
	"o3":                100000,
	"o4-mini":           100000,
}

// MaxTokensFor is the reply bound for a model when the settings do not
// set one: DefaultMaxTokens, or the model's own limit when it is known to
// be lower. A name is matched by its longest known prefix, after any
// router prefix such as "openai/".
func MaxTokensFor(model string) int {
	limit, ok := lookup(knownOutputLimits, model)
	if !ok {
		return DefaultMaxTokens
	}
	return min(limit, DefaultMaxTokens)
}

// knownContextWindows are the most input tokens some models read in one
// request (the prompt, tools and conversation). Claude models have read
// 200,000 since Claude 3, so "claude" covers the ones named later.
var knownContextWindows = map[string]int{
	"claude":        200000,
	"gpt-3.5-turbo": 16385,
	"gpt-4":         8192,
	"gpt-4-32k":     32768,
	"gpt-4-turbo":   128000,
	"gpt-4-0125":    128000,
	"gpt-4-1106":    128000,
	"gpt-4o":        128000,
	"chatgpt-4o":    128000,
	"gpt-4.1":       1047576,
	"gpt-4.5":       128000,
	"gpt-5":         272000,
	"o1":            200000,
	"o1-mini":       128000,
	"o3":            200000,
	"o4-mini":       200000,
}

// ContextWindowFor is a model's context window in tokens, matched as
// MaxTokensFor matches; 0 when the model is not known.
func ContextWindowFor(model string) int {
	n, _ := lookup(knownContextWindows, model)
	return n
}

// lookup finds a model in a table by its longest known prefix, after any
// router prefix such as "openai/".
func lookup(table map[string]int, model string) (int, bool) {
	name := strings.ToLower(model)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	best, found, ok := "", 0, false
	for prefix, n := range table {
		if len(prefix) <= len(best) || !strings.HasPrefix(name, prefix) {
			continue
		}
		// A prefix must end at a word boundary: o1 names o1-preview, not o100.
		if rest := name[len(prefix):]; rest != "" && !strings.ContainsRune("-_.:@", rune(rest[0])) {
			continue
		}
		best, found, ok = prefix, n, true
	}
	return found, ok
}

// ResponseTooLargeError ends a response that passed the client-side bound.
// It is not retried: asking again would most likely end the same way.
type ResponseTooLargeError struct {
	// Limit is the bound that was passed, in bytes.
	Limit int64
	// What names what grew too large.
	What string
}

func (e *ResponseTooLargeError) Error() string {
	return fmt.Sprintf("response exceeded %s of %s; stopped reading (raise max_response_bytes in settings.json to allow more)", FormatBytes(e.Limit), e.What)
}

// FormatBytes shows a size the way a person writes it: 8 MiB, 64 KiB,
// 1500 bytes.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Budget counts the text and tool arguments of one response against the
// bound. The zero value allows DefaultMaxResponseBytes.
type Budget struct {
	Limit int64
	used  int64
}

// Take accounts for n more bytes, or fails once the bound is passed.
func (b *Budget) Take(n int) error {
	limit := b.Limit
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	b.used += int64(n)
	if b.used > limit {
		return &ResponseTooLargeError{Limit: limit, What: "text and tool arguments"}
	}
	return nil
}
