package host

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/host/resume"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// openSession starts, resumes or forks the transcript and returns the
// conversation to continue. The transcript is read once.
func (s *Session) openSession(o Options, sys IO) ([]chat.Message, error) {
	dir := sessionDir(o, s.cfg, sys.Getenv)
	if o.NoSession {
		if o.Continue || o.Resume != "" || o.Fork {
			return nil, usagef("--no-session cannot be combined with --continue, --resume or --fork")
		}
		return nil, nil
	}
	if o.KeepTurns > 0 && !o.Fork {
		return nil, usagef("--keep-turns needs --fork: it shortens the history of the branch, never the session itself")
	}
	path, err := resume.Find(resume.Which{Continue: o.Continue, Resume: o.Resume, Fork: o.Fork}, sys.Workdir, dir, sys.Stderr)
	if err != nil {
		return nil, err
	}
	header := transcript.Header{Cwd: sys.Workdir, Provider: s.choice.Name, Model: s.choice.Model}
	if path == "" {
		w, err := transcript.Create(dir, header)
		if err != nil {
			return nil, resume.Err("create the session", err)
		}
		s.session = w
		return nil, nil
	}
	s.endBurst = gcBurst()
	s.closers = append(s.closers, s.endBurst)
	if o.Fork {
		t, err := transcript.Read(path)
		if err != nil {
			return nil, resume.Err("fork the session", err)
		}
		resume.WarnDamage(s.sys.Stderr, t, "forking from")
		resume.WarnFolder(s.sys.Stderr, t, s.sys.Workdir)
		if pid := transcript.Holder(path); pid > 0 {
			fmt.Fprintf(sys.Stderr, "wisp: session %s is open in another wisp (pid %d): calls still running there show in the branch as interrupted\n", t.Header.ID, pid)
		}
		kept, dropped := transcript.LastTurns(t.Branch(), o.KeepTurns)
		w, err := transcript.ForkRecords(dir, t, header, kept)
		if err != nil {
			return nil, resume.Err("fork the session", err)
		}
		s.session = w
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
		return nil, resume.Err("open the session", err)
	}
	s.session = w
	resume.WarnDamage(s.sys.Stderr, t, "resuming from")
	resume.WarnFolder(s.sys.Stderr, t, s.sys.Workdir)
	s.resumedInput = transcript.LastInputTokens(t.Branch())
	msgs := t.Messages()
	if err := s.recordInterrupted(msgs); err != nil {
		return nil, resume.Err("record the interrupted calls", err)
	}
	return msgs, nil
}

// interruptedCall is a call the last run left running when it stopped.
type interruptedCall struct{ id, tool string }

// recordInterrupted writes, for each call a resumed conversation answers
// with transcript.Interrupted, that result as its record: it stands on
// file from now on (a later resume finds it rather than working it out
// again), and New audits it once as the call's tool.result, so that the
// audit says how every call it saw start ended.
func (s *Session) recordInterrupted(msgs []chat.Message) error {
	tools := map[string]string{}
	for _, m := range msgs {
		for _, b := range m.Content {
			switch {
			case b.Type == chat.ToolUse:
				tools[b.ID] = b.Name
			case b.Type == chat.ToolResult && b.Text == transcript.Interrupted:
				c := interruptedCall{id: b.ToolUseID, tool: tools[b.ToolUseID]}
				if err := s.session.Record(event.ToolResult{Header: event.Header{Time: time.Now()}, CallID: c.id, Tool: c.tool, Result: b.Text, IsError: true}); err != nil {
					return err
				}
				s.interrupted = append(s.interrupted, c)
			}
		}
	}
	return nil
}

// auditInterrupted writes the tool.result the audit lacks for each call
// that was running when the last run stopped.
func (s *Session) auditInterrupted() {
	for _, c := range s.interrupted {
		s.gate.Audit(0, c.id, audit.ToolResult{Tool: c.tool, IsError: true, Preview: "interrupted: wisp stopped while the call ran (found when the session was resumed)"})
	}
}

// record keeps what a transcript needs (transcript.Writer.Record decides).
// The first failed write is reported once: nothing more is written (a
// transcript with a hole would resume as a different conversation), the
// gate refuses command and mutating tools for the rest of the run, and
// the run ends with exit code 1.
func (s *Session) record(e event.Event) {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	if e, ok := e.(event.Error); ok && strings.HasPrefix(e.Error, agent.ErrContextOverflow.Error()) {
		// Frontends wrap the run's error as text; the event says it.
		s.overflowed = true
	}
	if s.transcriptErr != nil {
		return
	}
	if err := s.session.Record(e); err != nil {
		s.failTranscript(err)
	}
}

// transcriptFailed reports a failure outside the event path (closing).
func (s *Session) transcriptFailed(err error) {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	s.failTranscript(err)
}

func (s *Session) failTranscript(err error) {
	if s.transcriptErr != nil {
		return
	}
	s.transcriptErr = err
	fmt.Fprintf(s.sys.Stderr, "wisp: warning: the session transcript cannot be written (%s); command and mutating tools are refused from now on, and wisp ends after this turn with exit code 1\n", transcript.Escape(err.Error()))
	if s.gate != nil {
		s.gate.FailClosed("transcript unavailable: " + transcript.Escape(err.Error()))
	}
}

// transcriptBroken says whether a transcript write has failed: an
// interactive run then ends after the turn, as a print run does.
func (s *Session) transcriptBroken() bool {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	return s.transcriptErr != nil
}

// finish turns what a run left behind into its error: a transcript that
// could not be written fails the run even when the answer came, and a
// context overflow is followed by how to go on.
func (s *Session) finish(err error) error {
	s.recordMu.Lock()
	overflowed := s.overflowed
	s.recordMu.Unlock()
	if (overflowed || errors.Is(err, agent.ErrContextOverflow)) && s.session != nil {
		id := s.session.ID()
		fmt.Fprintf(s.sys.Stderr, "wisp: session %s is kept, but its history no longer fits this model's context window; to go on, compact it: run /compact in `wisp --resume %s`, then ask again; or branch it with a shorter history: `wisp --resume %s --fork --keep-turns 3`\n", id, id, id)
	}
	if err == nil && s.transcriptBroken() {
		return fmt.Errorf("%w: the session transcript could not be written", ErrReported)
	}
	return err
}

// writeClosing appends the transcript's closing record, which says why
// the session ended, when the run set one (closeNote). It is written after
// the run's processes are stopped.
func (s *Session) writeClosing() {
	if s.session == nil || s.closeNote == "" {
		return
	}
	s.recordMu.Lock()
	failed := s.transcriptErr != nil
	s.recordMu.Unlock()
	if failed {
		return
	}
	e := event.SessionEnd{Header: event.Header{Time: time.Now().UTC(), Session: s.session.ID()}, Reason: s.closeNote}
	if _, err := s.session.Append(transcript.Record{Type: transcript.TypeEvent, Event: event.Any{Event: e}}); err != nil && !errors.Is(err, os.ErrClosed) {
		s.transcriptFailed(err)
	}
}

// ShellWord quotes s for a POSIX shell when it needs it, so that a
// command wisp suggests can be pasted as shown.
func ShellWord(s string) string { return resume.ShellWord(s) }
