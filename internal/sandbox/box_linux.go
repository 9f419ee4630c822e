//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/sandbox/conceal"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// box is one command's containment, as the helper built it.
type box struct {
	cfg     Config
	pidsMax int
	cg      *cgroup // nil when no cgroup could be made
	// ns is set once the thread is in new mount and PID namespaces;
	// initPid is then the namespace's init (0 until it runs).
	ns      bool
	initPid int
	// lifeline's write end is held by the helper alone: init ends the
	// namespace when it reads EOF, that is when the helper is gone.
	lifeline *os.File
	// userNS is set when the helper runs in a user namespace of its own.
	userNS bool
	// rlimit is set when RLIMIT_NPROC bounds the command's processes.
	rlimit bool
	// ppid is wisp's pid, to tell wisp's death (process-group mode) from
	// a signal wisp sent.
	ppid int
	// notice is said on stderr before the command runs.
	notice string
}

// containment names the level in force.
func (b *box) containment() string {
	switch {
	case b.cg != nil && b.ns:
		return ContainCgroup
	case b.ns:
		return ContainPidNamespace
	}
	return ContainProcessGroup
}

// limit is the process limit in force, 0 for none.
func (b *box) limit() int {
	if b.cg != nil || b.rlimit {
		return b.pidsMax
	}
	return 0
}

// enter builds the box on the calling (locked) thread: a cgroup where one
// can be made, new mount and PID namespaces (and a network namespace and
// hidden secrets for the auto-run profile) with their init, then Landlock,
// the socket filter and no capabilities. An auto-run command that cannot
// have all of it is an error; an approved one falls back to a process
// group with a subreaper. The returned box is never nil, so that the
// caller can release what was built.
func enter(cfg Config) (*box, error) {
	b := &box{cfg: cfg, pidsMax: cfg.PidsMax, ppid: os.Getppid(), userNS: inUserNS()}
	if b.pidsMax <= 0 {
		b.pidsMax = DefaultPidsMax
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return b, fmt.Errorf("set no_new_privs: %w", err)
	}
	b.cg = newCgroup(b.pidsMax)
	if err := b.namespaces(); err != nil {
		switch {
		case cfg.AutoRun:
			return b, fmt.Errorf("the auto-run sandbox cannot be built: %w", err)
		case b.ns && b.initPid == 0:
			// The thread's children would start a PID namespace
			// with no init of ours: the shell would be its init.
			return b, err
		case b.ns:
			// init runs, without a /proc of its own: the namespace
			// contains all the same.
		default:
			if err := b.fallback(); err != nil {
				return b, err
			}
		}
	}
	if b.cg == nil && b.userNS && b.ns {
		// Counted per user namespace: only the command's processes.
		lim := unix.Rlimit{Cur: uint64(b.pidsMax), Max: uint64(b.pidsMax)}
		b.rlimit = unix.Setrlimit(unix.RLIMIT_NPROC, &lim) == nil
	}
	switch err := confine(cfg); {
	case errors.Is(err, errUnenforced) && cfg.AutoRun:
		return b, fmt.Errorf("the auto-run sandbox cannot be built: %w", err)
	case errors.Is(err, errUnenforced):
		b.notice = err.Error() + "; the command runs unsandboxed"
	case err != nil:
		return b, err
	}
	if err := dropCapabilities(); err != nil {
		return b, err
	}
	return b, nil
}

// namespaces moves the thread into new mount and PID namespaces (and a
// network namespace for the auto-run profile), hides the secrets from an
// auto-run command and starts the PID namespace's init, which mounts a
// /proc that shows only the command's own processes.
func (b *box) namespaces() error {
	flags := unix.CLONE_NEWNS | unix.CLONE_NEWPID
	var plan conceal.Plan
	if b.cfg.AutoRun {
		flags |= unix.CLONE_NEWNET
		var err error
		if plan, err = conceal.PlanWorkspace(b.cfg.Workdir); err != nil {
			return err
		}
	}
	if err := unix.Unshare(flags); err != nil {
		return fmt.Errorf("create namespaces: %w", err)
	}
	b.ns = true
	// Nothing mounted here may reach the caller's namespace.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if b.cfg.AutoRun {
		if err := conceal.Homes(b.cfg.Workdir, b.cfg.TempDir); err != nil {
			return err
		}
		if err := hideSecrets(b.cfg); err != nil {
			return err
		}
		if err := plan.Apply(); err != nil {
			return err
		}
	}
	pid, lifeline, err := startInit()
	b.initPid, b.lifeline = pid, lifeline
	return err
}

