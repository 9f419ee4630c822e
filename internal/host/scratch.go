package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/internal/durable"
)

// scratchPrefix names a run's private folder in the temporary folder.
const scratchPrefix = "wisp-run-"

// commandTempName is the folder inside a run's scratch folder that its
// commands get as their temporary folder. It is a folder of its own, not
// the scratch folder itself, so that a command can neither remove the
// lock that marks the run alive (durable.Scratch: a next run would take
// the folder for a dead one's) nor touch the output wisp spills there.
const commandTempName = "tmp"

// runTemp is where a run keeps its temporary files.
type runTemp struct {
	// spill is where tools spill output: the scratch folder, or the
	// first candidate parent when no scratch folder could be made.
	spill string
	// commands is the commands' temporary folder (sandbox.Config.TempDir),
	// "" when no folder a command may write could be made.
	commands string
	// why says why commands is empty.
	why string
}

// openScratch makes this run's private folder, in the first of parents
// where that works and where refused (the sandbox's verdict on a
// commands' folder, "" for writable) has nothing against it: the files
// tools spill (a command's full output once it outgrows what is kept in
// memory) and, beneath it, the commands' temporary folder, mode 0700. The
// folder goes when the run closes, after every other closer has run, so
// no managed process still writes to it; a run killed outright leaves it
// to the next run, which removes it (durable.RemoveStaleScratch). When no
// parent will do for commands, the first folder made still takes the
// spilled output; when none could be made at all, tools spill into the
// first parent itself and nothing removes what they leave.
func (s *Session) openScratch(parents []string, refused func(dir string) string) runTemp {
	var (
		whys  []string
		spill *durable.Scratch
	)
	keep := func(sc *durable.Scratch) {
		// Closers run last first: the first one runs after all the others.
		s.closers = append([]func(){func() { _ = sc.Close() }}, s.closers...)
	}
	// A run killed outright may have used a later parent than this one
	// will; its leftovers go too (OpenScratch cleans only its own).
	for _, parent := range parents[1:] {
		_, _ = durable.RemoveStaleScratch(parent, scratchPrefix)
	}
	for _, parent := range parents {
		sc, err := durable.OpenScratch(parent, scratchPrefix)
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		dir := filepath.Join(sc.Dir(), commandTempName)
		err = os.Mkdir(dir, 0o700)
		if err == nil {
			if why := refused(dir); why != "" {
				err = errors.New(why)
			}
		}
		if err != nil {
			whys = append(whys, fmt.Sprintf("%s: %v", dir, err))
			if spill == nil {
				spill = sc
			} else {
				_ = sc.Close()
			}
			continue
		}
		if spill != nil {
			_ = spill.Close()
		}
		keep(sc)
		return runTemp{spill: sc.Dir(), commands: dir}
	}
	t := runTemp{spill: parents[0], why: strings.Join(whys, "; ")}
	if spill != nil {
		keep(spill)
		t.spill = spill.Dir()
	} else {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: %s; spilled command output goes to %s and is not removed\n", t.why, t.spill)
	}
	return t
}
