// Package mcp is wisp's client for the user's MCP servers: it starts the
// stdio servers of ~/.wisp/settings.json's mcp_servers in parallel, each
// with a small environment, from the home folder and with its stderr
// dropped, and connects to its streamable HTTP servers with headers
// taken from named environment variables; it lists their tools within
// the documented limits, and offers each server's catalogue as
// tool.Tools, all of it or none. The tools it makes are of class command
// unless tool_safety says otherwise, and are tool.Remote, so that the
// gate asks before each call. tool_search (search.go) offers the tools
// past the first request's schema budget.
//
// What the package must never do: run a call past the gate (it only
// builds tools; the gate runs them), let a server's annotations choose a
// class, or put a command, an argument, an environment value, a server's
// address, a header, a server's stderr or a transport error's text into
// a diagnostic.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// States of a server, as `wisp mcp status` shows them.
const (
	StateStarting = "starting"
	StateReady    = "ready"
	StateFailed   = "failed"
	StateSkipped  = "skipped"
)

// Options configure a start.
type Options struct {
	// Getenv reads wisp's own environment, for the baseline and env_from.
	Getenv func(string) string
	// Home is the user's home folder: servers run there, not in the
	// project.
	Home string
	// Version is wisp's version, told to servers.
	Version string
	// Limits bound the start (zero value: DefaultLimits).
	Limits Limits
}

// Status is one server's state, for `wisp mcp status` and /mcp.
type Status struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Tools is how many of its tools are registered.
	Tools int `json:"tools"`
	// ToolNames are the registered names, as the model sees them.
	ToolNames []string `json:"tool_names"`
	// Error is the sanitised reason for failed or skipped.
	Error string `json:"error,omitempty"`
}

// Servers are the MCP servers of one session.
type Servers struct {
	limits  Limits
	servers []*server
	done    chan struct{}

	once  sync.Once
	mu    sync.Mutex
	tools []tool.Tool
}

// Start starts every configured server in parallel and returns at once;
// Tools gives their tools once each is ready or has failed. Entries past
// the 16th, and entries with a Problem, fail without starting.
func Start(ctx context.Context, list []config.MCPServer, o Options) *Servers {
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits()
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	s := &Servers{limits: o.Limits, done: make(chan struct{})}
	var wg sync.WaitGroup
	for i, cfg := range list {
		srv := &server{cfg: cfg, state: StateStarting}
		s.servers = append(s.servers, srv)
		switch {
		case cfg.Problem != "":
			srv.settle(StateFailed, cfg.Problem)
		case i >= o.Limits.Servers:
			srv.settle(StateFailed, fmt.Sprintf("more than %d MCP servers are configured; this one is not started", o.Limits.Servers))
		default:
			wg.Add(1)
			go func() {
				defer wg.Done()
				srv.start(ctx, o)
			}()
		}
	}
	go func() {
		wg.Wait()
		close(s.done)
	}()
	return s
}

// Tools waits until every server has settled, then registers the
// catalogues of the ready ones, in the order of the servers' names, and
// returns their tools; nil when ctx ends first. taken tells the names
// other tools hold already (nil: none); a server with a tool of such a
// name registers none. Registration happens once: later calls return the
// same tools.
func (s *Servers) Tools(ctx context.Context, taken func(name string) bool) []tool.Tool {
	select {
	case <-s.done:
	case <-ctx.Done():
		return nil
	}
	s.once.Do(func() { s.register(taken) })
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tool.Tool(nil), s.tools...)
}

// register checks the limits over all servers, in name order, and keeps
// each ready server's catalogue whole or not at all.
func (s *Servers) register(taken func(string) bool) {
	if taken == nil {
		taken = func(string) bool { return false }
	}
	seen := map[string]bool{}
	total, bytes := 0, 0
	var tools []tool.Tool
	for _, srv := range s.servers {
		srv.mu.Lock()
		cat := srv.catalogue
		ready := srv.state == StateReady
		srv.mu.Unlock()
		if !ready {
			continue
		}
		why := ""
		switch {
		case total+len(cat.tools) > s.limits.Tools:
			why = fmt.Sprintf("its %d tools would pass the limit of %d MCP tools overall", len(cat.tools), s.limits.Tools)
		case bytes+cat.bytes > s.limits.DefinitionBytes:
			why = fmt.Sprintf("its tool definitions would pass the limit of %s for all MCP servers", sizeText(s.limits.DefinitionBytes))
		}
		for _, t := range cat.tools {
			if why == "" && (seen[t.name] || taken(t.name)) {
				why = "another tool has the name " + t.name + " already"
			}
		}
		if why != "" {
			srv.fail(why)
			continue
		}
		total, bytes = total+len(cat.tools), bytes+cat.bytes
		for _, t := range cat.tools {
			seen[t.name] = true
			tools = append(tools, t)
		}
	}
	s.mu.Lock()
	s.tools = tools
	s.mu.Unlock()
}

// Status is the runtime snapshot of every server, in name order. It
// never reconnects anything.
func (s *Servers) Status() []Status {
	out := make([]Status, 0, len(s.servers))
	for _, srv := range s.servers {
		out = append(out, srv.status())
	}
	return out
}

// Close stops every server.
func (s *Servers) Close() {
	<-s.done
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			srv.stop()
		}()
	}
	wg.Wait()
}

// server is one configured server and its connection.
type server struct {
	cfg config.MCPServer

	mu        sync.Mutex
	state     string
	why       string
	catalogue catalogue
	session   *sdk.ClientSession
	proc      *exec.Cmd
	frames    frameGuard
	// gone is closed once the process has ended and been waited for.
	gone chan struct{}
}

func (srv *server) settle(state, why string) {
	srv.mu.Lock()
	srv.state, srv.why = state, why
	srv.mu.Unlock()
}

