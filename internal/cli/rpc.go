package cli

import (
	"context"
	"syscall"

	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/frontend/rpc"
	"github.com/wisp-agent/wisp/internal/host"
)

// rpcMode serves the JSONL RPC (docs/rpc.md) on stdin and stdout until
// shutdown or the end of stdin (exit 0), or an end signal (SIGINT,
// SIGTERM, SIGHUP: the run is cancelled and the session closed with the
// signal as its closing record, exit 128+n). Every tool is exposed, as
// in the interactive mode: the client answers the approval_request
// events, unless --yes approves every call.
func rpcMode(ctx context.Context, o Options, sys IO) error {
	switch {
	case o.Print:
		return usagef("--mode rpc reads its prompts from stdin; it cannot be combined with -p")
	case len(o.Args) > 0:
		return usagef("--mode rpc takes no prompt on the command line (send a prompt command on stdin), not %q", o.Args[0])
	}
	fe := host.Frontend{Mode: "rpc", Interactive: true, Events: true}
	s, err := host.New(ctx, o.Options, sys, fe)
	if err != nil {
		return err
	}
	ctx, ended := frontend.OnEndSignal(ctx)
	defer ended()
	why := func() string {
		if sig, ok := ended().(syscall.Signal); ok {
			return frontend.SignalName(sig)
		}
		return "interrupted"
	}
	err = rpc.Serve(ctx, s, rpc.Config{
		In: sys.Stdin, Out: sys.Stdout, Stderr: sys.Stderr, Why: why,
		Open: func(ctx context.Context, o host.Options) (*host.Session, error) { return host.New(ctx, o, sys, fe) },
	})
	if sig, ok := ended().(syscall.Signal); ok {
		return &frontend.SignalExit{Sig: sig}
	}
	return err
}
