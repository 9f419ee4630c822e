package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// openSession starts, resumes or forks the transcript and returns the
// conversation to continue. The transcript is read once.
func (rt *runtime) openSession(o Options, sys IO) ([]chat.Message, error) {
	dir := sessionDir(o, rt.cfg, sys.Getenv)
	if o.NoSession {
		if o.Continue || o.Resume != "" || o.Fork {
			return nil, usagef("--no-session cannot be combined with --continue, --resume or --fork")
		}
		return nil, nil
	}
	if o.KeepTurns > 0 && !o.Fork {
		return nil, usagef("--keep-turns needs --fork: it shortens the history of the branch, never the session itself")
	}
	path, err := rt.findSession(o, sys, dir)
	if err != nil {
		return nil, err
	}
	header := transcript.Header{Cwd: sys.Workdir, Provider: rt.choice.Name, Model: rt.choice.Model}
	if path == "" {
		w, err := transcript.Create(dir, header)
		if err != nil {
			return nil, sessionErr("create the session", err)
		}
		rt.session = w
		return nil, nil
	}
	rt.endBurst = gcBurst()
	rt.closers = append(rt.closers, rt.endBurst)
	if o.Fork {
		t, err := transcript.Read(path)
		if err != nil {
			return nil, sessionErr("fork the session", err)
		}
		rt.warnDamage(t, "forking from")
		rt.warnFolder(t)
		if pid := transcript.Holder(path); pid > 0 {
			fmt.Fprintf(sys.Stderr, "wisp: session %s is open in another wisp (pid %d): calls still running there show in the branch as interrupted\n", t.Header.ID, pid)
		}
		kept, dropped := transcript.LastTurns(t.Branch(), o.KeepTurns)
		w, err := transcript.ForkRecords(dir, t, header, kept)
		if err != nil {
			return nil, sessionErr("fork the session", err)
		}
		rt.session = w
		if dropped > 0 {
			fmt.Fprintf(sys.Stderr, "wisp: forked session %s into %s, keeping its last %d turns (%d older ones left out)\n", t.Header.ID, w.ID(), o.KeepTurns, dropped)
		} else {
			fmt.Fprintf(sys.Stderr, "wisp: forked session %s into %s\n", t.Header.ID, w.ID())
		}
		return transcript.Conversation(kept), nil
	}
	w, t, err := transcript.Open(path)
	var busy *transcript.BusyError
	if errors.As(err, &busy) {
		return nil, fmt.Errorf("%w; add --fork to branch it into a new session", err)
	}
	if err != nil {
		return nil, sessionErr("open the session", err)
	}
	rt.session = w
	rt.warnDamage(t, "resuming from")
	rt.warnFolder(t)
	return t.Messages(), nil
}

// warnFolder says when a session started in another folder: its
// history speaks of that folder, while this run's tools work here.
func (rt *runtime) warnFolder(t *transcript.Transcript) {
	cwd := t.Header.Cwd
	if cwd == "" || cwd == rt.sys.Workdir {
		return
	}
	fmt.Fprintf(rt.sys.Stderr, "wisp: session %s was started in %s; this run works in %s (wisp -C %s -r %s works there)\n",
		t.Header.ID, transcript.Escape(cwd), transcript.Escape(rt.sys.Workdir), transcript.Escape(shellWord(cwd)), t.Header.ID)
}

// findSession resolves --resume and --continue to a transcript's path;
// "" starts a new session.
func (rt *runtime) findSession(o Options, sys IO, dir string) (string, error) {
	switch {
	case o.Continue && o.Resume != "":
		return "", usagef("use --continue or --resume, not both")
	case o.Resume != "":
		path, err := transcript.Find(dir, o.Resume)
		if err != nil {
			return "", usagef("--resume %s: %s", transcript.Escape(o.Resume), transcript.Escape(err.Error()))
		}
		return path, nil
	case o.Continue:
		path, err := transcript.Latest(dir, sys.Workdir)
		var damaged *transcript.DamagedError
		switch {
		case errors.As(err, &damaged):
			return "", fmt.Errorf("--continue: %v; start without --continue, or resume another session with --resume (wisp sessions lists them)", err)
		case errors.Is(err, transcript.ErrNotFound):
			if o.Fork {
				return "", usagef("--fork: no earlier session in %s to fork", transcript.Escape(sys.Workdir))
			}
			fmt.Fprintf(sys.Stderr, "wisp: no earlier session in %s; starting a new one\n", transcript.Escape(sys.Workdir))
			return "", nil
		case err != nil:
			return "", sessionErr("--continue", err)
		}
		return path, nil
	case o.Fork:
		return "", usagef("--fork needs --continue or --resume: it branches an earlier session")
	}
	return "", nil
}

