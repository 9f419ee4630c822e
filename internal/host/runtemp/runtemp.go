// Package runtemp holds a run's temporary folders: the private folder a
// run spills tool output into, the commands' own temporary folder beneath
// it, where they may go, and the sandbox's verdict on them. It runs no
// command and knows no session; package host opens one per run.
package runtemp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/durable"
	"github.com/wisp-agent/wisp/internal/sandbox"
)

// Prefix names a run's private folder in the temporary folder.
const Prefix = "wisp-run-"

// CommandsName is the folder inside a run's scratch folder that its
// commands get as their temporary folder. It is a folder of its own, not
// the scratch folder itself, so that a command can neither remove the
// lock that marks the run alive (durable.Scratch: a next run would take
// the folder for a dead one's) nor touch the output wisp spills there.
const CommandsName = "tmp"

// Temp is where a run keeps its temporary files.
type Temp struct {
	// Spill is where tools spill output: the scratch folder, or the
	// first candidate parent when no scratch folder could be made.
	Spill string
	// Commands is the commands' temporary folder (sandbox.Config.TempDir),
	// "" when no folder a command may write could be made.
	Commands string
	// Why says why Commands is empty.
	Why string
}

// Open makes this run's private folder, in the first of parents
// where that works and where refused (the sandbox's verdict on a
// commands' folder, "" for writable) has nothing against it: the files
// tools spill (a command's full output once it outgrows what is kept in
// memory) and, beneath it, the commands' temporary folder, mode 0700. The
// folder goes when the run closes, after every other closer has run, so
// no managed process still writes to it; a run killed outright leaves it
// to the next run, which removes it (durable.RemoveStaleScratch). The
// caller runs remove after every other closer of the run. When no
// parent will do for commands, the first folder made still takes the
// spilled output; when none could be made at all, tools spill into the
// first parent itself and nothing removes what they leave.
func Open(parents []string, refused func(dir string) string, stderr io.Writer) (t Temp, remove func()) {
	var (
		whys  []string
		spill *durable.Scratch
	)
	remove = func() {}
	keep := func(sc *durable.Scratch) { remove = func() { _ = sc.Close() } }
	// A run killed outright may have used a later parent than this one
	// will; its leftovers go too (OpenScratch cleans only its own).
	for _, parent := range parents[1:] {
		_, _ = durable.RemoveStaleScratch(parent, Prefix)
	}
	for _, parent := range parents {
		sc, err := durable.OpenScratch(parent, Prefix)
		if err != nil {
			whys = append(whys, err.Error())
			continue
		}
		dir := filepath.Join(sc.Dir(), CommandsName)
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
		return Temp{Spill: sc.Dir(), Commands: dir}, remove
	}
	t = Temp{Spill: parents[0], Why: strings.Join(whys, "; ")}
	if spill != nil {
		keep(spill)
		t.Spill = spill.Dir()
	} else {
		fmt.Fprintf(stderr, "wisp: warning: %s; spilled command output goes to %s and is not removed\n", t.Why, t.Spill)
	}
	return t, remove
}

// Fix says whether to tell the person that root stays read-only, and
// what to add when root is a temporary folder. Commands that have a
// temporary folder of their own miss nothing, so a shared one that stays
// read-only is not worth a line on every start; with none, the line says
// what the person can do about it.
func Fix(root, tmp string, temp Temp) (fix string, tell bool) {
	if !slices.Contains([]string{Resolved(tmp), Resolved(os.TempDir()), Resolved("/tmp")}, root) {
		return "", true
	}
	if temp.Commands != "" {
		return "", false
	}
	return "; commands have no writable temporary folder: set TMPDIR to a folder outside the wisp home", true
}

// Resolved is p with its symlinks followed, as the sandbox names roots.
func Resolved(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// Parents lists where a run's private folder may go, best first: the
// temporary folder the person chose ($TMPDIR, else the system's), then
// the system's own. Never the workspace, even when these all lie in the
// wisp home: wisp keeps nothing there but what the person asks for, and
// a folder of temporary files in a project would show in git status, be
// walked by grep and find, and, under .wisp/, sit among the files that
// configure wisp. With none of them usable wisp says how to give it one.
func Parents(getenv func(string) string) []string {
	out := []string{Dir(getenv)}
	for _, p := range []string{"/tmp", "/var/tmp"} {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// Refused is the sandbox's verdict on dir as the commands' temporary
// folder: why it would stay read-only (it lies in the wisp home), ""
// when commands may write it.
func Refused(wispHome, workdir string) func(dir string) string {
	return func(dir string) string {
		roots, err := sandbox.WritableRoots(sandbox.Config{Enabled: true, Workdir: workdir, WispHome: wispHome, TempDir: dir})
		if err != nil {
			return err.Error()
		}
		for _, r := range roots.Refused {
			if r.Path == Resolved(dir) {
				return "stays read-only to commands: " + r.Reason
			}
		}
		return ""
	}
}

// Dir is the temporary folder the person chose ($TMPDIR), else the
// system's.
func Dir(getenv func(string) string) string {
	if t := getenv("TMPDIR"); t != "" {
		return t
	}
	return os.TempDir()
}
