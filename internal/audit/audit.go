// Package audit holds wisp's audit log: one append-only JSON Lines file,
// <wisp home>/logs/audit.jsonl, that records what every session asked,
// what the model answered, and what the gate allowed, refused and ran. It
// writes, rotates, reads, filters and follows that file, and implements
// `wisp logs`.
//
// Every line is {schema, id, time, version, pid, session, turn, call,
// kind, details}, with details typed per kind (docs/audit.md). The
// package never decides anything about safety and never imports another
// wisp package: the gate decides and calls Write.
package audit

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/encoding/json"
	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/durable"
)

// Schema is the version of the line format written today.
const Schema = 1

// FileName is the live log's name; rotated files add .1 (newest) to .N.
const FileName = "audit.jsonl"

// lockName is the file every writer holds exclusively while it appends or
// rotates, and readers hold shared while they open the files. A separate
// file, because rotation renames the log out from under other processes.
const lockName = "audit.lock"

// Defaults for Options.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 5
	DefaultRetain   = 7 * 24 * time.Hour
)

// Dir returns the folder of the audit log under a wisp home (~/.wisp, or
// $WISP_HOME, as the caller resolved it).
func Dir(wispHome string) string { return filepath.Join(wispHome, "logs") }

// Options tune a Log. The zero value is what wisp uses, bar Version.
type Options struct {
	// Version is wisp's version string, written on every line.
	Version string
	// MaxBytes is the size past which the live file is rotated before a
	// write (DefaultMaxBytes when zero).
	MaxBytes int64
	// Keep is how many rotated files are kept at least (DefaultKeep when
	// zero). More are kept while the oldest is still retained (Retain).
	Keep int
	// Retain is how long a rotated file is kept at least after its last
	// line (DefaultRetain when zero). A file that holds a line of a
	// session this Log wrote, or that was written since the Log opened,
	// is kept whatever its age.
	Retain time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Entry is what a caller says; Write adds the rest of the line.
type Entry struct {
	Session string // the session id, or ""
	Turn    int
	Call    string // the tool call id pairing a call with its result, or ""
	Details Details
}

// Log appends to the audit log. It is safe for concurrent use; separate
// processes appending to the same folder are serialised by an exclusive
// flock, so lines never interleave. A nil *Log is a log that writes
// nothing, for callers that run without an audit.
//
// Lines are written with one write(2) each and not fsynced: the audit is
// written on every step of every turn, and a line in the page cache
// already survives a crash of wisp itself; only a crash of the machine can
// lose the last lines. Close fsyncs.
type Log struct {
	dir      string
	path     string
	version  string
	pid      int
	maxBytes int64
	keep     int
	retain   time.Duration
	now      func() time.Time
	opened   time.Time

	// bufs keeps encoding buffers between writes (*[]byte): the gate
	// writes a burst of lines on every step of a call.
	bufs sync.Pool

	mu sync.Mutex
	// sessions are the sessions this Log has written lines of; rotation
	// never drops a file that holds one of them.
	sessions map[string]bool
	lock     *os.File // lockName, held exclusively per append
	f        *os.File // the live file as this process last opened it
	// fid is f's identity (device and inode), taken when it was opened:
	// a stat of the live path that names the same file also gives f's
	// size, so a write needs no stat of f itself.
	fid    os.FileInfo
	end    int64 // f's size after this process's last line, -1 if unknown
	closed bool
}

// Open opens (creating as needed) the audit log in dir, normally
// Dir(wispHome). The folder is made 0700 and the files 0600: the log
// holds prompts and commands.
func Open(dir string, opts Options) (*Log, error) {
	if dir == "" {
		return nil, errors.New("audit: open: no log folder given")
	}
	l := &Log{
		dir:      dir,
		path:     filepath.Join(dir, FileName),
		version:  opts.Version,
		pid:      os.Getpid(),
		maxBytes: opts.MaxBytes,
		keep:     opts.Keep,
		retain:   opts.Retain,
		now:      opts.Now,
		sessions: map[string]bool{},
	}
	if l.maxBytes <= 0 {
		l.maxBytes = DefaultMaxBytes
	}
	if l.keep <= 0 {
		l.keep = DefaultKeep
	}
	if l.retain <= 0 {
		l.retain = DefaultRetain
	}
	if l.now == nil {
		l.now = time.Now
	}
	// A second early, so that a file this process writes in its first
	// second is never taken for an older one on a coarse clock.
	l.opened = time.Now().Add(-time.Second)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit: create folder %s: %w", dir, err)
	}
	if err := tighten(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	lock, _, err := openPrivate(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	l.lock = lock
	f, fid, err := openPrivate(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND)
	if err != nil {
		_ = lock.Close()
		return nil, fmt.Errorf("audit: %w", err)
	}
	l.f, l.fid, l.end = f, fid, -1
	return l, nil
}

// Path returns the live log file, or "" for a nil Log.
func (l *Log) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Write appends one line. It fills in schema, id, time, version and pid,
// cuts long text to the limits, and returns once the line is in the file.
// An error means the line was not written; what to do about it is the
// caller's choice.
func (l *Log) Write(e Entry) error { return l.WriteAll(e) }

// WriteAll appends several lines under one lock and in one write, so a
// caller with a burst of lines (the gate before it runs a command) pays
// for the lock and the system calls once. The lines stay whole and in
// order; another writer's lines never fall between them.
func (l *Log) WriteAll(es ...Entry) error {
	if l == nil || len(es) == 0 {
		return nil
	}
	bp, _ := l.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	buf := (*bp)[:0]
	defer func() {
		*bp = buf
		l.putBuf(bp)
	}()
	for _, e := range es {
		if e.Details == nil {
			return errors.New("audit: write: entry without details")
		}
		var err error
		if buf, err = l.appendLine(buf, e); err != nil {
			return err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return fmt.Errorf("audit: write to %s: log is closed", l.path)
	}
	for _, e := range es {
		if e.Session != "" {
			l.sessions[e.Session] = true
		}
	}
	if err := l.append(buf); err != nil {
		return fmt.Errorf("audit: write to %s: %w", l.path, err)
	}
	return nil
}

// bufKeep is the largest encoding buffer kept for the next write; a burst
// of huge lines does not hold on to its memory.
const bufKeep = 64 << 10

func (l *Log) putBuf(bp *[]byte) {
	if cap(*bp) <= bufKeep {
		l.bufs.Put(bp)
	}
}

// appendLine encodes e as one line onto buf, within RecordLimit: when the
// line would be longer, it is encoded again with tighter limits until it
// fits, and marked truncated.
func (l *Log) appendLine(buf []byte, e Entry) ([]byte, error) {
	c := newCutter()
	w := wire{
		Schema:  Schema,
		ID:      newID(),
		Time:    l.now().UTC().Format(timeLayout),
		Version: cut(l.version, TextLimit),
		PID:     l.pid,
		Session: cut(e.Session, TextLimit),
		Turn:    e.Turn,
		Call:    cut(e.Call, TextLimit),
		Kind:    e.Details.Kind(),
	}
	start := len(buf)
	for {
		w.Details = e.Details.bounded(c)
		w.Truncated = w.Truncated || c.cut
		var err error
		buf, err = json.Append(buf[:start], &w, 0)
		if err != nil {
			return buf[:start], fmt.Errorf("audit: encode %s line: %w", w.Kind, err)
		}
		buf = append(buf, '\n')
		if len(buf)-start <= RecordLimit {
			return buf, nil
		}
		w.Truncated = true
		if !c.tighten() {
			return buf[:start], fmt.Errorf("audit: encode %s line: %d bytes even with every text cut", w.Kind, len(buf)-start)
		}
	}
}

// Close fsyncs and closes the log. Closing a nil or closed Log does
// nothing.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	err := l.f.Sync()
	err = errors.Join(err, l.f.Close(), l.lock.Close())
	if err != nil {
		return fmt.Errorf("audit: close %s: %w", l.path, err)
	}
	return nil
}

// timeLayout is RFC 3339 in UTC with exactly three fractional digits, so
// lines sort as text and line up.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// wire is a line as written; field order is the line's key order.
type wire struct {
	Schema  int     `json:"schema"`
	ID      string  `json:"id"`
	Time    string  `json:"time"`
	Version string  `json:"version"`
	PID     int     `json:"pid"`
	Session string  `json:"session"`
	Turn    int     `json:"turn"`
	Call    string  `json:"call"`
	Kind    string  `json:"kind"`
	Details Details `json:"details"`
	// Truncated says a text or list of the line was cut to fit the
	// limits (TextLimit, RecordLimit).
	Truncated bool `json:"truncated"`
}

// append writes one line under the folder's lock. Another process may
// have rotated the file since this one opened it, so the live path is
// checked first; a writer killed mid-line may have left a torn tail,
// which is cut so the new line starts on a line of its own.
func (l *Log) append(line []byte) error {
	if err := flock(l.lock, unix.LOCK_EX); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() { _ = flock(l.lock, unix.LOCK_UN) }()

	size, err := l.current()
	if err != nil {
		return err
	}
	if size > 0 && size+int64(len(line)) > l.maxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
		size = 0
	}
	// When the file ends where this process's last line did, that line
	// was whole; only a file someone else wrote needs its tail checked.
	if size > 0 && size != l.end {
		if size, err = durable.CutTornTail(l.f, size); err != nil {
			return err
		}
	}
	if _, err := l.f.Write(line); err != nil {
		// Leave no partial line for the next reader or writer.
		_ = l.f.Truncate(size)
		l.end = -1
		return err
	}
	l.end = size + int64(len(line))
	return nil
}

// current makes l.f the file now at l.path, reopening it when another
// process rotated (or someone removed) it, and returns its size.
func (l *Log) current() (int64, error) {
	live, err := os.Stat(l.path)
	if err == nil && os.SameFile(l.fid, live) {
		// The same file: its size is f's.
		return live.Size(), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("stat: %w", err)
	}
	f, fid, err := openPrivate(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return 0, err
	}
	_ = l.f.Close()
	l.f, l.fid, l.end = f, fid, -1
	return fid.Size(), nil
}

// rotate shifts every audit.jsonl.N up by one, moves the live file to .1
// and starts a new one, then drops the oldest files beyond Keep that may
// go (droppable). Nothing is dropped before the shift, so a flood of lines
// can grow the number of files but never push out what must be kept.
func (l *Log) rotate() error {
	n, err := l.rotatedCount()
	if err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	for i := n; i >= 1; i-- {
		if err := os.Rename(rotated(l.path, i), rotated(l.path, i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	if err := os.Rename(l.path, rotated(l.path, 1)); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	f, fid, err := openPrivate(l.path, os.O_RDWR|os.O_CREATE|os.O_APPEND)
	if err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	_ = l.f.Close()
	l.f, l.fid, l.end = f, fid, -1
	for i := n + 1; i > l.keep; i-- {
		if !l.droppable(rotated(l.path, i)) {
			break
		}
		if err := os.Remove(rotated(l.path, i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	return nil
}

// rotatedCount is the highest N of the audit.jsonl.N files (0: none).
func (l *Log) rotatedCount() (int, error) {
	names, err := logFiles(l.dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if k, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(name), FileName+".")); err == nil {
			n = max(n, k)
		}
	}
	return n, nil
}

// droppable reports whether rotation may remove a rotated file: its last
// line is older than Retain, it was last written before this Log opened,
// and it holds no line of a session this Log wrote. Anything it cannot
// tell keeps the file.
func (l *Log) droppable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	mod := fi.ModTime()
	if !mod.Before(l.now().Add(-l.retain)) || !mod.Before(l.opened) {
		return false
	}
	if len(l.sessions) == 0 {
		return true
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for s := range l.sessions {
		if bytes.Contains(data, []byte(`"session":`+strconv.Quote(s))) {
			return false
		}
	}
	return true
}

func rotated(path string, n int) string { return fmt.Sprintf("%s.%d", path, n) }

// openPrivate opens a file of the log, creating it 0600, and takes away
// any access others had to one that already existed. It returns what
// the file was as it opened.
func openPrivate(path string, flag int) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, nil, err // an *os.PathError: "open PATH: why"
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		err = f.Chmod(fi.Mode().Perm() &^ 0o077)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, fi, nil
}

// tighten removes group and other access from a folder of wisp's own.
func tighten(dir string, perm os.FileMode) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat %s: %w", dir, err)
	}
	if fi.Mode().Perm()&^perm != 0 {
		if err := os.Chmod(dir, fi.Mode().Perm()&perm); err != nil {
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
	}
	return nil
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if err != unix.EINTR {
			return err
		}
	}
}

// newID returns 16 random lowercase hex digits.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails: crypto/rand crashes the program instead
	return hex.EncodeToString(b[:])
}