// sessionErr words a failure to open a transcript with control bytes
// escaped: paths and decoder messages can carry bytes from the files.
func sessionErr(what string, err error) error {
	return errors.New(what + ": " + transcript.Escape(err.Error()))
}

// maxDamageWarnings bounds the lines named when a file has many bad ones.
const maxDamageWarnings = 3

// warnDamage names the malformed lines no earlier run has handled, and
// says where the conversation goes on.
func (rt *runtime) warnDamage(t *transcript.Transcript, doing string) {
	un := t.Unhandled()
	if len(un) == 0 {
		return
	}
	for i, d := range un {
		if i == maxDamageWarnings {
			fmt.Fprintf(rt.sys.Stderr, "wisp: warning: … and %d more malformed lines\n", len(un)-i)
			break
		}
		fmt.Fprintf(rt.sys.Stderr, "wisp: warning: %v\n", d)
	}
	where := "the start of the session"
	if t.Leaf >= 0 {
		where = fmt.Sprintf("the last good record before line %d", un[0].Line)
	}
	fmt.Fprintf(rt.sys.Stderr, "wisp: warning: %s %s; the damaged part stays in %s, nothing is deleted\n", doing, where, transcript.Escape(t.Path))
}

// record keeps what a transcript needs (transcript.Writer.Record decides).
// The first failed write is reported once: nothing more is written (a
// transcript with a hole would resume as a different conversation), the
// gate refuses command and mutating tools for the rest of the run, and
// the run ends with exit code 1.
func (rt *runtime) record(e event.Event) {
	rt.recordMu.Lock()
	defer rt.recordMu.Unlock()
	if e.Type == event.Error && strings.HasPrefix(e.Error, agent.ErrContextOverflow.Error()) {
		// Frontends wrap the run's error as text; the event says it.
		rt.overflowed = true
	}
	if rt.transcriptErr != nil {
		return
	}
	if err := rt.session.Record(e); err != nil {
		rt.failTranscript(err)
	}
}

// transcriptFailed reports a failure outside the event path (closing).
func (rt *runtime) transcriptFailed(err error) {
	rt.recordMu.Lock()
	defer rt.recordMu.Unlock()
	rt.failTranscript(err)
}

func (rt *runtime) failTranscript(err error) {
	if rt.transcriptErr != nil {
		return
	}
	rt.transcriptErr = err
	fmt.Fprintf(rt.sys.Stderr, "wisp: warning: the session transcript cannot be written (%s); command and mutating tools are refused from now on, and wisp ends after this turn with exit code 1\n", transcript.Escape(err.Error()))
	if rt.gate != nil {
		rt.gate.FailClosed("transcript unavailable: " + transcript.Escape(err.Error()))
	}
}

// transcriptBroken says whether a transcript write has failed: an
// interactive run then ends after the turn, as a print run does.
func (rt *runtime) transcriptBroken() bool {
	rt.recordMu.Lock()
	defer rt.recordMu.Unlock()
	return rt.transcriptErr != nil
}

// finish turns what a run left behind into its error: a transcript that
// could not be written fails the run even when the answer came, and a
// context overflow is followed by how to go on.
func (rt *runtime) finish(err error) error {
	rt.recordMu.Lock()
	overflowed := rt.overflowed
	rt.recordMu.Unlock()
	if (overflowed || errors.Is(err, agent.ErrContextOverflow)) && rt.session != nil {
		id := rt.session.ID()
		fmt.Fprintf(rt.sys.Stderr, "wisp: session %s is kept and can be resumed, but its history will not fit this model either; to go on, start a new session, or branch it with a shorter history: `wisp --resume %s --fork --keep-turns 3` (/compact will shorten a session once it exists)\n", id, id)
	}
	if err == nil && rt.transcriptBroken() {
		return fmt.Errorf("%w: the session transcript could not be written", errReported)
	}
	return err
}
