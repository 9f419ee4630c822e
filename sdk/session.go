package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/host"
)

// The conversation's types, as wisp's core uses them.
type (
	// Message is one message of the conversation.
	Message = chat.Message
	// Role says who wrote a message.
	Role = chat.Role
	// Block is one piece of a message: text, a tool call, or its result.
	Block = chat.Block
	// BlockType says which.
	BlockType = chat.BlockType
	// Usage counts the tokens requests used.
	Usage = chat.Usage
	// Queue is what waits for the live run: steering messages, then
	// follow-ups.
	Queue = host.Queue
)

// The roles and the kinds of blocks.
const (
	RoleUser        = chat.User
	RoleAssistant   = chat.Assistant
	BlockText       = chat.Text
	BlockToolUse    = chat.ToolUse
	BlockToolResult = chat.ToolResult
)

// The errors of Prompt, Steer and FollowUp.
var (
	// ErrBusy: Prompt while a run is live (Steer or FollowUp reach it).
	ErrBusy = host.ErrBusy
	// ErrIdle: Steer or FollowUp while no run is live.
	ErrIdle = host.ErrIdle
	// ErrQueueFull: MaxQueued messages wait already.
	ErrQueueFull = host.ErrQueueFull
	// ErrNothingToCompact: Compact with no more than the latest prompt.
	ErrNothingToCompact = host.ErrNothingToCompact
	// ErrClosed: the session is closed.
	ErrClosed = errors.New("the session is closed")
)

// MaxQueued bounds the steering and follow-up messages waiting at once.
const MaxQueued = host.MaxQueued

// Session is one conversation with a model, its tools behind wisp's gate.
// Its methods may be called from any goroutine; one run is live at a
// time.
type Session struct {
	core *host.Session
	// home is the private wisp home Close removes ("" when Options.Home
	// named one).
	home   string
	feed   *feed
	feedMu sync.Mutex
	closed bool
	mu     sync.Mutex
	// runs are the Prompt and Compact calls in flight, which Close
	// cancels (through life) and waits for.
	runs sync.WaitGroup
	life context.Context
	end  context.CancelFunc
}

// Result is how a prompt's run ended.
type Result struct {
	// Text is the last answer's text.
	Text string
	// Message is the last answer.
	Message Message
	// Usage is the tokens this prompt's requests used, follow-ups
	// included.
	Usage Usage
	// SessionID names the transcript (Options.Resume takes it).
	SessionID string
}

// NewSession wires a session: configuration from the wisp home, the
// project (read only with Trust), the tools, the gate and its audit, the
// provider and the transcript. Close releases it.
func NewSession(ctx context.Context, o Options) (*Session, error) {
	wd, err := o.workdir()
	if err != nil {
		return nil, err
	}
	api := &ExtensionAPI{}
	if o.Extensions != nil {
		if err := o.Extensions(api); err != nil {
			return nil, fmt.Errorf("extension setup: %w", err)
		}
	}
	s := &Session{}
	s.life, s.end = context.WithCancel(context.Background())
	home := o.Home
	if home == "" {
		if home, err = privateHome(); err != nil {
			return nil, err
		}
		s.home = home
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	self, missing := helper()
	sys := host.IO{
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr, Getenv: o.environment(home),
		Workdir: wd, Self: self, NoHelper: missing, Extensions: api.exts,
	}
	fe := host.Frontend{Mode: "sdk", Approver: gateApprover(o.Approver)}
	s.core, err = host.New(ctx, o.hostOptions(), sys, fe)
	if err != nil {
		s.end()
		s.removeHome()
		return nil, sdkWords(err)
	}
	return s, nil
}

// Prompt runs text to its end: the model answers, calls tools through
// the gate, and answers again, with steering messages injected at each
// boundary; then every follow-up queued meanwhile runs in turn. It
// returns when the run settles. Cancel, or ctx, ends it early.
func (s *Session) Prompt(ctx context.Context, text string) (Result, error) {
	ctx, done, ok := s.enter(ctx)
	if !ok {
		return Result{}, ErrClosed
	}
	defer done()
	before := s.core.Usage()
	final, err := s.core.Prompt(ctx, text)
	if !errors.Is(err, host.ErrBusy) {
		err = s.core.Finish(err)
	}
	if err == nil {
		if why := s.core.Failed(); why != "" {
			err = fmt.Errorf("wisp refused command and file-changing tools: %s", why)
		}
	}
	after := s.core.Usage()
	return Result{
		Text:    strings.TrimSpace(final.TextOf()),
		Message: final,
		Usage: Usage{
			InputTokens: after.InputTokens - before.InputTokens, OutputTokens: after.OutputTokens - before.OutputTokens,
			CacheReadTokens: after.CacheReadTokens - before.CacheReadTokens, CacheWriteTokens: after.CacheWriteTokens - before.CacheWriteTokens,
		},
		SessionID: s.core.ID(),
	}, err
}

// enter counts a call that Close must wait for, and gives it a context
// that Close cancels; ok is false once closed.
func (s *Session) enter(ctx context.Context) (_ context.Context, done func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, false
	}
	s.runs.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() { stop(); cancel(); s.runs.Done() }, true
}

