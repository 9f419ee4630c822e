package rpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/host"
)

// Config is what Serve talks to.
type Config struct {
	In     io.Reader // commands, one frame a line
	Out    io.Writer // responses and events, nothing else
	Stderr io.Writer // diagnostics
	// Open opens another session for new_session, switch_session and
	// fork, with the same frontend as the first.
	Open func(ctx context.Context, o host.Options) (*host.Session, error)
	// Why names what ended ctx (the signal, "SIGTERM"); the session's
	// closing record carries it.
	Why func() string
}

// runWait bounds how long a cancelled run may take to wind down before
// the session is closed anyway.
const runWait = 10 * time.Second

// server is one RPC conversation: the session it drives (replaced by
// new_session, switch_session and fork), the output, and the run it
// started. Commands are handled one at a time on Serve's goroutine;
// events arrive on the session's.
type server struct {
	ctx      context.Context
	cfg      Config
	out      *writer
	commands map[string]command
	order    []string

	sess  *host.Session
	unsub func()
	base  host.Options  // a fresh session's options
	run   chan struct{} // closed when the run (or compaction) started here settles; nil before the first
	req   request       // the command being handled

	// ending says the last run event sent was an agent_end: the run is
	// over but for the host's bookkeeping, unless a queued message runs
	// next.
	ending atomic.Bool

	usageMu sync.Mutex
	usage   chat.Usage // of the answers since the session was attached
}

// Serve drives s with the commands read from cfg.In until shutdown, the
// end of the input, or ctx's end (a signal), and closes the session it
// ends with. Its error is the session's (a transcript that could not be
// written), or a panic's; a signal is the caller's to report.
func Serve(ctx context.Context, s *host.Session, cfg Config) (err error) {
	srv := &server{ctx: ctx, cfg: cfg, out: newWriter(cfg.Out)}
	srv.commands, srv.order = commandTable()
	srv.base = s.Options()
	srv.base.Continue, srv.base.Resume, srv.base.Fork, srv.base.KeepTurns = false, "", false, 0
	srv.attach(s)
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v\n%s", p, debug.Stack())
			_ = srv.end("panic", nil)
		}
	}()
	return srv.loop()
}

// input is what the reading goroutine hands over: a frame or why none.
type input struct {
	frame []byte
	err   error
}

// read feeds frames to the loop until the input ends. Reading stdin
// cannot be interrupted: after Serve returns, this goroutine stays
// blocked in Read until the process exits, and quit keeps it from
// blocking on a send.
func read(r io.Reader, to chan<- input, quit <-chan struct{}) {
	fr := NewFrameReader(r, MaxFrame)
	for {
		f, err := fr.Next()
		in := input{frame: append([]byte(nil), f...), err: err}
		select {
		case to <- in:
		case <-quit:
			return
		}
		var fe *FrameError
		if err != nil && !errors.As(err, &fe) {
			return
		}
	}
}

func (srv *server) loop() error {
	frames := make(chan input)
	quit := make(chan struct{})
	defer close(quit)
	go read(srv.cfg.In, frames, quit)
	for {
		select {
		case <-srv.ctx.Done():
			why := "interrupted"
			if srv.cfg.Why != nil {
				why = srv.cfg.Why()
			}
			return srv.end(why, nil)
		case in := <-frames:
			var fe *FrameError
			switch {
			case errors.As(in.err, &fe):
				srv.out.send(encode(Response{Type: "response", Error: &Error{Code: fe.Code, Message: fe.Msg}}))
				continue
			case errors.Is(in.err, io.EOF):
				// Input ended: what was asked still runs to its end
				// (follow-ups too), as `printf ... | wisp --mode rpc`
				// expects; a signal still stops it.
				srv.await()
				return srv.end("end of input", nil)
			case in.err != nil:
				fmt.Fprintf(srv.cfg.Stderr, "wisp: %v\n", in.err)
				return srv.end("end of input", nil)
			}
			resp, stop, deferred := srv.handle(in.frame)
			switch {
			case stop:
				return srv.end("exit", &resp)
			case !deferred:
				srv.out.send(encode(resp))
			}
		}
	}
}

// errLater is what a command returns whose response it sends itself:
// prompt, before the run's first event, and compact, from the goroutine
// that does its work.
var errLater = &Error{Code: "later"}

// later is the response to the command being handled, for a command
// that answers from another goroutine.
func (srv *server) later() *Response {
	return &Response{Type: "response", ID: srv.req.ID, Command: srv.req.Type}
}

