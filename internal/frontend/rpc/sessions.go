package rpc

import (
	"errors"
	"time"

	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// sessionView is a saved session on the wire.
type sessionView struct {
	ID          string    `json:"id"`
	Started     time.Time `json:"started"`
	Messages    int       `json:"messages"`
	FirstPrompt string    `json:"first_prompt"`
	Cwd         string    `json:"cwd,omitempty"`
	Model       string    `json:"model,omitempty"`
	Parent      string    `json:"parent,omitempty"`   // forked from
	Damaged     string    `json:"damaged,omitempty"`  // what is wrong with the file
	OpenPID     int       `json:"open_pid,omitempty"` // the wisp that holds it
	Current     bool      `json:"current,omitempty"`  // the session these commands drive
}

// sessionList is get_sessions's data.
type sessionList struct {
	Sessions []sessionView `json:"sessions"`
}

func (srv *server) getSessions(*noParams) (sessionList, *Error) {
	list, err := srv.sess.Sessions()
	if err != nil {
		return sessionList{}, failure(CodeFailed, "%v", err)
	}
	out := []sessionView{}
	for _, s := range list {
		out = append(out, sessionView{ID: s.ID, Started: s.Time, Messages: s.Messages, FirstPrompt: s.FirstPrompt,
			Cwd: s.Cwd, Model: s.Model, Parent: s.Parent, Damaged: s.Damaged, OpenPID: transcript.Holder(s.Path),
			Current: s.ID == srv.sess.ID()})
	}
	return sessionList{out}, nil
}

// opened is the data of a command that opened a session.
type opened struct {
	SessionID string `json:"session_id"`
	Messages  int    `json:"messages"`
}

func (srv *server) newSession(*noParams) (opened, *Error) {
	if !srv.idle() {
		return opened{}, busySwitch()
	}
	return srv.swap(srv.base)
}

func (srv *server) switchSession(p *switchParams) (opened, *Error) {
	if !srv.idle() {
		return opened{}, busySwitch()
	}
	if p.SessionID == "" {
		return opened{}, failure(CodeInvalidParams, "switch_session needs a \"session_id\" (get_sessions lists them)")
	}
	o := srv.base
	o.Resume = p.SessionID
	return srv.swap(o)
}

// forked is fork's data: the new session, and the prompt it was cut
// before, for a client to edit and send again.
type forked struct {
	opened
	Parent string `json:"parent"`
	Text   string `json:"text,omitempty"`
}

func (srv *server) fork(p *forkParams) (forked, *Error) {
	if !srv.idle() {
		return forked{}, busySwitch()
	}
	msgs, err := srv.sess.Saved()
	if err != nil {
		return forked{}, failure(CodeFailed, "%v", err)
	}
	before := len(msgs)
	if p.MessageIndex != nil {
		before = *p.MessageIndex
	}
	parent := srv.sess.ID()
	id, err := srv.sess.Fork(before)
	var ue *host.UsageError
	switch {
	case errors.Is(err, host.ErrNoTranscript):
		return forked{}, failure(CodeNotAvailable, "%v", err)
	case errors.As(err, &ue):
		return forked{}, failure(CodeNotFound, "%s", ue.Msg)
	case err != nil:
		return forked{}, failure(CodeFailed, "%v", err)
	}
	o := srv.base
	o.Resume = id
	data, ferr := srv.swap(o)
	if ferr != nil {
		return forked{}, ferr
	}
	out := forked{opened: data, Parent: parent}
	if before < len(msgs) {
		out.Text = msgs[before].TextOf()
	}
	return out, nil
}

func busySwitch() *Error {
	return failure(CodeBusy, "a run is in progress: cancel it (or wait for its agent_end) before changing sessions")
}

// swap closes the session and opens one with o. When that fails, the
// old session is opened again, so that the commands still drive one.
func (srv *server) swap(o host.Options) (opened, *Error) {
	oldID := ""
	if srv.sess != nil {
		oldID = srv.sess.ID()
		if err := srv.detach("exit"); err != nil {
			return opened{}, failure(CodeFailed, "close the session: %v", err)
		}
	}
	s, err := srv.cfg.Open(srv.ctx, o)
	if err != nil {
		if oldID != "" {
			back := srv.base
			back.Resume = oldID
			if prev, berr := srv.cfg.Open(srv.ctx, back); berr == nil {
				srv.attach(prev)
			}
		}
		var ue *host.UsageError
		if errors.As(err, &ue) {
			return opened{}, failure(CodeNotFound, "%s", ue.Msg)
		}
		return opened{}, failure(CodeFailed, "%v", err)
	}
	srv.attach(s)
	n := 0
	if msgs, err := s.Saved(); err == nil {
		n = len(msgs)
	}
	return opened{SessionID: s.ID(), Messages: n}, nil
}
