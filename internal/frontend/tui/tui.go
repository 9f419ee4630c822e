// Package tui is wisp's full-screen terminal interface, one more
// frontend of host.Session: the conversation with markdown and tool
// cards, a multi-line input with history, the approval dialog and the
// trust question, steering while the model works, slash commands, a
// file picker and a footer. It drives the session only through its
// methods and watches it only through Subscribe; its one loop is the
// Bubble Tea program's. It never decides an approval or runs a tool
// itself: what the person answers goes back to the gate.
//
// Text from the model and from tools reaches the screen only through
// render.Clean: every escape sequence and control character goes.
package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/trust"
)

// Usable says the full screen can run: stdin and stdout are terminals
// and TERM names one that can draw (not dumb, not unset).
func Usable(sys host.IO) bool {
	t := sys.Getenv("TERM")
	return sys.StdinTTY && sys.StdoutTTY && t != "" && t != "dumb"
}

// Main runs interactive sessions on the full screen until the person
// leaves: the first with o, then each that /new, /resume or /fork
// opens. first, when not empty, is sent as the first prompt; chdir is
// -C's folder, for the resume hint.
func Main(ctx context.Context, o host.Options, sys host.IO, chdir, first string) error {
	u := &ui{sys: sys, trusted: map[string]bool{}}
	for {
		next, err := u.session(ctx, o, chdir, first)
		if err != nil || next == nil {
			return err
		}
		o, first = *next, ""
	}
}

// ui is what outlives one session: the terminal, the program on it, and
// the trust answers given in this process.
type ui struct {
	sys     host.IO
	mu      sync.Mutex
	prog    *tea.Program
	gone    chan struct{}
	trusted map[string]bool
	// stderr holds what the session writes on stderr while no screen
	// shows it.
	stderr bytes.Buffer
}

// session runs one session on the screen and says which to open next.
func (u *ui) session(ctx context.Context, o host.Options, chdir, first string) (next *host.Options, err error) {
	sys := u.sys
	sys.Stderr = &stderrSink{u: u}
	fe := host.Frontend{Mode: "interactive", Interactive: true, Approver: gate.ApproverFunc(u.approve), AskTrust: u.askTrust}
	s, err := host.New(ctx, o, sys, fe)
	if err != nil {
		u.flushStderr()
		return nil, err
	}
	defer func() {
		s.Close()
		u.flushStderr()
		frontend.ShowResume(s, chdir, u.sys)
	}()
	var end ending
	err = s.Finish(frontend.Guard(s, func() error {
		var rerr error
		end, rerr = u.run(ctx, s, o, first)
		if rerr != nil {
			return rerr
		}
		switch {
		case end.failed != "":
			return fmt.Errorf("%w: %s", host.ErrReported, end.failed)
		case end.sig != nil:
			return frontend.EndBySignal(s, end.sig)
		case end.reason == "interrupted":
			s.EndWith("interrupted")
			return frontend.ErrInterrupted
		}
		s.EndWith("exit")
		return nil
	}))
	return end.next, err
}

// run shows the session until the person leaves it.
func (u *ui) run(ctx context.Context, s *host.Session, o host.Options, first string) (ending, error) {
	_, model := s.Provider()
	window := provider.ContextWindowFor(model)
	paths, _ := config.ResolvePaths(u.sys.Getenv)
	notes := strings.Split(strings.TrimSpace(u.takeStderr()), "\n")
	if len(notes) == 1 && notes[0] == "" {
		notes = nil
	}
	m := newModel(ctx, s, Config{Workdir: s.Workdir(), WispHome: paths.Home, NoColor: u.sys.Getenv("NO_COLOR") != "",
		Window: window, Options: o, Sys: u.sys, First: first, Notes: notes})
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, frontend.EndSignals()...)
	defer func() {
		signal.Stop(sigs)
		// Ends the wait of waitSignal's command.
		close(sigs)
	}()
	m.signals = sigs
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(u.sys.Stdin), tea.WithOutput(u.sys.Stdout),
		tea.WithoutSignalHandler())
	gone := make(chan struct{})
	u.mu.Lock()
	u.prog, u.gone = p, gone
	u.mu.Unlock()
	unsubscribe := s.Subscribe(func(e event.Event) {
		if msg := fromEvent(e); msg != nil {
			p.Send(msg)
		}
	})
	_, err := p.Run()
	u.mu.Lock()
	u.prog = nil
	close(gone)
	u.mu.Unlock()
	// A turn still winding down (Ctrl+C twice, a signal) gets its time.
	s.Cancel()
	waitTurns(m.turns, frontend.TurnWait)
	unsubscribe()
	switch {
	case err == nil, ctx.Err() != nil && !errors.Is(err, tea.ErrProgramPanic):
		// Left as asked, or wisp itself is ending.
		return m.end, nil
	case errors.Is(err, tea.ErrProgramPanic):
		// The program put the terminal back; the session ends as a
		// panic does.
		s.EndWith("panic")
	}
	return m.end, fmt.Errorf("the full-screen interface failed: %w", err)
}

