//go:build !linux

package proc

import "os/exec"

// awaitLeader waits for the leader and reaps it: without waitid(WNOWAIT)
// the group is signalled after the reap, which leaves a small window for
// the id to be reused.
func awaitLeader(cmd *exec.Cmd) error { return cmd.Wait() }

// reapLeader returns what awaitLeader already collected.
func reapLeader(_ *exec.Cmd, err error) error { return err }
