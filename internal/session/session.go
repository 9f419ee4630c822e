// Package session holds wisp's durable transcripts: one JSON Lines file per
// session, a header record first, then the conversation's messages and the
// events worth keeping, each linked to its parent so a session can branch.
//
// A record counts once its newline is on disk: every append is one write
// of a whole line followed by fsync, under an exclusive file lock, so two
// wisp processes on one session never interleave bytes. A torn last line
// (a writer killed mid-write) is dropped on read and cut off before the
// next append; a malformed complete line is an error naming the line.
//
// This package only stores and reads transcripts. It never talks to a
// provider, never renders anything and never decides where the session
// folder is: the caller passes it in.
package session

import (
	"errors"
	"fmt"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// FormatVersion is the transcript format this package writes and reads.
const FormatVersion = 1

// Record types.
const (
	// TypeSession is the header, always the first line of a file.
	TypeSession = "session"
	// TypeMessage holds one chat.Message of the conversation.
	TypeMessage = "message"
	// TypeEvent holds one event of the loop worth keeping.
	TypeEvent = "event"
)

// Record is one line of a transcript. Message is set on message records,
// Event on event records; the header fields only on the session record.
// The field order is the line's key order, which List relies on to count
// messages without decoding them ("type" must stay first).
type Record struct {
	Type string `json:"type"`
	// ID is unique within the session; on the header it is the session id.
	ID string `json:"id"`
	// Parent is the id of the previous record on this record's branch;
	// empty for a root. A parent always comes earlier in the file.
	Parent string    `json:"parent"`
	Time   time.Time `json:"time"`

	Message *chat.Message `json:"message,omitempty"`
	Event   *event.Event  `json:"event,omitempty"`

	// Header fields (TypeSession only). The header's Time is the start.
	Version  int    `json:"version,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

// Header describes a session; it is the first record of its file.
type Header struct {
	ID       string
	Version  int
	Cwd      string
	Start    time.Time
	Provider string
	Model    string
}

func (h Header) record() Record {
	return Record{Type: TypeSession, ID: h.ID, Time: h.Start, Version: h.Version, Cwd: h.Cwd, Provider: h.Provider, Model: h.Model}
}

func headerOf(r Record) Header {
	return Header{ID: r.ID, Version: r.Version, Cwd: r.Cwd, Start: r.Time, Provider: r.Provider, Model: r.Model}
}

// ErrNotFound is wrapped by Find, Latest and Branch when nothing matches,
// so a caller can tell a bad --resume (a usage error) from a failed read.
var ErrNotFound = errors.New("no such session")

// ErrAmbiguous is wrapped by Find when an id prefix matches several
// sessions; the message lists them.
var ErrAmbiguous = errors.New("ambiguous session id")

// FormatError reports a complete line of a transcript that cannot be
// used. Line counts from 1.
type FormatError struct {
	Path string
	Line int
	Err  error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("session: %s:%d: malformed record: %v", e.Path, e.Line, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }
