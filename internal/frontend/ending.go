package frontend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/wisp-agent/wisp/internal/host"
)

// How a run ends on a signal. SIGINT (Ctrl-C), SIGTERM and SIGHUP (the
// terminal closed) all end it the same way: the running turn is cancelled,
// which stops the tool call's command; closing the run stops the managed
// processes, writes the audit's last line and a closing record to the
// transcript that names the signal, and keeps the session for --continue.
// The exit code is 128 + the signal's number (130, 143, 129).

// ErrInterrupted is the end of a run the person (or a signal) cut
// short: the command line's exit code 130.
var ErrInterrupted = errors.New("interrupted")

// EndSignals are the signals that end a run cleanly.
func EndSignals() []os.Signal { return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} }

// TurnWait bounds how long a cancelled turn may take to wind down before
// wisp closes anyway.
const TurnWait = 10 * time.Second

// SignalExit is a run ended by a signal.
type SignalExit struct{ Sig syscall.Signal }

func (e *SignalExit) Error() string { return "interrupted by " + SignalName(e.Sig) }

// Is lets every check for an interrupted run see a signal's end as one.
func (e *SignalExit) Is(target error) bool { return target == ErrInterrupted }

// Code is the exit code: 128 + the signal's number, as shells report it.
func (e *SignalExit) Code() int { return 128 + int(e.Sig) }

// SignalName names a signal as the closing record and the exit message do.
func SignalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return fmt.Sprintf("signal %d", int(s))
}

// EndBySignal records why the run ends (the audit's session_end and the
// transcript's closing record) and returns its error.
func EndBySignal(s *host.Session, got os.Signal) error {
	sig, ok := got.(syscall.Signal)
	if !ok {
		sig = syscall.SIGINT
	}
	s.EndWith(SignalName(sig))
	return &SignalExit{Sig: sig}
}

// OnEndSignal returns a context cancelled by the first end signal, and a
// function that stops watching and says which signal came (nil: none).
// After the first, the signals get their default action back, so a
// second one ends a wisp that is slow to wind down at once.
func OnEndSignal(ctx context.Context) (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, EndSignals()...)
	var (
		mu  sync.Mutex
		got os.Signal
	)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			mu.Lock()
			got = s
			mu.Unlock()
			cancel()
		case <-quit:
		}
	})
	var once sync.Once
	return ctx, func() os.Signal {
		once.Do(func() {
			signal.Stop(ch)
			close(quit)
			wg.Wait()
			cancel()
		})
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// IsEndSignal says whether s ends an interactive run at once (SIGTERM,
// SIGHUP) rather than cancelling a turn (SIGINT).
func IsEndSignal(s os.Signal) bool { return s == syscall.SIGTERM || s == syscall.SIGHUP }

// PanicError is a panic in the run, caught so that the run's processes
// are stopped and its session closed before wisp exits.
type PanicError struct {
	value any
	stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error: %v\n%s", e.value, e.stack)
}

// Guard runs f; a panic in it ends the run as an error (exit code 1, the
// panic and its stack on stderr) instead of killing wisp on the spot, so
// that closing the run still stops its processes and writes its last
// records.
func Guard(s *host.Session, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			s.EndWith("panic")
			err = &PanicError{value: p, stack: debug.Stack()}
		}
	}()
	return f()
}

// GoGuarded runs f in a goroutine and sends what it returns, or the
// panic it raised, to done.
func GoGuarded(done chan<- error, f func() error) {
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- &PanicError{value: p, stack: debug.Stack()}
			}
		}()
		done <- f()
	}()
}

// ShowResume tells, on leaving, how to come back to this session: only
// when a transcript is kept, sound, and holds a conversation.
func ShowResume(s *host.Session, chdir string, sys host.IO) {
	if !s.Resumable() {
		return
	}
	again := "wisp -r " + s.ID()
	if chdir != "" {
		// Started elsewhere with -C: the shell is still where it was.
		again = "wisp -C " + host.ShellWord(sys.Workdir) + " -r " + s.ID()
	}
	fmt.Fprintf(sys.Stderr, "wisp: to resume this session: %s\n", again)
}
