package transcript

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/durable"
	"github.com/wisp-agent/wisp/internal/event"
)

// Writer appends records to one transcript, which it holds the
// one-writer lock of until Close. It is safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	lock   *sessionLock
	path   string
	id     string
	last   string
	ids    map[string]struct{}
	closed bool
	// results holds the calls whose result record is written, so the
	// tool-result message that follows them is not written again.
	results map[string]struct{}
	// unsynced says a record was written without fsync since the last.
	unsynced bool
}

const stampLayout = "20060102T150405Z"

// Create starts a new session in dir: it fills in what h leaves empty (a
// random id, the start time, the format version), creates
// dir/<cwd key>/<start>_<id>.jsonl (folders 0700, file 0600) and writes
// the header durably.
func Create(dir string, h Header) (*Writer, error) {
	return createWith(dir, h, nil)
}

// Fork starts a new session in dir that continues parent's conversation:
// the header names parent's session as its parent, and the records along
// the branch parent resumes from are copied, ids and links unchanged, so
// the new file stands on its own. The parent's file is only read.
func Fork(dir string, parent *Transcript, h Header) (*Writer, error) {
	return ForkRecords(dir, parent, h, parent.Branch())
}

// ForkRecords is Fork copying only the given records of parent's branch
// (see LastTurns): the way on for a session whose history no longer
// fits the model's context window.
func ForkRecords(dir string, parent *Transcript, h Header, records []Record) (*Writer, error) {
	h.Parent = parent.Header.ID
	return createWith(dir, h, records)
}

// Conversation is the model's view of a branch of records, as Messages
// gives it for a whole transcript.
func Conversation(branch []Record) []chat.Message { return conversation(branch) }

func createWith(dir string, h Header, copied []Record) (*Writer, error) {
	if dir == "" {
		return nil, errors.New("session: create: no session folder given")
	}
	if h.ID == "" {
		h.ID = newID(8)
	} else if !validID(h.ID) {
		return nil, fmt.Errorf("session: create: invalid session id %q (want 1-64 letters, digits or '-')", h.ID)
	}
	if h.Start.IsZero() {
		h.Start = time.Now()
	}
	h.Start = h.Start.UTC()
	h.Version = FormatVersion
	if h.Cwd != "" {
		h.Cwd = filepath.Clean(h.Cwd)
	}
	sub := filepath.Join(dir, cwdKey(h.Cwd))
	if err := os.MkdirAll(sub, 0o700); err != nil {
		return nil, fmt.Errorf("session: create folder %s: %w", sub, err)
	}
	path := filepath.Join(sub, h.Start.Format(stampLayout)+"_"+h.ID+".jsonl")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session: create %s: %w", path, err)
	}
	w := &Writer{f: f, path: path, id: h.ID, ids: map[string]struct{}{}, results: map[string]struct{}{}}
	w.lock, err = lockSession(path, h.ID)
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, err
	}
	line, err := encode(h.record())
	for _, r := range copied {
		if err != nil {
			break
		}
		var l []byte
		l, err = encode(r)
		line = append(line, l...)
		w.ids[r.ID] = struct{}{}
		w.last = r.ID
	}
	if err == nil {
		err = w.writeLine(line, true)
	}
	if err == nil {
		// The file's name must survive a crash as well as its bytes.
		err = errors.Join(syncDir(sub), syncDir(dir))
	}
	if err != nil {
		_ = os.Remove(path)
		w.lock.release()
		_ = f.Close()
		return nil, fmt.Errorf("session: create %s: %w", path, err)
	}
	return w, nil
}

// Open opens an existing transcript to continue it: it takes the
// one-writer lock (a *BusyError names the wisp that has it), reads the
// file once and returns it with the writer. New records hang off the
// transcript's Leaf. When malformed lines no salvage record has handled
// are found, a salvage record is written first, so a later read
// continues past them; the caller reports t.Unhandled() as read before.
func Open(path string) (*Writer, *Transcript, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("session: open %s: %w", Escape(path), err)
	}
	id := idFromName(path)
	lock, err := lockSession(path, id)
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	w, t, err := openLocked(f, path)
	if err != nil {
		lock.release()
		_ = f.Close()
		return nil, nil, err
	}
	w.lock = lock
	return w, t, nil
}

