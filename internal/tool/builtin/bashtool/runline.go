package bashtool

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/proc"
	"github.com/wisp-agent/wisp/internal/tool"
)

// RunLine runs one shell line to its end as bash's run operation does and
// reports it in bash's words: the process comes from env.Shell (the gate's
// sandbox), the output is bounded by env's limits, and Result.Command tells
// the gate how it ended. It runs in dir (empty: env.Workdir). A timeout of
// 0 means env.CommandTimeout, or 60 s when that is 0 too. Other command
// tools (custom tools) call it so that a line runs the same way whichever
// tool asked for it; deciding whether it may run is the gate's job.
// Without env.Shell nothing runs and the result says why.
func RunLine(ctx context.Context, env *tool.Env, line, dir string, timeout time.Duration) tool.Result {
	cmd, err := shellCommand(env, line, dir)
	if err != nil {
		return tool.Errorf("could not run the command: %v", err)
	}
	if timeout <= 0 {
		timeout = env.CommandTimeout
	}
	if timeout <= 0 {
		timeout = bashDefaultTimeout
	}
	o, err := proc.Run(ctx, cmd, proc.Options{Timeout: timeout, Dir: env.TempDir, Bound: bashBound(env)})
	if err != nil {
		return tool.Errorf("could not run the command: %v", err)
	}
	var w strings.Builder
	writeBashExit(&w, o)
	switch o.State {
	case proc.TimedOut:
		fmt.Fprintf(&w, "timed_out: after %s the process group was ended\n", bashSeconds(timeout))
	case proc.Killed:
		// The run was stopped (Ctrl-C, a signal to wisp, a cancel):
		// the model is told so, not left to guess from the signal.
		w.WriteString("canceled: the run was interrupted before the command finished; the process group was ended\n")
	}
	writeBashStreams(&w, o, "(no output)")
	return tool.Result{Content: w.String(), IsError: o.State != proc.Exited, Command: commandOutcome(o)}
}

// errNoShell is why a command tool that was handed no shell runs
// nothing: a process built any other way would run outside the sandbox.
var errNoShell = errors.New("no shell was supplied: commands run only through wisp's gate, which wraps them in the sandbox")

// shellCommand builds the process for line through the gate's shell, in
// dir (empty: env.Workdir). There is deliberately no fallback.
func shellCommand(env *tool.Env, line, dir string) (*exec.Cmd, error) {
	if env == nil || env.Shell == nil {
		return nil, errNoShell
	}
	if dir == "" {
		dir = env.Workdir
	}
	return env.Shell(line, dir), nil
}
