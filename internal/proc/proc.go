// Package proc runs shell commands as wisp's tools need them: each in its
// own process group with stdin on /dev/null, stdout and stderr captured
// apart and bounded to their tail (the whole output saved to a file when
// it is longer), a timeout that ends the whole group (SIGTERM, then
// SIGKILL after a grace period) and an exit report. Run waits for one
// command; Start keeps a process for later polls. What a command starts
// outside its process group (setsid, set -m, daemons) is the sandbox
// helper's to end: proc signals the helper's group, and the helper
// contains the rest (see internal/sandbox), also when wisp itself dies.
//
// proc never builds the command itself: the caller (the gate, which wraps
// the sandbox) hands in the *exec.Cmd, and there is no unsandboxed shell
// to fall back on. It never decides whether a command may run.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Defaults of Options.
const (
	DefaultGrace = 2 * time.Second
	DefaultDrain = time.Second
)

// Options tune one process. The zero value is usable: no timeout, default
// bound, grace and drain, full output saved under os.TempDir.
type Options struct {
	// Timeout ends the process group this long after the start (the
	// lifetime of a managed process). Zero means no limit.
	Timeout time.Duration
	// Grace is how long the group has between SIGTERM and SIGKILL.
	Grace time.Duration
	// Drain is how long the output pipes may stay open after the group was
	// killed (held by a process that left the group) before they are
	// closed on our side.
	Drain time.Duration
	// Bound limits each stream's kept tail.
	Bound Bound
	// Dir receives the full output of streams that outgrow the bound;
	// empty means os.TempDir().
	Dir string
	// FileLimit caps each full-output file; zero means DefaultFileLimit.
	FileLimit int64
}

func (o Options) withDefaults() Options {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrain
	}
	o.Bound = o.Bound.withDefaults()
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	if o.FileLimit <= 0 {
		o.FileLimit = DefaultFileLimit
	}
	return o
}

// State is where a process is in its life.
type State string

const (
	Running  State = "running"
	Exited   State = "exited"    // ended on its own
	Killed   State = "killed"    // ended by Cancel or by the context
	TimedOut State = "timed_out" // ended by the timeout
)

// Outcome reports a process: finished for Run, as of the call for Poll.
type Outcome struct {
	State State
	// ExitCode is the leader's exit status, -1 while running or when a
	// signal ended it.
	ExitCode int
	// Signal names the signal that ended the leader ("SIGTERM"), if any.
	Signal string
	// Duration is the time from start to the leader's end (or to now).
	Duration time.Duration
	Stdout   Stream
	Stderr   Stream
}

// TimedOut tells whether the timeout ended the process.
func (o Outcome) TimedOut() bool { return o.State == TimedOut }

// Run starts cmd and waits for it, ending its process group on timeout or
// when ctx is done. The error is set only when the command could not start.
func Run(ctx context.Context, cmd *exec.Cmd, opts Options) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, fmt.Errorf("run %s: %w", cmd.Path, err)
	}
	p, err := Start(cmd, opts)
	if err != nil {
		return Outcome{}, err
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.halt(Killed)
		<-p.done
	}
	o, _, _ := p.outcome(mark{}, mark{})
	return o, nil
}

// Process is a started command whose output can be collected piecewise.
// Its methods are safe for concurrent use.
type Process struct {
	cmd    *exec.Cmd
	opts   Options
	start  time.Time
	stdout *sink
	stderr *sink
	pipes  [2]*os.File // read ends, closed by the supervisor

	stop     chan struct{}
	stopOnce sync.Once
	reason   State // why stop was closed; written before closing it

	drained chan struct{} // both pipes hit EOF
	done    chan struct{} // everything below is final
	state   State
	exit    int
	signal  string
	ended   time.Time

	mu               sync.Mutex // serialises polls
	outMark, errMark mark
}

// Start starts cmd in its own process group and takes over its Stdout and
// Stderr. A nil Stdin (the usual case) reads /dev/null; a Stdin the caller
// set is left alone. The caller must eventually see the process end: by
// its own exit, opts.Timeout, or Cancel.
func Start(cmd *exec.Cmd, opts Options) (*Process, error) {
	opts = opts.withDefaults()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A session leader already leads its own group (and may not call
	// setpgid); otherwise the command gets a group of its own.
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid = true
	}
	// Our own pipes rather than io.Writers: os/exec would then wait for
	// every holder of the pipe (a backgrounded grandchild) before Wait
	// returns, while we want to end the group first and then drain.
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start %s: stdout pipe: %w", cmd.Path, err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("start %s: stderr pipe: %w", cmd.Path, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = startLocked(cmd)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}

	p := &Process{
		cmd:     cmd,
		opts:    opts,
		start:   time.Now(),
		stdout:  newSink("stdout", opts.Bound, opts.Dir, opts.FileLimit),
		stderr:  newSink("stderr", opts.Bound, opts.Dir, opts.FileLimit),
		pipes:   [2]*os.File{outR, errR},
		stop:    make(chan struct{}),
		drained: make(chan struct{}),
		done:    make(chan struct{}),
	}
	var copying sync.WaitGroup
	copying.Add(2)
	for i, s := range []*sink{p.stdout, p.stderr} {
		go func() {
			defer copying.Done()
			// Errors end the copy: EOF, or the pipe closed after Drain.
			_, _ = io.Copy(s, p.pipes[i])
		}()
	}
	go func() {
		copying.Wait()
		close(p.drained)
	}()
	go p.supervise()
	return p, nil
}

