//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// Available reports that there is no Landlock outside Linux.
func Available() (abi int, ok bool) { return 0, false }

// Probe reports that outside Linux there is neither Landlock nor a
// namespace: no auto-run profile, and process groups alone contain.
func Probe() Support {
	return Support{AutoRunWhy: "the auto-run sandbox needs Linux", Containment: ContainProcessGroup}
}

// platformAttr starts the helper leading its own process group.
func platformAttr(Config) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// Main runs the command unsandboxed, saying so on stderr, since there is
// nothing to confine it with here; it refuses an auto-run command.
func Main(args []string) int {
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "wisp sandbox: want a configuration and a command line, got %d arguments\n", len(args))
		return ExitSetup
	}
	if autoRun(args[0]) {
		fmt.Fprintln(os.Stderr, "wisp sandbox: the auto-run sandbox cannot be built: it needs Linux")
		return ExitSetup
	}
	fmt.Fprintln(os.Stderr, "wisp sandbox: this system has no Landlock; the command runs unsandboxed")
	argv := shellArgv(args[1])
	err := syscall.Exec(argv[0], argv, CommandEnv(os.Environ()))
	fmt.Fprintf(os.Stderr, "wisp sandbox: exec %s: %v\n", argv[0], err)
	return ExitSetup
}

// WorkspaceTooLarge has nothing to say where there is no auto-run
// profile at all.
func WorkspaceTooLarge(string) string { return "" }
