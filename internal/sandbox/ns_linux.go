//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/sandbox/conceal"
	"io"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wisp-agent/wisp/internal/secrets"
	"golang.org/x/sys/unix"
)

// initReady is what init writes on its pipe once /proc is mounted.
const initReady = "ok"

// startInit starts the PID namespace's init from the locked thread: the
// helper again, with initArg. It is the first process of the namespace,
// so it becomes its pid 1, and everything the command orphans is
// reparented to it; when it dies the kernel kills everything in the
// namespace. It leads a session of its own so that no group signal
// reaches it, reports on fd 3 once it has mounted /proc, and ends when
// the helper does: it reads fd 4, a pipe whose other end (returned) only
// the helper holds, and which therefore reads EOF when the helper is
// gone, however it ended. A pid is returned whenever init was started, so
// that the caller can end it even on error.
func startInit() (int, *os.File, error) {
	ready, readyW, err := os.Pipe()
	if err != nil {
		return 0, nil, fmt.Errorf("start init: %w", err)
	}
	defer ready.Close()
	lifeR, lifeline, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return 0, nil, fmt.Errorf("start init: %w", err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		readyW.Close()
		lifeR.Close()
		lifeline.Close()
		return 0, nil, fmt.Errorf("start init: %w", err)
	}
	attr := &syscall.ProcAttr{
		Env:   CommandEnv(os.Environ()),
		Files: []uintptr{null.Fd(), null.Fd(), 2, readyW.Fd(), lifeR.Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	}
	// /proc/self/exe reaches the binary even when its path is hidden. The
	// init keeps the helper's argv[0], so that a program which dispatches
	// on its name (a test binary run as "wisp") reaches Main again rather
	// than starting afresh inside every command's sandbox.
	pid, err := syscall.ForkExec("/proc/self/exe", []string{os.Args[0], HelperArg, initArg}, attr)
	readyW.Close()
	lifeR.Close()
	null.Close()
	if err != nil {
		lifeline.Close()
		return 0, nil, fmt.Errorf("start init: %w", err)
	}
	_ = ready.SetReadDeadline(time.Now().Add(10 * time.Second))
	msg, err := io.ReadAll(io.LimitReader(ready, 4096))
	switch {
	case err != nil:
		return pid, lifeline, fmt.Errorf("wait for init: %w", err)
	case string(msg) != initReady:
		return pid, lifeline, fmt.Errorf("init: %s", strings.TrimSpace(string(msg)))
	}
	return pid, lifeline, nil
}

// initMain is the PID namespace's init. It mounts a fresh /proc (a proc
// mount shows the PID namespace of the process that mounts it, so the
// helper, outside the namespace, cannot do it), says so on fd 3, and then
// reaps orphans until the helper is gone (fd 4 reads EOF, or its
// parent-death signal arrives). It ignores every signal it can: a command
// that signals pid 1 must not end its own containment by accident, and
// the kernel already ignores signals without a handler that reach a
// namespace's init from inside.
func initMain() int {
	signal.Ignore(unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT, unix.SIGUSR1, unix.SIGUSR2,
		unix.SIGPIPE, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU, unix.SIGALRM)
	// Sent by the kernel from the helper's (ancestor) namespace, so it
	// reaches init; Go's own parent-death check cannot see across.
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	lifeline := os.NewFile(4, "lifeline")
	go func() {
		_, _ = io.Copy(io.Discard, lifeline)
		os.Exit(0)
	}()
	children := make(chan os.Signal, 1)
	signal.Notify(children, unix.SIGCHLD)

	ready := os.NewFile(3, "ready")
	status := initReady
	if os.Getpid() != 1 {
		status = fmt.Sprintf("not the namespace's init (pid %d)", os.Getpid())
	} else if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		status = fmt.Sprintf("mount a /proc for the PID namespace: %v", err)
	}
	_, _ = io.WriteString(ready, status)
	ready.Close()
	for {
		for {
			pid, err := unix.Wait4(-1, nil, unix.WNOHANG|unix.WALL, nil)
			if pid <= 0 && !errors.Is(err, unix.EINTR) {
				break
			}
		}
		<-children
	}
}

// hideSecrets covers, in the helper's own mount namespace, every
// credential location that exists (internal/secrets, resolved against
// HOME and the account's home folder) and the wisp home: an empty
// read-only tmpfs over a folder, /dev/null over anything else. Mounts sit
// on what a path resolves to, so a secret stays hidden however a command
// spells its path (.., a symlink in the workspace, a glob, or
// /proc/PID/root, which in the fresh /proc is a process of the command).
// Locations in /proc are left to that fresh /proc, which holds no process
// but the command's own.
func hideSecrets(cfg Config) error {
	var hidden []string
	for _, p := range secretPaths(cfg) {
		fi, err := os.Stat(p)
		if err != nil {
			continue // nothing there to read
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil || slices.Contains(hidden, real) {
			continue
		}
		if err := conceal.Hide(real, fi.IsDir()); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
		hidden = append(hidden, real)
	}
	return nil
}

// secretPaths lists the paths to hide, globs expanded: the credential
// locations under every home folder the command may know, and the wisp
// home.
func secretPaths(cfg Config) []string {
	homes := []string{os.Getenv("HOME")}
	if u, err := user.Current(); err == nil {
		homes = append(homes, u.HomeDir)
	}
	var out []string
	for _, home := range homes {
		if home == "" || !filepath.IsAbs(home) {
			continue
		}
		home = filepath.Clean(home)
		for _, l := range secrets.List() {
			pat, ok := l.Abs(home)
			if !ok || strings.HasPrefix(pat, "/proc/") {
				continue
			}
			matches, _ := filepath.Glob(pat) // only ErrBadPattern, never for the list
			out = append(out, matches...)
		}
		out = append(out, filepath.Join(home, ".wisp"))
	}
	if cfg.WispHome != "" {
		out = append(out, absClean(cfg.WispHome))
	}
	return out
}
