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
// waiting for Approve, and how many each running call has had.
type asks struct {
	mu      sync.Mutex
	waiting map[string]*slot
	// asked counts each running call's questions; current is the number
	// of the one waiting.
	asked map[string]int
}

func (a *asks) init() {
	a.waiting = map[string]*slot{}
	a.asked = map[string]int{}
}

// number gives each approval_request its number within its call, and
// forgets a call once its result is out.
func (a *asks) number(e event.Event) event.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r := e.(type) {
	case event.ApprovalRequest:
		a.asked[r.CallID]++
		r.Ask = a.asked[r.CallID]
		return r
	case event.ToolResult:
		delete(a.asked, r.CallID)
	}
	return e
}

// slot is where the answer to one question goes; answered marks it
// taken, so that a second answer is refused rather than kept for later.
type slot struct {
	ch       chan gate.Answer
	answered bool
}

func newSlot() *slot { return &slot{ch: make(chan gate.Answer, 1)} }

// askKey names one question: a call's id and the question's number.
func askKey(callID string, ask int) string { return fmt.Sprintf("%s#%d", callID, ask) }

// open makes room for the answer to a question before the question is
// seen by anyone, so that an answer cannot arrive before it is awaited.
func (a *asks) open(callID string, ask int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if k := askKey(callID, ask); a.waiting[k] == nil {
		a.waiting[k] = newSlot()
	}
}

// await is the slot of the call's question asked last: the gate asks
// right after it sends the question out, one question at a time.
func (a *asks) await(callID string) (chan gate.Answer, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := askKey(callID, a.asked[callID])
	sl := a.waiting[k]
	if sl == nil {
		sl = newSlot()
		a.waiting[k] = sl
	}
	return sl.ch, k
}

func (a *asks) close(k string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.waiting, k)
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
			s.bus.Drain()
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
	ch, k := s.asks.await(r.CallID)
	defer s.asks.close(k)
	select {
	case ans := <-ch:
		return ans, nil
	case <-ctx.Done():
		return gate.Answer{}, ctx.Err()
	}
}

// watchAsks opens the answer's slot when the gate sends a question out.
func (s *Session) watchAsks(e event.Event) {
	if r, ok := e.(event.ApprovalRequest); ok && s.fe.Events && !s.opts.Yes && s.fe.Approver == nil {
		s.asks.open(r.CallID, r.Ask)
	}
}

// Approve answers question ask (the approval_request's number; 0 means
// 1) of a call: allow or not, and for a yes, how long it is remembered
// (once, session, project, always). Only the question waiting now can be
// answered, so that an answer sent twice, or late, never answers a later
// question of the same call that the person has not seen.
func (s *Session) Approve(callID string, ask int, allow bool, scope approval.Scope, note string) error {
	if ask == 0 {
		ask = 1
	}
	s.asks.mu.Lock()
	sl, ok := s.asks.waiting[askKey(callID, ask)]
	current := s.asks.asked[callID]
	taken := ok && sl.answered
	if ok {
		sl.answered = true
	}
	s.asks.mu.Unlock()
	switch {
	case taken:
		return fmt.Errorf("%w: question %d of %q was answered already", ErrNoApproval, ask, callID)
	case ok:
		sl.ch <- gate.Answer{Allow: allow, Scope: scope, Note: note}
		return nil
	case current > 0 && ask != current:
		return fmt.Errorf("%w: question %d of %q is not the one waiting (question %d is)", ErrNoApproval, ask, callID, current)
	}
	return fmt.Errorf("%w: %q", ErrNoApproval, callID)
}
