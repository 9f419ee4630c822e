package host

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/wisp-agent/wisp/internal/chat"
)

// MaxQueued bounds the steering and follow-up messages waiting at once.
const MaxQueued = 100

var (
	// ErrBusy is returned by Prompt while a run is live: one run per
	// session; Steer or FollowUp reach a live run.
	ErrBusy = errors.New("a run is in progress: steer it or queue a follow-up")
	// ErrIdle is returned by Steer and FollowUp when no run is live.
	ErrIdle = errors.New("no run is in progress: send a prompt")
	// ErrCompacting is returned by Steer and FollowUp while Compact runs.
	ErrCompacting = errors.New("the conversation is being compacted: send it once that is done")
	// ErrQueueFull is returned when MaxQueued messages are waiting.
	ErrQueueFull = fmt.Errorf("%d messages are queued already", MaxQueued)
)

// runState is the live run, if any, and what waits for it.
type runState struct {
	mu     sync.Mutex
	live   bool
	cancel context.CancelFunc
	steer  []string // injected at the run's next boundary
	follow []string // run as prompts of their own once the run ends
	// compacting says the live "run" is a Compact: nothing it could
	// carry a steer or a follow-up to.
	compacting bool
}

// Queue is what waits for the live run.
type Queue struct {
	Steer    []string `json:"steering"`
	FollowUp []string `json:"follow_up"`
}

// Prompt runs text to the end: the model answers, calls tools through
// the gate, and answers again, with steering messages injected at each
// boundary; then every queued follow-up runs in turn. It returns the
// last run's answer and error (an earlier run's error went out as an
// error event). Cancel, or ctx, ends it.
func (s *Session) Prompt(ctx context.Context, text string) (chat.Message, error) {
	rctx, cancel, err := s.begin(ctx)
	if err != nil {
		return chat.Message{}, err
	}
	defer cancel()
	return s.drive(rctx, text)
}

// begin marks a run live, or says one is live already (ErrBusy). Start
// calls it before it returns, so that a Steer sent right after finds the
// run.
func (s *Session) begin(ctx context.Context) (context.Context, context.CancelFunc, error) {
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live {
		return nil, nil, ErrBusy
	}
	rctx, cancel := context.WithCancel(ctx)
	r.live, r.cancel = true, cancel
	return rctx, cancel, nil
}

// drive runs text, then what was queued meanwhile, and ends the live
// run that begin marked.
func (s *Session) drive(rctx context.Context, text string) (chat.Message, error) {
	// The run settles once every frontend has shown what it did.
	defer s.bus.Drain()
	r := &s.run
	run := s.agent.Run
	for {
		final, err := run(rctx, text)
		r.mu.Lock()
		// A steer that found no boundary (the run answered first) is not
		// lost: it runs next, ahead of the follow-ups. They run after a
		// run that failed too (its error event said why): they were
		// asked for, and a later run may well succeed. Only a cancel
		// drops them, and Cancel gives them back.
		next := append(r.steer, r.follow...)
		r.steer, r.follow = nil, nil
		if rctx.Err() != nil || len(next) == 0 {
			r.live, r.cancel = false, nil
			r.mu.Unlock()
			return final, err
		}
		text, r.follow = next[0], next[1:]
		run = s.agent.RunQueued
		r.mu.Unlock()
	}
}

// Steer sends text to the live run: it reaches the model at the run's
// next boundary, after the results of the calls in flight and before the
// next request.
func (s *Session) Steer(text string) error { return s.enqueue(text, true) }

// FollowUp queues text to run as a prompt of its own once the live run
// ends.
func (s *Session) FollowUp(text string) error { return s.enqueue(text, false) }

func (s *Session) enqueue(text string, steer bool) error {
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !r.live:
		return ErrIdle
	case r.compacting:
		return ErrCompacting
	case len(r.steer)+len(r.follow) >= MaxQueued:
		return ErrQueueFull
	case steer:
		r.steer = append(r.steer, text)
	default:
		r.follow = append(r.follow, text)
	}
	return nil
}

// takeSteers hands the agent the steering messages waiting at a
// boundary.
func (s *Session) takeSteers() []string {
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.steer
	r.steer = nil
	return out
}

// Cancel ends the live run (its calls are stopped and answered as
// interrupted) and drops what waited for it, which it returns so that a
// frontend can give it back to the person.
func (s *Session) Cancel() (dropped []string) {
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		r.cancel()
	}
	dropped = append(r.steer, r.follow...)
	r.steer, r.follow = nil, nil
	return dropped
}

// Queued tells what waits for the live run.
func (s *Session) Queued() Queue {
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	return Queue{Steer: append([]string{}, r.steer...), FollowUp: append([]string{}, r.follow...)}
}

// ClearQueue drops what waits for the live run and returns it.
func (s *Session) ClearQueue() Queue {
	r := &s.run
	r.mu.Lock()
	defer r.mu.Unlock()
	q := Queue{Steer: r.steer, FollowUp: r.follow}
	r.steer, r.follow = nil, nil
	return q
}

// Running says whether a run is live.
func (s *Session) Running() bool {
	s.run.mu.Lock()
	defer s.run.mu.Unlock()
	return s.run.live
}
