package builtin

import (
	"context"
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
func RunLine(ctx context.Context, env *tool.Env, line, dir string, timeout time.Duration) tool.Result {
	if env == nil {
		env = &tool.Env{}
	}
	if timeout <= 0 {
		timeout = env.CommandTimeout
	}
	if timeout <= 0 {
		timeout = bashDefaultTimeout
	}
	if dir == "" {
		dir = env.Workdir
	}
	o, err := proc.Run(ctx, shellCommand(env, line, dir), proc.Options{Timeout: timeout, Dir: env.TempDir, Bound: bashBound(env)})
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

// shellCommand builds the process for line in dir through the gate's
// shell, which wraps the sandbox, falling back to a plain /bin/sh.
func shellCommand(env *tool.Env, line, dir string) *exec.Cmd {
	if env.Shell != nil {
		return env.Shell(line, dir)
	}
	return proc.DefaultShell(line, dir)
}
