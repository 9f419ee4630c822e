// Package transcript holds wisp's durable transcripts: one JSON Lines file per
// session, a header record first, then the conversation's messages and the
// events worth keeping, each linked to its parent so a session can branch.
//
// One wisp at a time writes a session: a Writer holds an exclusive flock
// on a lock file beside the transcript that names its pid, and a second
// writer is refused with that pid. Every append is one write of a whole
// line under a per-write flock too, so nothing interleaves bytes even
// with older wisps. What resuming depends on (messages, each tool call's
// start and each result) is fsynced before the loop goes on; bookkeeping
// events are written at once and reach the disk with the next fsync.
//
// A torn last line (a writer killed mid-write) is dropped on read and cut
// off before the next append. A malformed complete line is skipped and
// reported: resuming continues from the last good record before it and
// marks the damage as handled with a salvage record; the file is never
// rewritten, so the bad line and everything after it stay on disk.
//
// This package only stores and reads transcripts. It never talks to a
// provider, never renders anything and never decides where the session
// folder is: the caller passes it in.
package transcript

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// FormatVersion is the transcript format this package writes; it reads
// every version from 1 up. Version 2 added per-call result records,
// tool_execution_start events and salvage records; version 3 added
// checkpoint records.
const FormatVersion = 3

// Record types.
const (
	// TypeSession is the header, always the first line of a file.
	TypeSession = "session"
	// TypeMessage holds one chat.Message of the conversation.
	TypeMessage = "message"
	// TypeEvent holds one event of the loop worth keeping.
	TypeEvent = "event"
	// TypeSalvage marks where a resumed run continued a damaged file:
	// its parent is the last good record before the first malformed
	// line it lists, and the malformed lines before it count as handled.
	TypeSalvage = "salvage"
	// TypeCheckpoint marks a compaction: the conversation along its
	// branch restarts from the messages it holds (a summary of what came
	// before and the latest user turn verbatim). The records before it
	// stay in the file, so nothing of the history is lost.
	TypeCheckpoint = "checkpoint"
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
	Event   event.Any     `json:"event,omitzero"`
	// Skipped lists the malformed lines a salvage record handled.
	Skipped []int `json:"skipped,omitempty"`
	// Checkpoint is set on checkpoint records.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`

	// Header fields (TypeSession only). The header's Time is the start.
	Version  int    `json:"version,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
}

// Checkpoint is what a compaction leaves in the transcript.
type Checkpoint struct {
	// Summary is the model's summary of the conversation before it.
	Summary string `json:"summary"`
	// Messages is the conversation a run continues from: the summary as
	// a user message, then the turns kept verbatim. Every tool call in
	// it has its result.
	Messages []chat.Message `json:"messages"`
	// Reason says what asked for it: "manual", "auto" (the last request
	// came near the context window) or "overflow" (the provider refused
	// the conversation as too long).
	Reason string `json:"reason"`
	// Replaced counts the messages the summary stands for.
	Replaced int `json:"replaced"`
	// InputTokens is the size of the last request before it, when known.
	InputTokens int64 `json:"input_tokens,omitempty"`
}

// Header describes a session; it is the first record of its file.
type Header struct {
	ID string
	// Parent is the id of the session this one was forked from (the
	// header record's "parent"); empty for a session of its own.
	Parent   string
	Version  int
	Cwd      string
	Start    time.Time
	Provider string
	Model    string
}

func (h Header) record() Record {
	return Record{Type: TypeSession, ID: h.ID, Parent: h.Parent, Time: h.Start, Version: h.Version, Cwd: h.Cwd, Provider: h.Provider, Model: h.Model}
}

func headerOf(r Record) Header {
	return Header{ID: r.ID, Parent: r.Parent, Version: r.Version, Cwd: r.Cwd, Start: r.Time, Provider: r.Provider, Model: r.Model}
}

// ErrNotFound is wrapped by Find, Latest and Branch when nothing matches,
// so a caller can tell a bad --resume (a usage error) from a failed read.
var ErrNotFound = errors.New("no such session")

// ErrAmbiguous is wrapped by Find when an id prefix matches several
// sessions; the message lists them.
var ErrAmbiguous = errors.New("ambiguous session id")

// FormatError reports a complete line of a transcript that cannot be
// used. Line counts from 1. Its message escapes control bytes: both the
// path and the decoder's words can carry bytes from the file.
type FormatError struct {
	Path string
	Line int
	Err  error
	// Excerpt is the start of the bad line, for the message.
	Excerpt string
}

func (e *FormatError) Error() string {
	msg := fmt.Sprintf("session: %s:%d: malformed record: %s", Escape(e.Path), e.Line, clip(Escape(e.Err.Error()), 200))
	if e.Excerpt != "" {
		msg += fmt.Sprintf(" (line starts %q)", e.Excerpt)
	}
	return msg
}

func (e *FormatError) Unwrap() error { return e.Err }

// excerptLen bounds the part of a bad line quoted in an error.
const excerptLen = 40

func excerpt(line []byte) string {
	if len(line) > excerptLen {
		line = line[:excerptLen]
	}
	return strings.ToValidUTF8(string(line), "\ufffd")
}

// Escape makes text from a file safe to print: control bytes (C0, DEL,
// C1), invalid UTF-8 and bidirectional overrides become Go escapes, so a
// transcript cannot move the cursor or recolour the terminal through an
// error message.
func Escape(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isInvalidAt(s, i):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clip cuts s to at most n runes, marking the cut: a decoder's error may
// quote the whole bad line.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func isInvalidAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}