// sdkWords says in the SDK's words what the core says in the command
// line's: the tool names come from Options.Tools, not --allow-tool.
func sdkWords(err error) error {
	var ue *host.UsageError
	if errors.As(err, &ue) && strings.Contains(ue.Msg, " for --allow-tool;") {
		return errors.New(strings.Replace(ue.Msg, " for --allow-tool;", " in sdk.Options.Tools;", 1))
	}
	return err
}

// Compact replaces the conversation with a summary the model writes
// (goal, decisions, files touched, open tasks, errors seen, with
// instructions added to what it is asked), followed by the latest user
// turn verbatim, and writes it to the transcript as the checkpoint a
// resumed session starts from; the history before it stays in the
// transcript. It is refused with an error that matches ErrBusy while a
// run is live, and with ErrNothingToCompact when there is nothing to
// summarise. Cancel stops it.
func (s *Session) Compact(ctx context.Context, instructions string) error {
	ctx, done, ok := s.enter(ctx)
	if !ok {
		return ErrClosed
	}
	defer done()
	return s.core.Compact(ctx, instructions)
}

// Steer sends text to the live run: it reaches the model at the run's
// next boundary, after the results of the calls in flight and before the
// next request.
func (s *Session) Steer(text string) error { return s.core.Steer(text) }

// FollowUp queues text to run as a prompt of its own once the live run
// ends; Prompt returns after it.
func (s *Session) FollowUp(text string) error { return s.core.FollowUp(text) }

// Cancel ends the live run (its calls are stopped and answered as
// interrupted) and returns the steering and follow-up messages that
// waited for it, which are dropped.
func (s *Session) Cancel() (dropped []string) { return s.core.Cancel() }

// Queued tells what waits for the live run.
func (s *Session) Queued() Queue { return s.core.Queued() }

// Messages is the conversation so far, as a resume would load it.
func (s *Session) Messages() []Message { return s.core.Messages() }

// ID names the session's transcript.
func (s *Session) ID() string { return s.core.ID() }

// Usage is the tokens the session's requests used so far.
func (s *Session) Usage() Usage { return s.core.Usage() }

// Close ends the live run (and waits for it: an Approver should return
// when its context ends), stops what the session started, closes the
// transcript and the audit, ends the Events channel (see Events) and
// removes a private wisp home. Later calls do nothing.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.end()
	s.runs.Wait()
	s.core.Close()
	s.feedMu.Lock()
	if s.feed != nil {
		s.feed.close()
	}
	s.feedMu.Unlock()
	return s.removeHome()
}

func (s *Session) removeHome() error {
	if s.home == "" {
		return nil
	}
	if err := os.RemoveAll(s.home); err != nil {
		return fmt.Errorf("remove the private wisp home: %w", err)
	}
	return nil
}
