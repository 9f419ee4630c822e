// Command wisp is a coding agent for the terminal.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/wisp-agent/wisp/internal/cli"
	"github.com/wisp-agent/wisp/internal/keys"
	"github.com/wisp-agent/wisp/internal/sandbox"
)

func main() { os.Exit(run()) }

// run dispatches the process: the sandbox helper, or wisp itself.
func run() int {
	// wisp re-executes itself as the sandbox helper for every command.
	// The helper holds no key (its environment is sandbox.CommandEnv)
	// and becomes the command, so it neither moves keys nor stays
	// non-dumpable.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		return sandbox.Main(os.Args[2:])
	}
	// Before anything else: the provider keys leave the environment
	// (wisp re-executes itself without them) and wisp becomes
	// non-dumpable, so no command can read a key from /proc/<pid>.
	store, err := keys.Start(os.Args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wisp: %v\n", err)
		return cli.ExitFailure
	}
	sys := cli.Environ()
	sys.Getenv = store.Getenv(sys.Getenv)
	return cli.Main(context.Background(), os.Args[1:], sys)
}
