package proc

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// awaitLeader waits for the leader to exit without reaping it. While it is
// a zombie its pid cannot be reused, so signalling the group by that id
// afterwards can never hit an unrelated process group.
func awaitLeader(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return nil // any other failure shows again in reapLeader
		}
	}
}

// reapLeader collects the leader's exit status.
func reapLeader(cmd *exec.Cmd, _ error) error { return cmd.Wait() }
