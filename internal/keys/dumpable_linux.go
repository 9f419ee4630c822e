package keys

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// nonDumpable stops processes of the same user (the commands wisp runs
// among them) from reading /proc/<pid>/{environ,mem,maps,fd} of wisp and
// from ptrace-attaching to it: the kernel then asks for CAP_SYS_PTRACE,
// which the sandbox helper drops. execve resets the flag, so every wisp
// process sets it again.
//
// One case is left out: a wisp without CAP_SYS_ADMIN that may create user
// namespaces. The sandbox then starts its helper in a new user namespace,
// and the parent writes the child's uid_map, which the kernel refuses for
// a child forked from a non-dumpable process. There the user namespace
// does the same work: a command in a child user namespace lacks
// CAP_SYS_PTRACE in wisp's namespace, so the kernel refuses it ptrace,
// /proc/<pid>/mem and environ of wisp whatever the flag says.
func nonDumpable() error {
	if helperNeedsUserNS() {
		return nil
	}
	return clearDumpable()
}

func clearDumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

// helperNeedsUserNS mirrors the sandbox's choice: without CAP_SYS_ADMIN
// it makes its namespaces inside an unprivileged user namespace, where
// the system allows one.
func helperNeedsUserNS() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if unix.Capget(&hdr, &data[0]) == nil && data[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) != 0 {
		return false
	}
	for file, off := range map[string]string{
		"/proc/sys/user/max_user_namespaces":                     "0",
		"/proc/sys/kernel/unprivileged_userns_clone":             "0",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
	} {
		if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) == off {
			return false
		}
	}
	return true
}

// self is the running binary; /proc/self/exe still works when the file
// was replaced or removed since wisp started.
func self() (string, error) { return "/proc/self/exe", nil }
