package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// ContextReserve is the room, in tokens, kept free below a model's
// context window: once a request's input passes the window minus this
// (or minus a quarter of the window, for a window under 64K tokens), the
// conversation is compacted before the next request. It covers the next
// answer and the tool results that follow it.
const ContextReserve = 16384

// Bounds of a compaction, in bytes of text.
const (
	// summaryTokens bounds the summary the model writes.
	summaryTokens = 8192
	// keepBytes is how much of the latest turn is kept verbatim when the
	// model's window is unknown; with a known window, a quarter of it.
	keepBytes = 32 << 10
	// digestBytes bounds the conversation sent to be summarised when the
	// window is unknown; with a known window, what fits in it.
	digestBytes = 256 << 10
	// resultBytes and argsBytes bound each tool result and each call's
	// arguments in that text; the summary needs their gist only.
	resultBytes = 2 << 10
	argsBytes   = 1 << 10
	// textBytes bounds any other block.
	textBytes = 8 << 10
)

// summaryMark starts the text block that holds a summary, so that a later
// compaction can tell it from a prompt.
const summaryMark = "[wisp: summary of the conversation so far]"

var (
	// ErrCompactBusy is returned by Compact while a run is live;
	// errors.Is(err, ErrBusy) holds too.
	ErrCompactBusy error = compactBusy{}
	// ErrNothingToCompact is returned when the conversation holds no
	// more than the latest prompt.
	ErrNothingToCompact = errors.New("nothing to compact yet: the conversation holds no more than the latest prompt")
)

type compactBusy struct{}

func (compactBusy) Error() string {
	return "a run is in progress: compact once it ends, or cancel it first"
}
func (compactBusy) Is(target error) bool { return target == ErrBusy }

// Compact replaces the conversation with a summary made by the model
// (goal, decisions, files touched, open tasks, errors seen; instructions,
// when given, are added to what the model is asked) followed by the
// latest user turn verbatim, and writes it to the transcript as a
// checkpoint that a resumed session starts from. The history before it
// stays in the transcript. It is refused with ErrCompactBusy while a run
// is live; Cancel stops it.
func (s *Session) Compact(ctx context.Context, instructions string) error {
	r := &s.run
	r.mu.Lock()
	if r.live {
		r.mu.Unlock()
		return ErrCompactBusy
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The compaction holds the session as a run does: no prompt starts
	// meanwhile, and Cancel reaches it.
	r.live, r.cancel, r.compacting = true, cancel, true
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.live, r.cancel, r.compacting = false, nil, false
		r.mu.Unlock()
	}()
	return s.agent.Compact(cctx, agent.CompactManual, instructions)
}

// contextWindow is the model's window in tokens: settings.json's
// context_window, else the table's; 0 when neither knows it.
func (s *Session) contextWindow() int {
	if n := s.cfg.Settings.ContextWindow; n > 0 {
		return n
	}
	return provider.ContextWindowFor(s.choice.Model)
}

// compactAt is the input size past which a session with this window is
// compacted before its next request; 0 (never by size) for an unknown
// window.
func compactAt(window int) int64 {
	if window <= 0 {
		return 0
	}
	return int64(window - min(ContextReserve, window/4))
}

// compact is the agent's Options.Compact: it asks the model for a summary
// of the conversation, writes the checkpoint and returns the conversation
// to go on with. A failed automatic compaction is only a warning: the run
// goes on with the conversation as it was, which still fits.
func (s *Session) compact(ctx context.Context, c agent.Compaction) ([]chat.Message, error) {
	msgs, err := s.compactNow(ctx, c)
	if err != nil && c.Reason == agent.CompactAuto && ctx.Err() == nil {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: the conversation is near the model's context window but could not be compacted: %s\n", transcript.Escape(err.Error()))
	}
	return msgs, err
}

