package tui

import (
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
)

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryNote
	entryError
)

// entry is one block of the conversation: a prompt, an answer, a tool
// call, or a note of wisp's own. Its lines are kept for the width they
// were drawn at, so that a long session costs a redraw only of what
// changed.
type entry struct {
	kind entryKind
	text strings.Builder
	// streaming: the answer is still arriving, drawn as plain text; it
	// is drawn as markdown once complete.
	streaming bool
	card      *card

	cacheWidth int
	cacheKey   bool // the expanded state the cache was drawn with
	cache      []string
	// While an answer streams, its complete lines are drawn as markdown
	// once per new line (headLen bytes of it, at headWidth), and the
	// line still arriving as plain text.
	headLen, headWidth int
	head               []string
}

func (e *entry) invalidate() { e.cache = nil }

// live says the entry changes with the clock (a running call).
func (e *entry) live() bool { return e.card != nil && e.card.running }

// lines draws the entry, from its cache when nothing changed.
func (e *entry) lines(width int, st *styles, expanded bool, frame string, now time.Time) []string {
	if e.cache != nil && e.cacheWidth == width && e.cacheKey == expanded && !e.live() {
		return e.cache
	}
	var out []string
	switch e.kind {
	case entryUser:
		out = render.Prefixed(render.Wrap(render.Clean(e.text.String()), max(1, width-2)), st.userMark.Render("› "), "  ")
		for i := range out {
			out[i] = st.user.Render(out[i])
		}
	case entryAssistant:
		if e.streaming {
			out = e.streamingLines(width, st)
		} else {
			out = render.Markdown(render.Clean(e.text.String()), width, &st.text)
		}
	case entryTool:
		out = e.card.render(width, st, expanded, frame, now)
	case entryNote:
		out = render.StyleAll(render.Wrap(render.Clean(e.text.String()), width), st.faint)
	case entryError:
		out = render.StyleAll(render.Wrap(render.Clean(e.text.String()), width), st.err)
	}
	out = append(out, "")
	e.cache, e.cacheWidth, e.cacheKey = out, width, expanded
	return out
}

// streamingLines draws an answer that is still arriving: markdown for
// its complete lines, redrawn only when a line is completed, and the
// line being written as it is.
func (e *entry) streamingLines(width int, st *styles) []string {
	text := e.text.String()
	cut := strings.LastIndexByte(text, '\n') + 1
	if cut != e.headLen || width != e.headWidth {
		e.head = nil
		if cut > 0 {
			e.head = render.Markdown(render.Clean(text[:cut]), width, &st.text)
		}
		e.headLen, e.headWidth = cut, width
	}
	out := append([]string(nil), e.head...)
	if tail := text[cut:]; tail != "" {
		out = append(out, render.Wrap(render.Clean(tail), width)...)
	}
	return out
}

// conversation is every entry of the session, oldest first, and the
// calls by id.
type conversation struct {
	entries []*entry
	calls   map[string]*entry
}

func newConversation() conversation { return conversation{calls: map[string]*entry{}} }

func (c *conversation) add(kind entryKind, text string) *entry {
	e := &entry{kind: kind}
	e.text.WriteString(text)
	c.entries = append(c.entries, e)
	return e
}

// last is the newest entry, nil when there is none.
func (c *conversation) last() *entry {
	if len(c.entries) == 0 {
		return nil
	}
	return c.entries[len(c.entries)-1]
}

// streamingAnswer is the answer being written, made when the first
// piece arrives.
func (c *conversation) streamingAnswer() *entry {
	if l := c.last(); l != nil && l.kind == entryAssistant && l.streaming {
		return l
	}
	e := c.add(entryAssistant, "")
	e.streaming = true
	return e
}

// endAnswer draws the answer being written as markdown; an answer with
// no text (only tool calls) goes.
func (c *conversation) endAnswer() {
	l := c.last()
	if l == nil || l.kind != entryAssistant || !l.streaming {
		return
	}
	l.streaming = false
	l.invalidate()
	if strings.TrimSpace(l.text.String()) == "" {
		c.entries = c.entries[:len(c.entries)-1]
	}
}

// call is the card of a call, made when it is first heard of.
func (c *conversation) call(id, tool string) *card {
	if e, ok := c.calls[id]; ok && id != "" {
		e.invalidate()
		return e.card
	}
	c.endAnswer()
	e := &entry{kind: entryTool, card: &card{id: id, tool: tool}}
	c.entries = append(c.entries, e)
	if id != "" {
		c.calls[id] = e
	}
	return e.card
}

// known is the card of a call already shown, nil for another (a
// question about a !command, which has its own card).
func (c *conversation) known(id string) *card {
	e, ok := c.calls[id]
	if !ok || id == "" {
		return nil
	}
	e.invalidate()
	return e.card
}

// invalidateAll forgets every entry's drawing (a new width, expanded
// output).
func (c *conversation) invalidateAll() {
	for _, e := range c.entries {
		e.invalidate()
	}
}

// tail is the last n lines of the conversation once skip lines from the
// bottom are left out; total is how many lines the conversation has
// when the walk reached its top, -1 when it did not need to.
func (c *conversation) tail(n, skip, width int, st *styles, expanded bool, frame string, now time.Time) (lines []string, total int) {
	need := n + skip
	var rev [][]string
	got := 0
	i := len(c.entries) - 1
	for ; i >= 0 && got < need; i-- {
		l := c.entries[i].lines(width, st, expanded, frame, now)
		rev = append(rev, l)
		got += len(l)
	}
	total = -1
	if i < 0 {
		total = got
	}
	all := make([]string, 0, got)
	for j := len(rev) - 1; j >= 0; j-- {
		all = append(all, rev[j]...)
	}
	end := max(0, len(all)-skip)
	start := max(0, end-n)
	return all[start:end], total
}

// loadMessages fills the conversation with a saved session's messages,
// its calls shown as cards with their results.
func (c *conversation) loadMessages(msgs []chat.Message, classOf func(tool string) string) {
	for _, m := range msgs {
		switch m.Role {
		case chat.User:
			for _, b := range m.Content {
				switch b.Type {
				case chat.Text:
					if strings.TrimSpace(b.Text) != "" {
						c.add(entryUser, b.Text)
					}
				case chat.ToolResult:
					if e, ok := c.calls[b.ToolUseID]; ok {
						e.card.done, e.card.result, e.card.isError = true, b.Text, b.IsError
						e.card.mark = "✓"
						if b.IsError {
							e.card.mark = "✗"
						}
					}
				}
			}
		case chat.Assistant:
			for _, b := range m.Content {
				switch b.Type {
				case chat.Text:
					if strings.TrimSpace(b.Text) != "" {
						c.add(entryAssistant, b.Text)
					}
				case chat.ToolUse:
					cd := c.call(b.ID, b.Name)
					cd.args, cd.class = string(b.Input), classOf(b.Name)
				}
			}
		}
	}
}
