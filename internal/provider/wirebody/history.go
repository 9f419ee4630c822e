package wirebody

import (
	"bytes"
	"sync"

	"github.com/wisp-agent/wisp/internal/chat"
)

// History remembers how each message of the previous request was encoded,
// by position, so that a conversation growing by a few messages a turn is
// not encoded whole again every turn. A remembered encoding is reused only
// for a message equal to the one it was made from, field by field, so an
// edited, repaired or compacted history is encoded afresh. The zero value
// is ready to use and safe for concurrent requests.
type History struct {
	mu   sync.Mutex
	seen []remembered
}

type remembered struct {
	msg chat.Message
	enc []byte
}

// Encoder appends the encoding of m to dst; last says that m is the
// message whose encoding depends on being the last one (a cache
// breakpoint, for instance). An encoding may be empty: nothing is sent.
type Encoder func(dst []byte, m chat.Message, last bool) ([]byte, error)

// Encode returns the encoding of each message, made by encode or reused
// from the previous call. The message at index fresh (-1 for none) is
// always encoded again and not remembered.
func (h *History) Encode(msgs []chat.Message, fresh int, encode Encoder) ([][]byte, error) {
	h.mu.Lock()
	seen := h.seen
	h.mu.Unlock()
	out := make([][]byte, len(msgs))
	next := make([]remembered, len(msgs))
	for i, m := range msgs {
		if i != fresh && i < len(seen) && seen[i].enc != nil && sameMessage(seen[i].msg, m) {
			out[i], next[i] = seen[i].enc, seen[i]
			continue
		}
		enc, err := encode(make([]byte, 0, estimate(m)), m, i == fresh)
		if err != nil {
			return nil, err
		}
		// Capped, so that no later append can write over a remembered one.
		enc = enc[:len(enc):len(enc)]
		out[i] = enc
		if i != fresh {
			next[i] = remembered{msg: keep(m), enc: enc}
		}
	}
	h.mu.Lock()
	h.seen = next
	h.mu.Unlock()
	return out, nil
}

// estimate is a generous size for the encoding of m: every field may grow
// by escaping (tool inputs the most, when sent as a string).
func estimate(m chat.Message) int {
	n := 64
	for _, b := range m.Content {
		n += 128 + len(b.Text) + len(b.ID) + len(b.Name) + 2*len(b.Input) + len(b.ToolUseID)
	}
	return n + n/8
}

// keep copies what a caller could change in place after the call: the
// block list and each tool input. Strings cannot change, so they are
// shared, which also makes the comparison next time a pointer check.
func keep(m chat.Message) chat.Message {
	blocks := make([]chat.Block, len(m.Content))
	for i, b := range m.Content {
		if b.Input != nil {
			b.Input = bytes.Clone(b.Input)
		}
		blocks[i] = b
	}
	return chat.Message{Role: m.Role, Content: blocks}
}

func sameMessage(a, b chat.Message) bool {
	if a.Role != b.Role || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		x, y := a.Content[i], b.Content[i]
		if x.Type != y.Type || x.Text != y.Text || x.ID != y.ID || x.Name != y.Name ||
			x.ToolUseID != y.ToolUseID || x.IsError != y.IsError ||
			!bytes.Equal(x.Input, y.Input) || (x.Input == nil) != (y.Input == nil) {
			return false
		}
	}
	return true
}
