package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/segmentio/encoding/json"
	"golang.org/x/sys/unix"
)

// ErrNoLog is returned by Read when the folder holds no audit log yet.
var ErrNoLog = errors.New("no audit log yet")

// Line is one decoded audit line.
type Line struct {
	Schema  int             `json:"schema"`
	ID      string          `json:"id"`
	Time    time.Time       `json:"time"`
	Version string          `json:"version"`
	PID     int             `json:"pid"`
	Session string          `json:"session"`
	Turn    int             `json:"turn"`
	Call    string          `json:"call"`
	Kind    string          `json:"kind"`
	Details json.RawMessage `json:"details"`
	// Truncated says a text or list of the line was cut to fit.
	Truncated bool `json:"truncated"`
	// Raw is the line as stored, without its newline.
	Raw []byte `json:"-"`
}

// Decode returns the line's details as the typed struct of its kind (a
// value, e.g. CommandOutcome, never a pointer).
func (l Line) Decode() (Details, error) {
	zero, ok := Zero(l.Kind)
	if !ok {
		return nil, fmt.Errorf("audit: decode line %s: unknown kind %q", l.ID, l.Kind)
	}
	p := reflect.New(reflect.TypeOf(zero))
	if err := json.Unmarshal(l.Details, p.Interface()); err != nil {
		return nil, fmt.Errorf("audit: decode %s details of line %s: %w", l.Kind, l.ID, err)
	}
	return p.Elem().Interface().(Details), nil
}

