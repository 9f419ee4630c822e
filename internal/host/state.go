package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/project"
)

// ID is the session's id; "" when no transcript is kept (--no-session).
func (s *Session) ID() string { return s.sessionID() }

// Provider names the provider and the model the session talks to.
func (s *Session) Provider() (name, model string) { return s.choice.Name, s.choice.Model }

// Workdir is the folder the session works in.
func (s *Session) Workdir() string { return s.sys.Workdir }

// Messages is the conversation so far, as a resume would load it.
func (s *Session) Messages() []chat.Message { return s.agent.Messages() }

// Usage is the tokens the session's requests used.
func (s *Session) Usage() chat.Usage { return s.agent.Usage() }

// Failed says why the gate refuses command and mutating tools for the
// rest of the session (the audit or the transcript cannot be written),
// "" while it does not.
func (s *Session) Failed() string { return s.gate.Failed() }

// Resumable says whether the session can be resumed: a transcript is
// kept, sound, and holds a conversation.
func (s *Session) Resumable() bool {
	return s.session != nil && s.agent != nil && len(s.agent.Messages()) > 0 && !s.transcriptBroken()
}

// TranscriptBroken says whether a transcript write has failed: the
// session then ends after the running turn.
func (s *Session) TranscriptBroken() bool { return s.transcriptBroken() }

// EndWith says why the session ends (exit, end of input, interrupted,
// SIGTERM, SIGHUP, panic): the audit's session_end and the transcript's
// closing record carry it.
func (s *Session) EndWith(reason string) {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	s.closeNote = reason
	// The audit's session_end says "done" for an end the person chose;
	// a signal or a panic is named there too.
	if reason == "panic" || strings.HasPrefix(reason, "SIG") || strings.HasPrefix(reason, "signal ") {
		s.endNote = reason
	}
}

// Finish turns what a run left behind into its error: a transcript that
// could not be written fails the run even when the answer came, and a
// context overflow is followed by how to go on.
func (s *Session) Finish(err error) error { return s.finish(err) }

// InitAgentsMD writes a starter AGENTS.md at the project root, never
// over an existing one, and says what it did.
func (s *Session) InitAgentsMD() string {
	root := s.project.Root
	path := filepath.Join(root, "AGENTS.md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Sprintf("%s already exists; edit it to change what wisp is told about this project", path)
	}
	if err != nil {
		return fmt.Sprintf("could not write %s: %v", path, err)
	}
	_, err = f.WriteString(project.StarterAgentsMD(root))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Sprintf("could not write %s: %v", path, err)
	}
	note := ""
	if !s.project.Decision.Trusted {
		note = " (this project is not trusted, so wisp will not read it until you run: wisp trust allow)"
	}
	return fmt.Sprintf("wrote %s: fill it in; wisp reads it at the start of every session%s", path, note)
}
