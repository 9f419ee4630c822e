// Command wisp is a coding agent for the terminal.
package main

import (
	"context"
	"os"

	"github.com/wisp-agent/wisp/internal/cli"
	"github.com/wisp-agent/wisp/internal/sandbox"
)

func main() {
	// wisp re-executes itself as the sandbox helper for every command.
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Environ()))
}