// startLocked starts cmd from a goroutine of its own, locked to its
// thread for the call. A parent-death signal (the sandbox helper's, see
// sandbox.Command) follows the thread that forks, not the process, and Go
// ends a thread when a goroutine locked to it exits: were the caller's
// goroutine locked (and so its thread doomed to end with it), the
// command would be killed early. A fresh goroutine runs on a pool thread,
// which Go keeps; wisp never lets a locked goroutine exit.
func startLocked(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		errc <- cmd.Start()
	}()
	return <-errc
}

// PID is the process id of the leader, which is also the group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed when the process has ended and its output is complete.
func (p *Process) Done() <-chan struct{} { return p.done }

// Poll waits up to wait for the process to end, then reports its state and
// the output written since the previous poll.
func (p *Process) Poll(wait time.Duration) Outcome {
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-p.done:
		case <-t.C:
		}
		t.Stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var o Outcome
	o, p.outMark, p.errMark = p.outcome(p.outMark, p.errMark)
	return o
}

// Cancel ends the process group (SIGTERM, then SIGKILL after the grace
// period) and returns once it has ended. It does nothing to a process
// that has already ended.
func (p *Process) Cancel() {
	p.halt(Killed)
	<-p.done
}

func (p *Process) halt(why State) {
	p.stopOnce.Do(func() {
		p.reason = why
		close(p.stop)
	})
}

// outcome reports the state and the output after the given marks, and
// the marks that end this output.
func (p *Process) outcome(out, errs mark) (Outcome, mark, mark) {
	o := Outcome{State: Running, ExitCode: -1}
	select {
	case <-p.done:
		o.State, o.ExitCode, o.Signal = p.state, p.exit, p.signal
		o.Duration = p.ended.Sub(p.start)
	default:
		o.Duration = time.Since(p.start)
	}
	o.Stdout, out = p.stdout.since(out)
	o.Stderr, errs = p.stderr.since(errs)
	return o, out, errs
}

// supervise owns the process from start to end: it waits for the leader,
// the timeout or a stop, then ends whatever is left of the group, drains
// the pipes and records the outcome.
func (p *Process) supervise() {
	exited := make(chan struct{})
	var leaderErr error
	var leaderEnd time.Time
	go func() {
		leaderErr = awaitLeader(p.cmd)
		leaderEnd = time.Now()
		close(exited)
	}()

	var expire <-chan time.Time
	if p.opts.Timeout > 0 {
		t := time.NewTimer(p.opts.Timeout - time.Since(p.start))
		defer t.Stop()
		expire = t.C
	}
	state := Exited
	select {
	case <-exited:
	case <-expire:
		state = TimedOut
	case <-p.stop:
		state = p.reason
	}

	// Even after a clean exit the group may hold background children;
	// they end with the command. SIGTERM first, SIGKILL when the grace is
	// over or as soon as the leader is gone and the pipes are closed.
	pgid := p.cmd.Process.Pid
	_ = unix.Kill(-pgid, unix.SIGTERM)
	grace := time.NewTimer(p.opts.Grace)
	defer grace.Stop()
	select {
	case <-exited:
		select {
		case <-p.drained:
		case <-grace.C:
		}
	case <-grace.C:
	}
	_ = unix.Kill(-pgid, unix.SIGKILL)
	<-exited
	err := reapLeader(p.cmd, leaderErr)

	drain := time.NewTimer(p.opts.Drain)
	defer drain.Stop()
	select {
	case <-p.drained:
	case <-drain.C:
		// A process that left the group still holds a pipe.
		for _, f := range p.pipes {
			f.Close()
		}
		<-p.drained
	}
	for _, f := range p.pipes {
		f.Close()
	}
	p.stdout.close()
	p.stderr.close()

	p.ended = leaderEnd
	p.state = state
	p.exit, p.signal = exitOf(p.cmd, err)
	close(p.done)
}

// exitOf reads the leader's exit code and ending signal.
func exitOf(cmd *exec.Cmd, err error) (int, string) {
	ps := cmd.ProcessState
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, unix.SignalName(ws.Signal())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return -1, ""
	}
	return ps.ExitCode(), ""
}
