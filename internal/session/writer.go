package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/durable"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/event"
)

// Writer appends records to one transcript. It is safe for concurrent
// use; other processes appending to the same file are serialised by an
// exclusive flock held for each write.
type Writer struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	id     string
	last   string
	ids    map[string]struct{}
	closed bool
}

const stampLayout = "20060102T150405Z"

// Create starts a new session in dir: it fills in what h leaves empty (a
// random id, the start time, the format version), creates
// dir/<cwd key>/<start>_<id>.jsonl (folders 0700, file 0600) and writes
// the header durably.
func Create(dir string, h Header) (*Writer, error) {
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
	w := &Writer{f: f, path: path, id: h.ID, ids: map[string]struct{}{}}
	line, err := encode(h.record())
	if err == nil {
		err = w.writeLine(line)
	}
	if err == nil {
		// The file's name must survive a crash as well as its bytes.
		err = errors.Join(syncDir(sub), syncDir(dir))
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("session: create %s: %w", path, err)
	}
	return w, nil
}

// OpenAppend opens an existing transcript to continue it. New records
// hang off the last record in the file unless they name a parent.
func OpenAppend(path string) (*Writer, error) {
	h, records, err := Load(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	w := &Writer{f: f, path: path, id: h.ID, ids: make(map[string]struct{}, len(records))}
	for _, r := range records {
		w.ids[r.ID] = struct{}{}
	}
	if n := len(records); n > 0 {
		w.last = records[n-1].ID
	}
	return w, nil
}

// Path returns the transcript's file.
func (w *Writer) Path() string { return w.path }

// ID returns the session id.
func (w *Writer) ID() string { return w.id }

// Append writes one message or event record and returns its id. An empty
// ID gets a fresh one, an empty Parent becomes the id of the record this
// writer appended (or found) last, a zero Time becomes now. When Append
// returns nil the record is on disk.
func (w *Writer) Append(rec Record) (string, error) {
	switch {
	case rec.Type == TypeMessage && rec.Message == nil:
		return "", errors.New("session: append: message record without message")
	case rec.Type == TypeEvent && rec.Event == nil:
		return "", errors.New("session: append: event record without event")
	case rec.Type != TypeMessage && rec.Type != TypeEvent:
		return "", fmt.Errorf("session: append: record type %q (want %q or %q)", rec.Type, TypeMessage, TypeEvent)
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
		err = w.writeLine(line)
	}
	if err != nil {
		return "", fmt.Errorf("session: append to %s: %w", w.path, err)
	}
	w.last = rec.ID
	w.ids[rec.ID] = struct{}{}
	return rec.ID, nil
}

// Sink returns an event sink that appends the records FromEvent keeps.
// A sink cannot return an error, so failures go to onErr (nil ignores
// them).
func (w *Writer) Sink(onErr func(error)) event.Sink {
	return func(e event.Event) {
		for _, r := range FromEvent(e) {
			if _, err := w.Append(r); err != nil && onErr != nil {
				onErr(err)
			}
		}
	}
}

// Close releases the file. Records already appended stay on disk.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("session: close %s: %w", w.path, err)
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
func (w *Writer) writeLine(line []byte) error {
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
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
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
