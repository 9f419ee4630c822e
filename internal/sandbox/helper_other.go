//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// Available reports that there is no Landlock outside Linux.
func Available() (abi int, ok bool) { return 0, false }

// Main runs the command unsandboxed, saying so on stderr, since there is
// nothing to confine it with here.
func Main(args []string) int {
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "wisp sandbox: want a configuration and a command line, got %d arguments\n", len(args))
		return ExitSetup
	}
	fmt.Fprintln(os.Stderr, "wisp sandbox: this system has no Landlock; the command runs unsandboxed")
	err := syscall.Exec(Shell, []string{Shell, "-c", args[1]}, os.Environ())
	fmt.Fprintf(os.Stderr, "wisp sandbox: exec %s: %v\n", Shell, err)
	return ExitSetup
}