// handle runs one command; stop says it was shutdown, deferred that its
// response goes out later.
func (srv *server) handle(frame []byte) (resp Response, stop, deferred bool) {
	req, perr := parseRequest(frame)
	resp = Response{Type: "response", ID: req.ID, Command: req.Type}
	if perr != nil {
		resp.Error = perr
		return resp, false, false
	}
	c, ok := srv.commands[req.Type]
	if !ok {
		resp.Error = failure(CodeUnknownCommand, "unknown command %q; the commands: %s", req.Type, strings.Join(srv.order, ", "))
		return resp, false, false
	}
	if srv.sess == nil && c.needsSession {
		resp.Error = failure(CodeNoSession, "no session is open (the last switch failed and the previous session could not be reopened); send new_session")
		return resp, false, false
	}
	srv.req = req
	data, err := c.run(srv, req)
	if err == errLater {
		return resp, false, true
	}
	if err != nil {
		resp.Error = err
		return resp, false, false
	}
	resp.Success, resp.Data = true, data
	return resp, req.Type == "shutdown", false
}

// attach makes s the session the commands drive and its events go out.
func (srv *server) attach(s *host.Session) {
	srv.sess = s
	srv.ending.Store(false)
	srv.usageMu.Lock()
	srv.usage = chat.Usage{}
	srv.usageMu.Unlock()
	srv.unsub = s.Subscribe(srv.event)
}

// event sends one of the session's events. It runs on the session's
// delivery goroutine for this subscriber, in the order the session
// published them; the output queue keeps a slow reader from holding it.
func (srv *server) event(e event.Event) {
	switch e := e.(type) {
	case event.AgentStart:
		srv.ending.Store(false)
	case event.AgentEnd:
		srv.ending.Store(true)
	case event.MessageDelta:
		srv.out.sendDelta(e)
		return
	case event.MessageEnd:
		if e.Usage != nil && e.Message != nil && e.Message.Role == chat.Assistant {
			srv.usageMu.Lock()
			srv.usage = srv.usage.Add(*e.Usage)
			srv.usageMu.Unlock()
		}
	}
	srv.out.send(encode(e))
	if _, ok := e.(event.Retry); ok {
		// As in --mode json: the retried request streams the message
		// again from its start (docs/events.md).
		srv.out.send(encode(event.MessageStart{Header: e.Head()}))
	}
}

// running says whether the run started here has not settled.
func (srv *server) running() bool {
	if srv.run == nil {
		return false
	}
	select {
	case <-srv.run:
		return false
	default:
		return true
	}
}

// idle says whether no run is live. A client that has read a run's
// agent_end may send the next prompt at once, before the host has put
// the run away: when nothing is queued to run next, that is waited for.
func (srv *server) idle() bool {
	if !srv.running() {
		return true
	}
	if !srv.ending.Load() {
		return false
	}
	// Only this goroutine queues messages, so none can arrive between
	// this look and the run's end.
	if q := srv.sess.Queued(); len(q.Steer)+len(q.FollowUp) > 0 {
		return false
	}
	// The run's agent_end is out: either the host is putting the run
	// away, or it took a queued message a moment ago and its agent_start
	// is on the way. Whichever comes first decides.
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(runWait)
	for {
		select {
		case <-srv.run:
			return true
		case <-tick.C:
			if !srv.ending.Load() {
				return false
			}
		case <-deadline:
			return !srv.running()
		}
	}
}

// await waits for the live run, with whatever it queued, to end, or for
// the server's context (a signal) to end first.
func (srv *server) await() {
	if srv.run == nil || !srv.running() {
		return
	}
	select {
	case <-srv.run:
	case <-srv.ctx.Done():
	}
}

// settle waits, at most runWait, for the live run to end.
func (srv *server) settle() {
	if srv.run == nil {
		return
	}
	select {
	case <-srv.run:
	case <-time.After(runWait):
		fmt.Fprintf(srv.cfg.Stderr, "wisp: the run did not end within %s of being cancelled; closing the session anyway\n", runWait)
	}
}

// detach cancels the live run, waits for it, and closes the session
// with reason as its closing record. It returns the session's error.
func (srv *server) detach(reason string) error {
	s := srv.sess
	if s == nil {
		return nil
	}
	s.Cancel()
	srv.settle()
	s.EndWith(reason)
	srv.unsub()
	s.Close()
	srv.sess, srv.unsub, srv.run = nil, nil, nil
	return s.Finish(nil)
}

// end closes the session, sends the last response (shutdown's), and
// flushes the output.
func (srv *server) end(reason string, last *Response) error {
	err := srv.detach(reason)
	if last != nil {
		srv.out.send(encode(last))
	}
	if werr := srv.out.close(); werr != nil && err == nil {
		fmt.Fprintf(srv.cfg.Stderr, "wisp: writing the output failed: %v\n", werr)
	}
	return err
}
