// Package gate is the one supervised path every tool call takes. It
// decides whether a call runs, asks, or is refused, supplies the process
// builder that command tools must use, and reports what it decided as
// events. Approvers are interfaces handed in: the gate never imports a
// frontend.
package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Request is what an approver is asked.
type Request struct {
	CallID string
	Tool   string
	Class  tool.Class
	// Subject is what will happen, shown to the person: the shell line for
	// a command, the tool and its arguments otherwise.
	Subject string
}

// Approver answers approval requests. An error or a cancelled context is
// a denial.
type Approver interface {
	Approve(ctx context.Context, req Request) (bool, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req Request) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req Request) (bool, error) { return f(ctx, req) }

// Deny refuses every request, with the reason the model is told.
type Deny struct{ Reason string }

// Approve refuses.
func (d Deny) Approve(context.Context, Request) (bool, error) { return false, errors.New(d.Reason) }

// Allow approves every request (print mode with --yes).
type Allow struct{}

// Approve approves.
func (Allow) Approve(context.Context, Request) (bool, error) { return true, nil }

// Options configure a gate.
type Options struct {
	Approver Approver
	// ApprovalTimeout bounds how long a request may wait; no answer is a
	// denial. Zero means 600 seconds.
	ApprovalTimeout time.Duration
	// Shell builds the process for a shell line (nil: /bin/sh -c).
	Shell func(line, dir string) *exec.Cmd
	Sink  event.Sink
}

// Gate runs tool calls.
type Gate struct {
	opts Options
}

// New builds a gate.
func New(opts Options) *Gate {
	if opts.Approver == nil {
		opts.Approver = Deny{Reason: "no approver is configured"}
	}
	if opts.ApprovalTimeout == 0 {
		opts.ApprovalTimeout = 600 * time.Second
	}
	return &Gate{opts: opts}
}

// Call is one tool call as the model asked for it.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
	Turn int
}

// Run executes a call of t through the gate. Refusals come back as tool
// errors the model can read; the returned error is only for harness
// failures.
func (g *Gate) Run(ctx context.Context, c Call, t tool.Tool, env tool.Env) (tool.Result, error) {
	spec := t.Spec()
	if spec.Class != tool.Read {
		subject, err := g.subject(c, t)
		if err != nil {
			return tool.Errorf("%v", err), nil
		}
		ok, why := g.approve(ctx, Request{CallID: c.ID, Tool: spec.Name, Class: spec.Class, Subject: subject}, c.Turn)
		if !ok {
			return tool.Errorf("%s not approved: %s", what(spec.Class), why), nil
		}
	}
	if g.opts.Shell != nil {
		env.Shell = g.opts.Shell
	}
	return t.Run(ctx, &env, c.Args)
}

func what(c tool.Class) string {
	if c == tool.Command {
		return "command"
	}
	return "tool call"
}

// subject is what the person is asked about: the exact shell line for a
// command tool, the tool and its arguments otherwise.
func (g *Gate) subject(c Call, t tool.Tool) (string, error) {
	if cl, ok := t.(tool.CommandLiner); ok {
		line, err := cl.CommandLine(c.Args)
		if err != nil {
			return "", err
		}
		if line != "" {
			return line, nil
		}
	}
	return fmt.Sprintf("%s %s", c.Name, compact(c.Args)), nil
}

func compact(raw json.RawMessage) string {
	const max = 400
	s := string(raw)
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

func (g *Gate) approve(ctx context.Context, req Request, turn int) (bool, string) {
	g.emit(event.Event{Type: event.ApprovalRequest, Turn: turn, CallID: req.CallID, Tool: req.Tool, Class: string(req.Class), Subject: req.Subject})
	actx, cancel := context.WithTimeout(ctx, g.opts.ApprovalTimeout)
	defer cancel()
	ok, err := g.opts.Approver.Approve(actx, req)
	reason := "approved"
	switch {
	case err == nil && !ok:
		reason = "denied by the user"
	case errors.Is(err, context.DeadlineExceeded) || (err == nil && actx.Err() != nil && ctx.Err() == nil):
		ok, reason = false, "no answer within the approval timeout"
	case err != nil:
		ok, reason = false, err.Error()
	}
	g.emit(event.Event{Type: event.ApprovalDecision, Turn: turn, CallID: req.CallID, Tool: req.Tool, Class: string(req.Class), Subject: req.Subject, Approved: &ok, Reason: reason})
	return ok, reason
}

func (g *Gate) emit(e event.Event) {
	if g.opts.Sink == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	g.opts.Sink(e)
}
