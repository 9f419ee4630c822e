package cli

import (
	"fmt"

	"github.com/wisp-agent/wisp/internal/durable"
)

// scratchPrefix names a run's private folder in the temporary folder.
const scratchPrefix = "wisp-run-"

// openScratch makes this run's private folder under tmp for the files
// tools spill (a command's full output once it outgrows what is kept in
// memory), and returns the folder tools are to use. The folder goes when
// the run closes, after every other closer has run, so no managed process
// still writes to it; a run killed outright leaves it to the next run,
// which removes it (durable.OpenScratch). When it cannot be made, tools
// spill into tmp itself, as before.
func (rt *runtime) openScratch(tmp string) string {
	s, err := durable.OpenScratch(tmp, scratchPrefix)
	if err != nil {
		fmt.Fprintf(rt.sys.Stderr, "wisp: warning: %v; spilled command output goes to %s and is not removed\n", err, tmp)
		return tmp
	}
	// Closers run last first: the first one runs after all the others.
	rt.closers = append([]func(){func() { _ = s.Close() }}, rt.closers...)
	return s.Dir()
}