func (s *Session) compactNow(ctx context.Context, c agent.Compaction) ([]chat.Message, error) {
	window := s.contextWindow()
	keep := keepBytes
	if window > 0 {
		keep = window // a quarter of the window, at about 4 bytes a token
	}
	kept, ok := keptTurn(c.Messages, keep)
	if !ok {
		return nil, ErrNothingToCompact
	}
	summary, err := s.summarise(ctx, c.Messages, c.Instructions, window)
	if err != nil {
		return nil, fmt.Errorf("compact the conversation: %w", err)
	}
	msgs := withSummary(summary, kept)
	replaced := len(c.Messages) - len(kept)
	if err := s.writeCheckpoint(transcript.Checkpoint{Summary: summary, Messages: msgs, Reason: string(c.Reason),
		Replaced: replaced, InputTokens: c.LastInput}); err != nil {
		return nil, err
	}
	what := "the latest turn kept as it was"
	if len(kept) == 1 {
		what = "the latest prompt kept as it was"
	}
	why := map[agent.CompactReason]string{
		agent.CompactManual:   "as asked",
		agent.CompactAuto:     fmt.Sprintf("the last request used %d of the model's %d tokens", c.LastInput, window),
		agent.CompactOverflow: "the provider refused the conversation as too long; retrying once",
	}[c.Reason]
	fmt.Fprintf(s.sys.Stderr, "wisp: compacted the conversation (%s): %d messages summarised, %s\n", why, replaced, what)
	return msgs, nil
}

// writeCheckpoint appends the checkpoint to the transcript (none is kept
// with --no-session). A failed write fails the transcript as any other.
func (s *Session) writeCheckpoint(cp transcript.Checkpoint) error {
	if s.session == nil {
		return nil
	}
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	if s.transcriptErr != nil {
		return fmt.Errorf("compact the conversation: the transcript cannot be written: %w", s.transcriptErr)
	}
	if _, err := s.session.Append(transcript.Record{Type: transcript.TypeCheckpoint, Checkpoint: &cp}); err != nil {
		s.failTranscript(err)
		return fmt.Errorf("compact the conversation: %w", err)
	}
	return nil
}

// keptTurn is what a compaction keeps verbatim: the latest user turn,
// from its prompt on, when it is smaller than budget bytes and is not the
// whole conversation; else that prompt alone. A prompt is a user message
// with text and no tool results, so the cut before it never separates a
// call from its result, and every call after it has its result after it
// too. ok is false when there is nothing to summarise.
func keptTurn(msgs []chat.Message, budget int) (kept []chat.Message, ok bool) {
	p := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if startsTurn(msgs[i]) {
			p = i
			break
		}
	}
	if p < 0 {
		return nil, len(msgs) > 0
	}
	prompt := chat.Message{Role: chat.User}
	for _, b := range msgs[p].Content {
		if b.Type == chat.Text && !strings.HasPrefix(b.Text, summaryMark) {
			prompt.Content = append(prompt.Content, b)
		}
	}
	turn := append([]chat.Message{prompt}, msgs[p+1:]...)
	if p > 0 && conversationBytes(turn) <= budget {
		return turn, true
	}
	if len(msgs) == 1 && len(prompt.Content) == len(msgs[0].Content) {
		return nil, false
	}
	return []chat.Message{prompt}, true
}

// startsTurn says whether m is a prompt: a user message with text of its
// own (not only an earlier summary) and no tool results.
func startsTurn(m chat.Message) bool {
	if m.Role != chat.User {
		return false
	}
	text := false
	for _, b := range m.Content {
		switch {
		case b.Type == chat.ToolResult:
			return false
		case b.Type == chat.Text && b.Text != "" && !strings.HasPrefix(b.Text, summaryMark):
			text = true
		}
	}
	return text
}

// conversationBytes is the bytes of text a conversation holds.
func conversationBytes(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		for _, b := range m.Content {
			n += len(b.Text) + len(b.Input)
		}
	}
	return n
}

// withSummary is the conversation a compaction leaves: the summary, then
// the kept turn, whose prompt joins the summary's user message (the wire
// formats want roles to alternate).
func withSummary(summary string, kept []chat.Message) []chat.Message {
	text := summaryMark + "\nThe conversation before this point was compacted into this summary; the turn after it is kept as it was.\n\n" + summary
	first := chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.Text, Text: text}}}
	if len(kept) == 0 {
		return []chat.Message{first}
	}
	first.Content = append(first.Content, kept[0].Content...)
	return append([]chat.Message{first}, kept[1:]...)
}

// summarySystem is what the model is told when it is asked for a summary.
const summarySystem = "You summarise the conversation of a coding agent with a person, so that the agent can go on with the work from your summary alone, without the conversation. Be exact and brief: keep paths, names, commands, numbers and error messages as they were; leave out pleasantries and anything already resolved that does not matter for what comes next."