func openLocked(f *os.File, path string) (*Writer, *Transcript, error) {
	data, err := readAll(f)
	if err != nil {
		return nil, nil, fmt.Errorf("session: read %s: %w", Escape(path), err)
	}
	t, err := parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	w := &Writer{f: f, path: path, id: t.Header.ID, ids: make(map[string]struct{}, len(t.Records)), results: map[string]struct{}{}}
	for _, r := range t.Records {
		w.ids[r.ID] = struct{}{}
	}
	if t.Leaf >= 0 {
		w.last = t.Records[t.Leaf].ID
	}
	if un := t.Unhandled(); len(un) > 0 {
		rec := Record{Type: TypeSalvage}
		for _, d := range un {
			rec.Skipped = append(rec.Skipped, d.Line)
		}
		if _, err := w.append(rec, true); err != nil {
			return nil, nil, err
		}
	}
	return w, t, nil
}

// readAll reads f whole into one buffer of its size: growing a buffer
// while reading costs a long session several copies of itself.
func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		// Shorter than it was a moment ago: only a torn tail was cut.
		return data[:n], nil
	}
	return data, err
}

// idFromName is the session id in a transcript's file name, or the name
// itself for a file named by hand.
func idFromName(path string) string {
	if _, id, ok := parseName(filepath.Base(path)); ok {
		return id
	}
	return filepath.Base(path)
}

// OpenAppend is Open without the transcript.
func OpenAppend(path string) (*Writer, error) {
	w, _, err := Open(path)
	return w, err
}

// Path returns the transcript's file.
func (w *Writer) Path() string { return w.path }

// ID returns the session id.
func (w *Writer) ID() string { return w.id }

// Append writes one message, event or checkpoint record and returns its id. An empty
// ID gets a fresh one, an empty Parent becomes the id of the record this
// writer appended (or found) last, a zero Time becomes now. When Append
// returns nil the record is on disk.
func (w *Writer) Append(rec Record) (string, error) {
	return w.append(rec, true)
}

// append writes rec; with sync false the line is written but reaches
// the disk only with the next fsync (or the kernel's own flush), which
// is as safe against a killed wisp and cheaper for bookkeeping events.
func (w *Writer) append(rec Record, sync bool) (string, error) {
	switch {
	case rec.Type == TypeSalvage:
	case rec.Type == TypeMessage && rec.Message == nil:
		return "", errors.New("session: append: message record without message")
	case rec.Type == TypeEvent && rec.Event.Event == nil:
		return "", errors.New("session: append: event record without event")
	case rec.Type == TypeCheckpoint && rec.Checkpoint == nil:
		return "", errors.New("session: append: checkpoint record without checkpoint")
	case rec.Type != TypeMessage && rec.Type != TypeEvent && rec.Type != TypeCheckpoint:
		return "", fmt.Errorf("session: append: record type %q (want %q, %q or %q)", rec.Type, TypeMessage, TypeEvent, TypeCheckpoint)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return "", fmt.Errorf("session: append to %s: writer is closed", w.path)
	}
	if rec.ID == "" {
		rec.ID = w.freshID()
	}
	if rec.Parent == "" {
		rec.Parent = w.last
	}
	if rec.Time.IsZero() {
		rec.Time = time.Now().UTC()
	}
	line, err := encode(rec)
	if err == nil {
		err = w.writeLine(line, sync)
	}
	if err != nil {
		return "", fmt.Errorf("session: append to %s: %w", Escape(w.path), err)
	}
	w.last = rec.ID
	w.ids[rec.ID] = struct{}{}
	return rec.ID, nil
}

