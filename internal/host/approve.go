package host

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
)

// ErrNoApproval is returned by Approve for a call nobody is being asked
// about (answered already, timed out, or never asked).
var ErrNoApproval = errors.New("no approval is pending for this call")

// asks are the gate's questions sent out as approval_request events and
// waiting for Approve.
type asks struct {
	mu      sync.Mutex
	waiting map[string]chan gate.Answer
}

func (a *asks) init() { a.waiting = map[string]chan gate.Answer{} }

// open makes room for the answer to a question before the question is
// seen by anyone, so that an answer cannot arrive before it is awaited.
func (a *asks) open(callID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.waiting[callID]; !ok {
		a.waiting[callID] = make(chan gate.Answer, 1)
	}
}

func (a *asks) channel(callID string) chan gate.Answer {
	a.mu.Lock()
	defer a.mu.Unlock()
	ch, ok := a.waiting[callID]
	if !ok {
		ch = make(chan gate.Answer, 1)
		a.waiting[callID] = ch
	}
	return ch
}

func (a *asks) close(callID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiting, callID)
}

// approver is who answers the gate: everyone's yes (--yes), the
// frontend's own questioner, approval_request events answered with
// Approve, or nobody (print mode without --yes).
func (s *Session) approver() gate.Approver {
	switch {
	case s.opts.Yes:
		return gate.Allow{}
	case s.fe.Approver != nil:
		// The frontend shows everything before the question first.
		return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
			s.bus.drain()
			return s.fe.Approver.Approve(ctx, r)
		})
	case s.fe.Events:
		return gate.ApproverFunc(s.askByEvent)
	}
	return gate.Deny{Reason: "print mode runs mutating and command tools only with --yes (alias --allow-unsafe-tool-execution)"}
}

// askByEvent waits for Approve on the question the gate has just sent
// out as an approval_request event; the gate's approval timeout ends
// the wait with a no.
func (s *Session) askByEvent(ctx context.Context, r gate.Request) (gate.Answer, error) {
	ch := s.asks.channel(r.CallID)
	defer s.asks.close(r.CallID)
	select {
	case ans := <-ch:
		return ans, nil
	case <-ctx.Done():
		return gate.Answer{}, ctx.Err()
	}
}

// watchAsks opens the answer's slot when the gate sends a question out.
func (s *Session) watchAsks(e event.Event) {
	if e.Type == event.ApprovalRequest && s.fe.Events && !s.opts.Yes && s.fe.Approver == nil {
		s.asks.open(e.CallID)
	}
}

// Approve answers the question pending for a call: allow or not, and
// for a yes, how long it is remembered (once, session, project, always).
func (s *Session) Approve(callID string, allow bool, scope approval.Scope, note string) error {
	s.asks.mu.Lock()
	ch, ok := s.asks.waiting[callID]
	s.asks.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrNoApproval, callID)
	}
	select {
	case ch <- gate.Answer{Allow: allow, Scope: scope, Note: note}:
		return nil
	default:
		return fmt.Errorf("%w: %q was answered already", ErrNoApproval, callID)
	}
}