// summaryAsk is the request for a summary, before the conversation.
const summaryAsk = `Summarise the conversation below under these headings, in this order:

## Goal
What the person wants done, in their terms.
## Decisions
What was decided or agreed, and why.
## Files touched
Each file read, created or changed, with its path and what was done or learned there.
## Open tasks
What is left to do, the next step first.
## Errors seen
Errors and failed commands, with their messages, and whether they are fixed.

Write "none" under a heading with nothing to say. Answer with the summary only.`

// summarise asks the model, in one request without tools, for a summary
// of msgs. When that request is refused as too long, it asks once more
// with a quarter of the conversation's text.
func (s *Session) summarise(ctx context.Context, msgs []chat.Message, instructions string, window int) (string, error) {
	budget := digestBytes
	if window > 0 {
		// About 3 bytes a token, leaving the reserve and the summary free.
		budget = max(16<<10, 3*(window-min(ContextReserve, window/4)-summaryTokens))
	}
	maxTokens := s.cfg.Settings.MaxTokens
	if maxTokens <= 0 {
		maxTokens = provider.MaxTokensFor(s.choice.Model)
	}
	var last error
	for range 2 {
		ask := summaryAsk
		if strings.TrimSpace(instructions) != "" {
			ask += "\n\nAlso: " + strings.TrimSpace(instructions)
		}
		ask += "\n\n<conversation>\n" + digest(msgs, budget) + "</conversation>"
		resp, err := s.prov.Stream(ctx, provider.Request{Model: s.choice.Model, System: summarySystem,
			Messages: []chat.Message{chat.UserText(ask)}, MaxTokens: min(maxTokens, summaryTokens)}, provider.Callbacks{})
		if err != nil {
			last = err
			if ctx.Err() != nil || !agent.IsOverflow(err) {
				return "", err
			}
			budget /= 4
			continue
		}
		// The summary's tokens are spent like any answer's: the audit
		// counts them.
		u := resp.Usage
		s.gate.Audit(0, "", audit.Response{Model: s.choice.Model, StopReason: resp.StopReason,
			InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens})
		summary := strings.TrimSpace(resp.Message.TextOf())
		if summary == "" {
			return "", errors.New("the model answered with an empty summary")
		}
		return summary, nil
	}
	return "", last
}

// digest renders a conversation as plain text for the summary request,
// each block cut to its bound; when the whole is over budget bytes, the
// oldest messages are left out (an earlier summary at the start is kept)
// and a line says how many. Plain text rather than the messages
// themselves: a request with tool calls but no tools is refused by some
// providers, and the bounds keep the request inside the window.
func digest(msgs []chat.Message, budget int) string {
	parts := make([]string, len(msgs))
	total := 0
	for i, m := range msgs {
		parts[i] = renderMessage(m)
		total += len(parts[i])
	}
	first := 0
	if len(msgs) > 0 && len(msgs[0].Content) > 0 && strings.HasPrefix(msgs[0].Content[0].Text, summaryMark) {
		first = 1 // the earlier summary stands for everything before it
	}
	drop := first
	for total > budget && drop < len(parts)-1 {
		total -= len(parts[drop])
		drop++
	}
	var b strings.Builder
	b.WriteString(strings.Join(parts[:first], ""))
	if n := drop - first; n > 0 {
		fmt.Fprintf(&b, "[%d earlier messages left out to fit]\n\n", n)
	}
	b.WriteString(strings.Join(parts[drop:], ""))
	return b.String()
}

func renderMessage(m chat.Message) string {
	var b strings.Builder
	for _, bl := range m.Content {
		switch {
		case bl.Type == chat.Text && strings.HasPrefix(bl.Text, summaryMark):
			fmt.Fprintf(&b, "[earlier summary]\n%s\n\n", clipText(bl.Text, textBytes*4))
		case bl.Type == chat.Text:
			fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, clipText(bl.Text, textBytes))
		case bl.Type == chat.ToolUse:
			fmt.Fprintf(&b, "[tool call %s] %s\n\n", bl.Name, clipText(string(bl.Input), argsBytes))
		case bl.Type == chat.ToolResult:
			label := "tool result"
			if bl.IsError {
				label = "tool error"
			}
			fmt.Fprintf(&b, "[%s]\n%s\n\n", label, clipText(bl.Text, resultBytes))
		}
	}
	return b.String()
}

// clipText keeps the start and the end of s within n bytes, on rune
// boundaries, marking the cut: a result's end often holds its error.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	cut := len(s) - tail
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("%s\n[… %d bytes left out …]\n%s", s[:head], cut-head, s[cut:])
}
