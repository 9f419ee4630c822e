// Package resume finds the earlier session a run goes on from (what
// --continue, --resume and --fork name) and words what the person is told
// about it: damaged lines, a session started in another folder, a
// transcript that cannot be opened. It reads transcripts only through
// the transcript package and must never write one or start a session.
package resume

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// Which is what the flags ask for: the latest session of the folder
// (Continue), one named by id or prefix (Resume), and whether to branch
// it (Fork).
type Which struct {
	Continue bool
	Resume   string
	Fork     bool
}

// Find resolves --resume and --continue to a transcript's path in dir;
// "" starts a new session. A session the flags do not allow is a
// config.UsageError; stderr is told when --continue finds none.
func Find(w Which, workdir, dir string, stderr io.Writer) (string, error) {
	switch {
	case w.Continue && w.Resume != "":
		return "", config.Usagef("use --continue or --resume, not both")
	case w.Resume != "":
		path, err := transcript.Find(dir, w.Resume)
		if err != nil {
			return "", config.Usagef("--resume %s: %s", transcript.Escape(w.Resume), transcript.Escape(err.Error()))
		}
		return path, nil
	case w.Continue:
		path, err := transcript.Latest(dir, workdir)
		var damaged *transcript.DamagedError
		switch {
		case errors.As(err, &damaged):
			return "", fmt.Errorf("--continue: %v; start without --continue, or resume another session with --resume (wisp sessions lists them)", err)
		case errors.Is(err, transcript.ErrNotFound):
			if w.Fork {
				return "", config.Usagef("--fork: no earlier session in %s to fork", transcript.Escape(workdir))
			}
			fmt.Fprintf(stderr, "wisp: no earlier session in %s; starting a new one\n", transcript.Escape(workdir))
			return "", nil
		case err != nil:
			return "", Err("--continue", err)
		}
		return path, nil
	case w.Fork:
		return "", config.Usagef("--fork needs --continue or --resume: it branches an earlier session")
	}
	return "", nil
}

// Err words a failure to open a transcript with control bytes escaped:
// paths and decoder messages can carry bytes from the files.
func Err(what string, err error) error {
	return errors.New(what + ": " + transcript.Escape(err.Error()))
}

// maxDamageWarnings bounds the lines named when a file has many bad ones.
const maxDamageWarnings = 3

// WarnDamage names the malformed lines no earlier run has handled, and
// says where the conversation goes on.
func WarnDamage(stderr io.Writer, t *transcript.Transcript, doing string) {
	un := t.Unhandled()
	if len(un) == 0 {
		return
	}
	for i, d := range un {
		if i == maxDamageWarnings {
			fmt.Fprintf(stderr, "wisp: warning: … and %d more malformed lines\n", len(un)-i)
			break
		}
		fmt.Fprintf(stderr, "wisp: warning: %v\n", d)
	}
	where := "the start of the session"
	if t.Leaf >= 0 {
		where = fmt.Sprintf("the last good record before line %d", un[0].Line)
	}
	fmt.Fprintf(stderr, "wisp: warning: %s %s; the damaged part stays in %s, nothing is deleted\n", doing, where, transcript.Escape(t.Path))
}

// WarnFolder says when a session started in another folder than
// workdir: its history speaks of that folder, while this run's tools
// work here.
func WarnFolder(stderr io.Writer, t *transcript.Transcript, workdir string) {
	cwd := t.Header.Cwd
	if cwd == "" || cwd == workdir {
		return
	}
	fmt.Fprintf(stderr, "wisp: session %s was started in %s; this run works in %s (wisp -C %s -r %s works there)\n",
		t.Header.ID, transcript.Escape(cwd), transcript.Escape(workdir), transcript.Escape(ShellWord(cwd)), t.Header.ID)
}

// ShellWord quotes s for a POSIX shell when it needs it, so that a
// command wisp suggests can be pasted as shown.
func ShellWord(s string) string {
	safe := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./-+,:@%=~", r))
	})
	if safe && !strings.HasPrefix(s, "~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