// Record appends the records FromEvent keeps for e. A tool result is
// written (and fsynced) the moment its call ends, so the tool-result
// message that later joins the conversation is written only with the
// results not already on disk, or not at all. Records resuming depends
// on are fsynced before Record returns; bookkeeping events are not.
func (w *Writer) Record(e event.Event) error {
	var recs []Record
	sync := false
	for _, r := range FromEvent(e) {
		if r.Type == TypeMessage && r.Message.Role == chat.User {
			if r.Message = w.unwritten(r.Message); r.Message == nil {
				continue
			}
		}
		recs = append(recs, r)
		sync = sync || mustSync(r)
	}
	// One fsync after the last line covers the lines before it.
	for i, r := range recs {
		if _, err := w.append(r, sync && i == len(recs)-1); err != nil {
			return err
		}
		if r.Type == TypeMessage {
			w.noteResults(r.Message)
		}
	}
	return nil
}

// mustSync says whether a record must be on disk before the loop goes
// on: messages, tool call starts, errors and the run's end. Other events
// ride along with the next fsync.
func mustSync(r Record) bool {
	if r.Type != TypeEvent {
		return true
	}
	switch e := r.Event.Event.(type) {
	case event.ToolStart, event.AgentEnd, event.Error, event.SessionEnd:
		return true
	case event.ApprovalDecision:
		// A yes is what lets a started call count as run on resume
		// (conversation): it must not be lost while its command runs.
		return e.Approved
	}
	return false
}

// unwritten returns m without the tool results already written as
// records of their own; nil when nothing is left.
func (w *Writer) unwritten(m *chat.Message) *chat.Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	var keep []chat.Block
	for _, b := range m.Content {
		if _, done := w.results[b.ToolUseID]; b.Type == chat.ToolResult && done {
			continue
		}
		keep = append(keep, b)
	}
	if len(keep) == 0 {
		return nil
	}
	if len(keep) == len(m.Content) {
		return m
	}
	out := *m
	out.Content = keep
	return &out
}

func (w *Writer) noteResults(m *chat.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, b := range m.Content {
		if b.Type == chat.ToolResult {
			w.results[b.ToolUseID] = struct{}{}
		}
	}
}

// Sink returns an event sink that Records every event. A sink cannot
// return an error, so failures go to onErr (nil ignores them).
func (w *Writer) Sink(onErr func(error)) event.Sink {
	return func(e event.Event) {
		if err := w.Record(e); err != nil && onErr != nil {
			onErr(err)
		}
	}
}

// Close makes what was written durable, releases the file and lets go
// of the session's lock. Records already appended stay on disk.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	var err error
	if w.unsynced {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.lock.release()
	if err != nil {
		return fmt.Errorf("session: close %s: %w", Escape(w.path), err)
	}
	return nil
}

// freshID draws record ids until one is new to this writer. Eight hex
// digits keep lines short; the check makes clashes within one process
// impossible rather than merely unlikely.
func (w *Writer) freshID() string {
	for {
		id := newID(4)
		if _, dup := w.ids[id]; !dup && id != w.id {
			return id
		}
	}
}

// writeLine appends one whole line and fsyncs it while holding the file
// lock, first cutting off a torn tail a killed writer may have left so
// the new line starts on a line of its own.
func (w *Writer) writeLine(line []byte, sync bool) error {
	fd := int(w.f.Fd())
	if err := flock(fd, unix.LOCK_EX); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() { _ = flock(fd, unix.LOCK_UN) }()
	size, err := cutTornTail(w.f)
	if err != nil {
		return err
	}
	if _, err := w.f.Write(line); err != nil {
		// Leave no partial line behind for the next reader.
		_ = w.f.Truncate(size)
		return fmt.Errorf("write: %w", err)
	}
	if !sync {
		w.unsynced = true
		return nil
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	w.unsynced = false
	return nil
}

func flock(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}

// cutTornTail truncates the file after its last newline and returns the
// resulting size.
func cutTornTail(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return durable.CutTornTail(f, fi.Size())
}

// encode renders a record as one line. HTML escaping is off: transcripts
// are read by people and tools, not embedded in pages.
func encode(r Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode %s record: %w", r.Type, err)
	}
	return b.Bytes(), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync folder: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

func newID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails: crypto/rand crashes the program instead
	return hex.EncodeToString(b)
}

// validID accepts ids that are safe as part of a file name.
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}
