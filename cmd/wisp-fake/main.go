// Command wisp-fake serves wisp's scripted fake model provider, speaking
// both the Anthropic Messages API and the OpenAI Chat Completions API, for
// demos and benchmarks without a network. It prints the base URL on
// standard output and serves until it is interrupted.
//
//	wisp-fake [-addr 127.0.0.1:0] [-script FILE] [-context-limit TOKENS]
//
// Without -script it plays the built-in demo (an ls call, then a summary).
// -context-limit refuses larger requests with the provider's
// context-overflow error, overriding the script's context_limit.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves until ctx ends and returns the exit code: 0 after a clean
// stop, 1 when the script or the address fails, 2 for a usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wisp-fake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	scriptPath := fs.String("script", "", "JSON script of turns (default: the built-in demo)")
	limit := fs.Int("context-limit", -1, "refuse requests of more input tokens than this with a context-overflow error (default: the script's context_limit; 0: none)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wisp-fake: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	script := fake.Demo()
	if *scriptPath != "" {
		var err error
		if script, err = fake.LoadScript(*scriptPath); err != nil {
			fmt.Fprintf(stderr, "wisp-fake: %v\n", err)
			return 1
		}
	}
	if *limit >= 0 {
		script.ContextLimit = *limit
	}
	srv, err := fake.Listen(*addr, script)
	if err != nil {
		fmt.Fprintf(stderr, "wisp-fake: %v\n", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintln(stdout, srv.URL())
	<-ctx.Done()
	return 0
}