// FormatError is a complete line that is not an audit line.
type FormatError struct {
	Path string
	Line int // 1-based, within Path
	Err  error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("audit: %s:%d: malformed line: %v", e.Path, e.Line, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// Filter selects lines. The zero Filter selects every line.
type Filter struct {
	// Session is a session id or a prefix of one.
	Session string
	// Kinds keeps lines of any of these kinds; empty keeps every kind.
	Kinds []string
	// Tool keeps lines whose details name this tool, and every line that
	// shares a call id with such a line (the verdict, approval and outcome
	// of that tool's calls).
	Tool string
	// Last keeps only the last N lines selected; 0 keeps all.
	Last int
	// Malformed, when set, is handed each malformed complete line, which
	// is then passed over; when nil, such a line ends the read with its
	// *FormatError.
	Malformed func(*FormatError)
}

// Read returns the lines f selects, oldest first, across the rotated files
// and the live one. A torn last line (a write still going on, or one that
// never finished) is skipped; a malformed complete line is a
// *FormatError. A folder without a log gives ErrNoLog.
func Read(dir string, f Filter) ([]Line, error) {
	files, err := snapshot(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("audit: read %s: %w", filepath.Join(dir, FileName), ErrNoLog)
	}
	defer closeAll(files)
	m := newMatcher(f)
	var out []Line
	for _, file := range files {
		data, err := io.ReadAll(file)
		if err != nil {
			return nil, fmt.Errorf("audit: read %s: %w", file.Name(), err)
		}
		_, _, err = scan(file.Name(), data, 0, f.Malformed, func(l Line) {
			if m.match(l) {
				out = append(out, l)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return lastN(out, f.Last), nil
}

// pollEvery is how often Follow looks for new lines, as tail -f does.
const pollEvery = 200 * time.Millisecond

// Follow calls out for the lines f selects already in the log (the last
// f.Last of them, when set), then for each new one as it is written, until
// ctx ends; it returns ctx's error then. It follows the live file across
// rotations and waits for a log that does not exist yet.
func Follow(ctx context.Context, dir string, f Filter, out func(Line)) error {
	t := &tail{path: filepath.Join(dir, FileName), m: newMatcher(f)}
	defer t.close()
	if err := t.backlog(dir, f.Last, out); err != nil {
		return err
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if err := t.poll(out); err != nil {
			return err
		}
	}
}

// tail is Follow's position in the log.
type tail struct {
	path string
	m    *matcher
	f    *os.File // the live file as last seen; nil until it exists
	off  int64    // bytes of f consumed, through its last complete line
	line int      // lines of f consumed
}

func (t *tail) close() {
	if t.f != nil {
		_ = t.f.Close()
	}
}

// backlog reads what the log holds now and keeps the live file open at
// its end, so no line is missed or shown twice.
func (t *tail) backlog(dir string, last int, out func(Line)) error {
	files, err := snapshot(dir)
	if err != nil {
		return err
	}
	var lines []Line
	keep := func(l Line) {
		if t.m.match(l) {
			lines = append(lines, l)
		}
	}
	for i, file := range files {
		data, err := io.ReadAll(file)
		if err != nil {
			closeAll(files[i:])
			return fmt.Errorf("audit: read %s: %w", file.Name(), err)
		}
		n, count, err := scan(file.Name(), data, 0, t.m.f.Malformed, keep)
		if err != nil {
			closeAll(files[i:])
			return err
		}
		if file.Name() == t.path {
			t.f, t.off, t.line = file, int64(n), count
			continue
		}
		_ = file.Close()
	}
	for _, l := range lastN(lines, last) {
		out(l)
	}
	return nil
}

// poll emits the lines written since the last poll. When the live file
// was rotated away, the old one is read to its end first (rotation happens
// under the writers' lock, so nothing is added to it afterwards), then any
// file rotated past it, then the new live file.
func (t *tail) poll(out func(Line)) error {
	emit := func(l Line) {
		if t.m.match(l) {
			out(l)
		}
	}
	if t.f == nil {
		f, err := os.Open(t.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit: follow %s: %w", t.path, err)
		}
		t.f, t.off, t.line = f, 0, 0
	}
	open, err := t.f.Stat()
	if err != nil {
		return fmt.Errorf("audit: follow %s: %w", t.path, err)
	}
	live, err := os.Stat(t.path)
	moved := err != nil || !os.SameFile(open, live)
	if open.Size() < t.off {
		t.off, t.line = 0, 0 // truncated by hand: start over
	}
	if err := t.readOn(emit); err != nil {
		return err
	}
	if !moved {
		return nil
	}
	// The file may have moved further than .1 if the log rotated more
	// than once between polls; read the files rotated after it. A file
	// not found among them was removed by hand: its successors are unknown.
	for k := 1; ; k++ {
		fi, err := os.Stat(rotated(t.path, k))
		if err != nil {
			break
		}
		if os.SameFile(open, fi) {
			for j := k - 1; j >= 1; j-- {
				if err := readWhole(rotated(t.path, j), t.m.f.Malformed, emit); err != nil {
					return err
				}
			}
			break
		}
	}
	_ = t.f.Close()
	t.f = nil
	return t.poll(out)
}

// readOn emits the complete lines of t.f after t.off.
func (t *tail) readOn(emit func(Line)) error {
	data, err := io.ReadAll(io.NewSectionReader(t.f, t.off, 1<<62))
	if err != nil {
		return fmt.Errorf("audit: follow %s: %w", t.path, err)
	}
	n, count, err := scan(t.path, data, t.line, t.m.f.Malformed, emit)
	t.off += int64(n)
	t.line += count
	return err
}

func readWhole(path string, malformed func(*FormatError), emit func(Line)) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit: read %s: %w", path, err)
	}
	_, _, err = scan(path, data, 0, malformed, emit)
	return err
}

// snapshot opens every file of the log, oldest first, while holding the
// writers' lock shared, so a rotation cannot make one file count twice or
// not at all. Open files stay valid when renamed afterwards.
func snapshot(dir string) ([]*os.File, error) {
	if lock, err := os.Open(filepath.Join(dir, lockName)); err == nil {
		defer lock.Close()
		if err := flock(lock, unix.LOCK_SH); err != nil {
			return nil, fmt.Errorf("audit: lock %s: %w", lock.Name(), err)
		}
		defer func() { _ = flock(lock, unix.LOCK_UN) }()
	}
	names, err := logFiles(dir)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	for _, name := range names {
		f, err := os.Open(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			closeAll(files)
			return nil, fmt.Errorf("audit: open %s: %w", name, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// logFiles lists the log's files, oldest first: audit.jsonl.N down to
// audit.jsonl.1, then audit.jsonl.
func logFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit: list %s: %w", dir, err)
	}
	var nums []int
	live := false
	for _, e := range entries {
		name := e.Name()
		if name == FileName {
			live = true
			continue
		}
		rest, ok := strings.CutPrefix(name, FileName+".")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n > 0 && strconv.Itoa(n) == rest {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	slices.Reverse(nums)
	path := filepath.Join(dir, FileName)
	var out []string
	for _, n := range nums {
		out = append(out, rotated(path, n))
	}
	if live {
		out = append(out, path)
	}
	return out, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// scan calls fn for every complete line of data, which starts after line
// `before` of path, and returns the bytes through the last newline and
// the number of lines in them. What follows the last newline is a write
// still going on or one that never finished, and is left alone. Blank
// lines are skipped. A malformed complete line goes to malformed and is
// passed over, or, with malformed nil, ends the scan as a *FormatError.
// Lines handed to fn keep pointing into data.
func scan(path string, data []byte, before int, malformed func(*FormatError), fn func(Line)) (consumed, lines int, err error) {
	for {
		i := bytes.IndexByte(data[consumed:], '\n')
		if i < 0 {
			return consumed, lines, nil
		}
		raw := data[consumed : consumed+i]
		consumed += i + 1
		lines++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		l, err := parseLine(raw)
		if err != nil {
			fe := &FormatError{Path: path, Line: before + lines, Err: err}
			if malformed == nil {
				return consumed, lines, fe
			}
			malformed(fe)
			continue
		}
		fn(l)
	}
}

// parseLine decodes one line and checks it is an audit line. segmentio's
// decoder is a drop-in for encoding/json that decodes these lines about
// twice as fast, which is what a filter over 60 MB of log spends its time on.
func parseLine(raw []byte) (Line, error) {
	var l Line
	if _, err := json.Parse(raw, &l, json.DontMatchCaseInsensitiveStructFields); err != nil {
		return Line{}, err
	}
	switch {
	case l.Schema < 1:
		return Line{}, errors.New("no schema version")
	case l.ID == "":
		return Line{}, errors.New("no id")
	case l.Time.IsZero():
		return Line{}, errors.New("no time")
	case l.Kind == "":
		return Line{}, errors.New("no kind")
	case len(l.Details) == 0 || l.Details[0] != '{':
		return Line{}, errors.New("details are not an object")
	}
	l.Raw = raw
	return l, nil
}

// matcher applies a Filter, remembering which calls belong to the tool.
type matcher struct {
	f     Filter
	calls map[string]bool // session + "\x00" + call id, for f.Tool
}

func newMatcher(f Filter) *matcher {
	return &matcher{f: f, calls: map[string]bool{}}
}

func (m *matcher) match(l Line) bool {
	if !strings.HasPrefix(l.Session, m.f.Session) {
		return false
	}
	if m.f.Tool != "" && !m.tool(l) {
		return false
	}
	return len(m.f.Kinds) == 0 || slices.Contains(m.f.Kinds, l.Kind)
}

// tool says whether l belongs to a call of m.f.Tool. It runs before the
// kind check so that a tool.call line teaches the matcher its call id even
// when only the call's outcomes are shown.
func (m *matcher) tool(l Line) bool {
	key := l.Session + "\x00" + l.Call
	if l.Call != "" && m.calls[key] {
		return true
	}
	var named struct {
		Tool string `json:"tool"`
	}
	if json.Unmarshal(l.Details, &named) != nil || named.Tool != m.f.Tool {
		return false
	}
	if l.Call != "" {
		m.calls[key] = true
	}
	return true
}

func lastN(lines []Line, n int) []Line {
	if n > 0 && len(lines) > n {
		return lines[len(lines)-n:]
	}
	return lines
}