// fallback is the process-group containment: the helper becomes a
// subreaper, so that whatever the shell leaves behind becomes its child
// and is killed when the shell ends; wisp's death reaches it as SIGTERM
// (see run).
func (b *box) fallback() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become a subreaper: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil {
		return fmt.Errorf("set the parent-death signal: %w", err)
	}
	if os.Getppid() != b.ppid {
		return errors.New("wisp ended before the command started")
	}
	return nil
}

// forwarded are the signals the helper passes on to the shell's group.
var forwarded = []os.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2}

// run starts the shell from the locked thread and, when the shell ends,
// ends everything else the command started and returns (or dies by) the
// shell's status. In a PID namespace the shell leads a process group of
// its own and the helper passes signals on to it; in process-group mode
// the shell stays in the helper's group, which the caller signals.
func (b *box) run(argv []string) int {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwarded...)
	// No parent-death signal in the namespace: Go's check that the parent
	// is still alive compares pids across it and would kill the shell;
	// init ends it with the namespace instead.
	sys := &syscall.SysProcAttr{Setpgid: b.ns}
	if !b.ns {
		sys.Pdeathsig = syscall.SIGKILL
	}
	attr := &syscall.ProcAttr{Env: CommandEnv(os.Environ()), Files: []uintptr{0, 1, 2}, Sys: sys}
	pid, err := syscall.ForkExec(argv[0], argv, attr)
	if err != nil {
		offThread(b.release)
		return setupFailed(fmt.Errorf("exec %s: %w", argv[0], err))
	}
	if b.cg != nil {
		// The shell and init inherited the cgroup; the helper's own
		// threads need not count against the command's limit.
		offThread(b.cg.leave)
	}
	exited := make(chan unix.WaitStatus, 1)
	go func() { exited <- waitPid(pid) }()
	for {
		select {
		case s := <-sigs:
			switch {
			case b.ns:
				// The shell's group is inside the Landlock domain,
				// so the locked thread may signal it.
				_ = unix.Kill(-pid, s.(syscall.Signal))
			case os.Getppid() != b.ppid:
				// wisp is gone: its death signal (process-group mode).
				_ = unix.Kill(pid, unix.SIGKILL)
				ws := <-exited
				offThread(b.release)
				return mirror(ws)
			}
		case ws := <-exited:
			signal.Stop(sigs)
			offThread(b.release)
			return mirror(ws)
		}
	}
}

// offThread runs f on another thread and waits for it. The locked thread
// may no longer signal init (outside its Landlock domain) nor write the
// cgroup files (read-only to Landlock), and has no capabilities left.
func offThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// waitPid waits for pid and returns its status.
func waitPid(pid int) unix.WaitStatus {
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, 0, nil)
		if !errors.Is(err, unix.EINTR) {
			return ws
		}
	}
}

// release ends everything the command left and removes its cgroup. In a
// PID namespace, killing init ends every process in it (the kernel kills
// them and init's exit waits for them); in process-group mode the
// helper, a subreaper, kills its descendants until none are left.
func (b *box) release() {
	if b == nil {
		return
	}
	if b.lifeline != nil {
		// init exits on EOF even if the kill below cannot reach it.
		b.lifeline.Close()
		b.lifeline = nil
	}
	if b.initPid > 0 {
		_ = unix.Kill(b.initPid, unix.SIGKILL)
		waitPid(b.initPid)
		b.initPid = 0
	} else if !b.ns {
		killDescendants(2 * time.Second)
	}
	if b.cg != nil {
		b.cg.remove()
		b.cg = nil
	}
}

// mirror returns the shell's exit status, or ends the helper by the
// signal that ended the shell, so that the caller sees what it would
// have seen running the shell itself.
func mirror(ws unix.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		dieBy(ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ExitSetup
}

// inUserNS reports whether the helper runs in a user namespace other
// than the initial one (its uid map is not the identity over all ids).
func inUserNS() bool {
	data, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	var inside, outside, count uint64
	if _, err := fmt.Sscan(string(data), &inside, &outside, &count); err != nil {
		return false
	}
	return !(inside == 0 && outside == 0 && count == 4294967295)
}
