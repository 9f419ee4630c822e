//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropCapabilities empties the calling thread's bounding, ambient,
// inheritable, permitted and effective capability sets, so that the shell
// (even as root, whose exec would otherwise regain the bounding set) holds
// none: it cannot ptrace or signal wisp past the kernel's capability
// checks, nor undo the mounts that hide secrets. Without CAP_SETPCAP the
// bounding set cannot be changed, and then need not be: such a process
// is not root in its namespace and regains nothing on exec, since
// no_new_privs ignores file capabilities.
func dropCapabilities() error {
	last := lastCap()
	for c := 0; c <= last; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // beyond what this kernel knows
		}
		if err != nil && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(string(bytes.TrimSpace(b))); err == nil {
			return n
		}
	}
	return 63
}

// dieBy ends the helper by sig, as the shell ended, with the default
// action restored first: Go's runtime would otherwise turn SIGQUIT or
// SIGABRT into a stack dump and exit status 2. No core is written.
// It returns only if sig does not end a process.
func dieBy(sig syscall.Signal) {
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	// struct kernel_sigaction: handler, flags, restorer, mask.
	var act [4]uint64 // SIG_DFL is 0
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	var mask unix.Sigset_t
	bit := uint(sig) - 1
	mask.Val[bit/64] = 1 << (bit % 64)
	_ = unix.PthreadSigmask(unix.SIG_UNBLOCK, &mask, nil)
	_ = unix.Tgkill(unix.Getpid(), unix.Gettid(), sig)
	time.Sleep(100 * time.Millisecond) // delivery is asynchronous for some signals
}

// killDescendants kills every descendant of the helper until none is
// left, reaping them as they become its children (it is a subreaper), or
// until the deadline passes.
func killDescendants(within time.Duration) {
	deadline := time.Now().Add(within)
	self := os.Getpid()
	for time.Now().Before(deadline) {
		for _, pid := range descendants(self) {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		reaped := false
		for {
			pid, err := unix.Wait4(-1, nil, unix.WNOHANG|unix.WALL, nil)
			if pid > 0 {
				reaped = true
				continue
			}
			if errors.Is(err, unix.ECHILD) {
				return // no children left, so no descendants either
			}
			break
		}
		if !reaped {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// descendants lists the processes below root, from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(pid); pp > 0 {
			children[pp] = append(children[pp], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads pid's parent from /proc/PID/stat, 0 if it is gone.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	var state byte
	var ppid int
	if _, err := fmt.Sscanf(string(b[i+1:]), " %c %d", &state, &ppid); err != nil {
		return 0
	}
	return ppid
}
