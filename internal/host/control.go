package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/host/resume"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// What a frontend that switches sessions (the RPC) needs beyond Prompt:
// starting a run without waiting for it, the tools and the model, the
// saved conversation, the folder's other sessions, and forks.

// ErrNoTranscript is returned by what needs a transcript in a session
// that keeps none (--no-session).
var ErrNoTranscript = errors.New("this session keeps no transcript (--no-session)")

// Start begins a run of text, as Prompt does, and returns once the run
// is live: a Steer or FollowUp sent right after reaches it. started,
// when set, is called once the run is live and before it publishes
// anything, so that a frontend can answer the request first. wait
// blocks until the run settles and returns what Prompt would.
func (s *Session) Start(ctx context.Context, text string, started func()) (wait func() (chat.Message, error), err error) {
	rctx, cancel, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	if started != nil {
		started()
	}
	type result struct {
		msg chat.Message
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		m, err := s.drive(rctx, text)
		done <- result{m, err}
	}()
	return sync.OnceValues(func() (chat.Message, error) {
		r := <-done
		return r.msg, r.err
	}), nil
}

// Tools are the specs of the tools the model sees, in its order.
func (s *Session) Tools() []tool.Spec { return s.tools.Specs() }

// SetModel makes later requests ask for name. It is refused while a run
// is live (ErrBusy) and for a name no provider takes.
func (s *Session) SetModel(name string) error {
	if strings.TrimSpace(name) == "" {
		return usagef("the model name is empty")
	}
	if err := config.CheckModel(name); err != nil {
		return usagef("model %q: %v", name, err)
	}
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live {
		return ErrBusy
	}
	// The model's answer size and context window follow it, unless the
	// settings fix them.
	f := flagsOf(s.opts)
	f.Model = name
	conf, err := config.Resolve(f, s.sys.Getenv, s.cfg, s.project.Settings, s.cfg.Paths.Pretty(config.ProjectFile(s.project.Root)))
	if err != nil {
		return err
	}
	// Under the run's lock, so that the next run's requests see it.
	s.conf, s.choice.Model = conf, conf.Provider.Model
	s.agent.SetModel(name, conf.MaxTokens, compactAt(conf.ContextWindow))
	return nil
}

// Saved is the conversation as --resume would load it now: read from
// the transcript (during a run too), repaired as a resumed run repairs
// it. Without a transcript it is the conversation in memory, which is
// only read while no run is live (ErrBusy).
func (s *Session) Saved() ([]chat.Message, error) {
	if s.session == nil {
		r := &s.run
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.live {
			return nil, ErrBusy
		}
		return agent.Repair(s.agent.Messages()), nil
	}
	t, err := transcript.Read(s.session.Path())
	if err != nil {
		return nil, resume.Err("read the session", err)
	}
	return agent.Repair(t.Messages()), nil
}

// Sessions lists this folder's saved sessions as `wisp sessions` does,
// newest first: those with a message, and damaged ones.
func (s *Session) Sessions() ([]transcript.Summary, error) {
	dir := sessionDir(s.opts, s.cfg, s.sys.Getenv)
	all, err := transcript.List(dir)
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", s.cfg.Paths.Pretty(dir), err)
	}
	var out []transcript.Summary
	for _, sum := range all {
		if (sum.Messages > 0 || sum.Damaged != "") && sum.StartedIn(s.sys.Workdir) {
			out = append(out, sum)
		}
	}
	return out, nil
}

// Options are the options the session was opened with.
func (s *Session) Options() Options { return s.opts }

// Fork writes a new session that branches this one before message
// before of Saved's list (len of that list keeps it all), and returns
// its id; the new session is opened with Options.Resume. The cut must
// fall on a prompt, so that every kept call keeps its result. This
// session stays open and unchanged; it must not be running.
func (s *Session) Fork(before int) (string, error) {
	if s.session == nil {
		return "", ErrNoTranscript
	}
	if s.Running() {
		return "", ErrBusy
	}
	t, err := transcript.Read(s.session.Path())
	if err != nil {
		return "", resume.Err("fork the session", err)
	}
	kept, err := cutBefore(t.Branch(), before)
	if err != nil {
		return "", err
	}
	header := transcript.Header{Cwd: s.sys.Workdir, Provider: s.choice.Name, Model: s.choice.Model}
	w, err := transcript.ForkRecords(sessionDir(s.opts, s.cfg, s.sys.Getenv), t, header, kept)
	if err != nil {
		return "", resume.Err("fork the session", err)
	}
	id := w.ID()
	if err := w.Close(); err != nil {
		return "", resume.Err("fork the session", err)
	}
	return id, nil
}

// cutBefore keeps the records of branch whose conversation is the first
// n messages: the whole branch when n reaches its end, else the records
// before the prompt that begins message n.
func cutBefore(branch []transcript.Record, n int) ([]transcript.Record, error) {
	msgs := agent.Repair(transcript.Conversation(branch))
	switch total := len(msgs); {
	case n < 0 || n > total:
		return nil, usagef("message %d does not exist: the conversation has %d messages", n, total)
	case n == total:
		return branch, nil
	case !startsTurn(msgs[n]):
		return nil, usagef("message %d is not a prompt: a fork starts before a prompt, so that every call keeps its result", n)
	}
	// The conversation starts at the latest checkpoint: a cut before it
	// would bring back the history the summary replaced.
	from := 0
	for i, r := range branch {
		if r.Type == transcript.TypeCheckpoint {
			from = i + 1
		}
	}
	for i := from; i < len(branch); i++ {
		r := branch[i]
		if r.Type != transcript.TypeMessage || r.Message == nil || !startsTurn(*r.Message) {
			continue
		}
		if len(agent.Repair(transcript.Conversation(branch[:i]))) == n {
			return append([]transcript.Record(nil), branch[:i]...), nil
		}
	}
	return nil, usagef("message %d is not a prompt: a fork starts before a prompt, so that every call keeps its result", n)
}