// fail marks the server failed and drops its tools; calls already made
// of them get an error.
func (srv *server) fail(why string) {
	srv.mu.Lock()
	srv.state, srv.why = StateFailed, why
	srv.catalogue = catalogue{}
	srv.mu.Unlock()
}

func (srv *server) status() Status {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	st := Status{Name: srv.cfg.Name, State: srv.state, Error: srv.why, ToolNames: []string{}}
	if srv.state == StateReady {
		st.Tools = len(srv.catalogue.tools)
		for _, t := range srv.catalogue.tools {
			st.ToolNames = append(st.ToolNames, t.name)
		}
	}
	return st
}

// start launches the process, connects and lists the tools within the
// connect deadline. Every failure becomes a sanitised reason.
func (srv *server) start(ctx context.Context, o Options) {
	transport, state, why := srv.transport(o)
	if transport == nil {
		srv.settle(state, why)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, o.Limits.ConnectTimeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "wisp", Version: o.Version}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		srv.settle(StateFailed, srv.startFailure(ctx, "the MCP handshake failed", o.Limits))
		srv.stop()
		return
	}
	srv.mu.Lock()
	srv.session = session
	srv.mu.Unlock()
	cat, why, err := discover(ctx, session, srv, o.Limits)
	switch {
	case err != nil:
		srv.settle(StateFailed, srv.startFailure(ctx, "listing its tools failed", o.Limits))
	case why != "":
		srv.settle(StateFailed, why)
	default:
		srv.mu.Lock()
		srv.catalogue, srv.state = cat, StateReady
		srv.mu.Unlock()
		return
	}
	srv.stop()
}

// frameTooLarge tells whether the server passed the frame limit.
func (srv *server) frameTooLarge() bool {
	srv.mu.Lock()
	f := srv.frames
	srv.mu.Unlock()
	return f != nil && f.tooLarge()
}

// startFailure words why a start failed, from what wisp saw rather than
// from the error's text.
func (srv *server) startFailure(ctx context.Context, otherwise string, l Limits) string {
	switch {
	case srv.frameTooLarge():
		return fmt.Sprintf("the server sent a protocol frame larger than %s", sizeText(l.FrameBytes))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Sprintf("the server did not connect and list its tools within %s", l.ConnectTimeout)
	case srv.cfg.URL != "":
		return srv.httpFailure(otherwise)
	case srv.waitExit(exitWait):
		return "the server process exited during start-up"
	}
	return otherwise
}

// transport is how wisp reaches the server: a process it starts, or a
// streamable HTTP endpoint. Without one, state and why say what stopped
// it.
func (srv *server) transport(o Options) (t sdk.Transport, state, why string) {
	if srv.cfg.URL != "" {
		headers, missing := serverHeaders(o.Getenv, srv.cfg)
		if missing != "" {
			return nil, StateSkipped, fmt.Sprintf("environment variable %s (headers_from) is not set", missing)
		}
		return srv.dial(headers, o), "", ""
	}
	env, missing := serverEnv(o.Getenv, srv.cfg)
	if missing != "" {
		return nil, StateSkipped, fmt.Sprintf("environment variable %s (env_from) is not set", missing)
	}
	t, err := srv.launch(env, o)
	if err != nil {
		return nil, StateFailed, "could not start the server process"
	}
	return t, "", ""
}

// launch starts the process with pipes wisp owns, in a process group of
// its own so that stop ends whatever it started.
func (srv *server) launch(env []string, o Options) (sdk.Transport, error) {
	cmd := exec.Command(srv.cfg.Command, srv.cfg.Args...)
	cmd.Dir, cmd.Env = o.Home, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW // Stderr nil: the null device
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	frames := &frameReader{r: outR, limit: o.Limits.FrameBytes}
	gone := make(chan struct{})
	srv.mu.Lock()
	srv.proc, srv.frames, srv.gone = cmd, frames, gone
	srv.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(gone)
	}()
	// frames enforces the limit exactly; the SDK's own bound, which also
	// counts bytes read ahead of a frame's end, is only a backstop.
	return &sdk.IOTransport{Reader: frames, Writer: inW, MaxLineLength: 2 * o.Limits.FrameBytes}, nil
}

// exited tells whether the process has ended (or never started).
func (srv *server) exited() bool { return srv.waitExit(0) }

// waitExit waits up to d for the process to end and tells whether it did.
func (srv *server) waitExit(d time.Duration) bool {
	srv.mu.Lock()
	gone := srv.gone
	srv.mu.Unlock()
	if gone == nil {
		return true
	}
	select {
	case <-gone:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-gone:
		return true
	case <-t.C:
		return false
	}
}

// How long a server has to exit once its stdin closes, and then once it
// is sent SIGTERM, before its process group is killed.
const (
	closeGrace = 500 * time.Millisecond
	termGrace  = 1500 * time.Millisecond
)

// stop closes the connection and ends the server as the MCP stdio
// transport says: stdin closed, then SIGTERM, then SIGKILL, to the whole
// process group.
func (srv *server) stop() {
	srv.mu.Lock()
	session, cmd := srv.session, srv.proc
	srv.session = nil
	srv.mu.Unlock()
	closed := make(chan struct{})
	go func() {
		if session != nil {
			_ = session.Close()
		}
		close(closed)
	}()
	if cmd == nil || cmd.Process == nil {
		// A url server: its session's close tells it to end.
		select {
		case <-closed:
		case <-time.After(termGrace):
		}
		return
	}
	pgid := cmd.Process.Pid
	if !srv.waitExit(closeGrace) {
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		srv.waitExit(termGrace)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-closed:
	case <-time.After(termGrace):
	}
}

// sizeText shows a byte count as MiB or KiB.
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
