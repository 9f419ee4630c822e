package host

import (
	"fmt"

	"github.com/wisp-agent/wisp/internal/sandbox"
)

// refuseWithoutHelper makes a session whose binary cannot serve as the
// sandbox helper (IO.NoHelper) refuse every command call with the reason,
// instead of re-executing a program that would not build the sandbox, or
// running the line unconfined. Only `sandbox.enabled: false`, where no
// helper is involved, lets commands run without one. The sandbox is never
// probed then: a probe re-executes the binary too.
func refuseWithoutHelper(gp *gateParts, sys IO) {
	if sys.NoHelper == "" || !gp.opts.Sandbox.Enabled {
		return
	}
	why := fmt.Sprintf("command tools are refused: the sandbox helper cannot start (%s); wisp never runs a command unsandboxed in its place", sys.NoHelper)
	gp.opts.NoCommands = why
	gp.opts.Self = ""
	gp.opts.Support = &sandbox.Support{AutoRunWhy: "the sandbox helper cannot start", Containment: sandbox.ContainProcessGroup}
	gp.sandboxNote = "no helper"
	fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", why)
}
