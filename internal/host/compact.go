package host

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/host/compaction"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// ContextReserve is the room, in tokens, kept free below a model's
// context window: once a request's input passes the window minus this
// (or minus a quarter of the window, for a window under 64K tokens), the
// conversation is compacted before the next request. It covers the next
// answer and the tool results that follow it.
const ContextReserve = 16384

// summaryMark starts the text block that holds a summary.
const summaryMark = compaction.SummaryMark

// summarySystem is what the model is told when it is asked for a summary.
const summarySystem = compaction.System

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
	return s.conf.ContextWindow
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
	keep := compaction.KeepBytes
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

func keptTurn(msgs []chat.Message, budget int) ([]chat.Message, bool) {
	return compaction.KeptTurn(msgs, budget)
}

func startsTurn(m chat.Message) bool { return compaction.StartsTurn(m) }

func withSummary(summary string, kept []chat.Message) []chat.Message {
	return compaction.WithSummary(summary, kept)
}

func digest(msgs []chat.Message, budget int) string { return compaction.Digest(msgs, budget) }

func renderMessage(m chat.Message) string { return compaction.RenderMessage(m) }

// summarise asks the model, in one request without tools, for a summary
// of msgs. When that request is refused as too long, it asks once more
// with a quarter of the conversation's text.
func (s *Session) summarise(ctx context.Context, msgs []chat.Message, instructions string, window int) (string, error) {
	budget := compaction.Budget(window, ContextReserve)
	maxTokens := s.conf.MaxTokens
	var last error
	for range 2 {
		ask := compaction.Ask(msgs, instructions, budget)
		resp, err := s.prov.Stream(ctx, provider.Request{Model: s.choice.Model, System: summarySystem,
			Messages: []chat.Message{chat.UserText(ask)}, MaxTokens: min(maxTokens, compaction.SummaryTokens)}, provider.Callbacks{})
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
