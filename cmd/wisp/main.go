// Command wisp is a coding agent for the terminal.
package main

import (
	"context"
	"os"

	"github.com/wisp-agent/wisp/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.Environ()))
}