func waitTurns(wg *sync.WaitGroup, limit time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
	}
}

// approve puts the gate's question on screen and waits for the answer;
// with no screen up, the answer is no.
func (u *ui) approve(ctx context.Context, r gate.Request) (gate.Answer, error) {
	u.mu.Lock()
	p, gone := u.prog, u.gone
	u.mu.Unlock()
	if p == nil {
		return gate.Answer{Reason: "nobody can be asked: the screen is closed"}, nil
	}
	reply := make(chan gate.Answer, 1)
	p.Send(askMsg{req: r, reply: reply, ctx: ctx})
	select {
	case a := <-reply:
		return a, nil
	case <-ctx.Done():
		return gate.Answer{Reason: "cancelled"}, nil
	case <-gone:
		return gate.Answer{Reason: "nobody can be asked: the screen is closed"}, nil
	}
}

// askTrust asks the trust question before the screen opens; an answer
// is kept for the sessions this process opens later.
func (u *ui) askTrust(ctx context.Context, project string) (bool, error) {
	if ok, seen := u.trusted[project]; seen {
		return ok, nil
	}
	tm := &trustModel{project: project, noColor: u.sys.Getenv("NO_COLOR") != ""}
	p := tea.NewProgram(tm, tea.WithContext(ctx), tea.WithInput(u.sys.Stdin), tea.WithOutput(u.sys.Stdout), tea.WithoutSignalHandler())
	if _, err := p.Run(); err != nil {
		return false, fmt.Errorf("ask about trust: %w", err)
	}
	if !tm.answered {
		return false, trust.ErrNoAnswer
	}
	u.trusted[project] = tm.yes
	return tm.yes, nil
}

// stderrSink takes what the session writes on stderr: onto the screen
// while it is up, kept for later otherwise.
type stderrSink struct{ u *ui }

func (w *stderrSink) Write(b []byte) (int, error) {
	w.u.mu.Lock()
	p := w.u.prog
	if p == nil {
		w.u.stderr.Write(b)
		w.u.mu.Unlock()
		return len(b), nil
	}
	w.u.mu.Unlock()
	if text := strings.TrimRight(string(b), "\n"); text != "" {
		go p.Send(infoMsg{text: text})
	}
	return len(b), nil
}

func (u *ui) takeStderr() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.stderr.String()
	u.stderr.Reset()
	return s
}

// flushStderr writes what was kept to the real stderr.
func (u *ui) flushStderr() {
	if s := u.takeStderr(); s != "" {
		_, _ = io.WriteString(u.sys.Stderr, s)
	}
}

// onSignal: SIGINT is Ctrl+C; SIGTERM and SIGHUP end the session.
func (m *Model) onSignal(sig os.Signal) tea.Cmd {
	if sig == syscall.SIGINT {
		return tea.Batch(m.ctrlCPressed(), m.waitSignal())
	}
	m.end.sig = sig
	m.end.reason = frontend.SignalName(sig.(syscall.Signal))
	m.denyDialogs()
	if m.busy {
		m.cancelTurn()
	}
	return tea.Quit
}

// waitSignal delivers the next signal as a message.
func (m *Model) waitSignal() tea.Cmd {
	ch := m.signals
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		sig, ok := <-ch
		if !ok {
			return nil
		}
		return signalMsg{sig: sig}
	}
}
