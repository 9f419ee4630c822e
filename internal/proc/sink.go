package proc

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"unicode/utf8"
)

// Bound limits how much of one output stream is kept in memory and shown:
// the tail of at most Bytes bytes and Lines lines. A zero field takes the
// default.
type Bound struct {
	Bytes int
	Lines int
}

// Defaults of Bound and of the saved full output.
const (
	DefaultBoundBytes = 50 * 1024
	DefaultBoundLines = 2000
	DefaultFileLimit  = 64 << 20
)

func (b Bound) withDefaults() Bound {
	if b.Bytes <= 0 {
		b.Bytes = DefaultBoundBytes
	}
	if b.Lines <= 0 {
		b.Lines = DefaultBoundLines
	}
	return b
}

// Stream is what one output stream (stdout or stderr) produced over a
// window: the whole run for Run, the output since the last poll for Poll.
type Stream struct {
	// Text is the kept tail, byte for byte as the process wrote it.
	Text string
	// Truncated is set when Text is not everything written in the window.
	Truncated bool
	// Lines counts the lines in Text.
	Lines int
	// TotalBytes and TotalLines count what was written in the window.
	TotalBytes int64
	TotalLines int64
	// File holds the stream's whole output since the start of the
	// process; it is set once the stream outgrew the bound. FileCapped says
	// the file stopped growing at the file limit; FileErr says why it
	// could not be written.
	File       string
	FileCapped bool
	FileErr    string
}

// mark is a position in a stream: bytes and newlines written before it.
type mark struct {
	bytes, newlines int64
}

// sink receives one stream. It keeps a bounded tail in memory and, once
// the stream outgrows the bound, copies everything to a file so that
// nothing is lost to the model that asks for it.
type sink struct {
	name      string // "stdout" or "stderr", part of the file name
	bound     Bound
	dir       string
	fileLimit int64

	mu       sync.Mutex
	buf      []byte // the stream from offset base to total
	base     int64
	baseAtNL bool // the byte before base was a newline
	total    int64
	newlines int64
	endsNL   bool

	file       *os.File
	path       string
	fileBytes  int64
	fileCapped bool
	fileErr    error
}

func newSink(name string, bound Bound, dir string, fileLimit int64) *sink {
	return &sink{name: name, bound: bound, dir: dir, fileLimit: fileLimit}
}

// Write never fails: a process must not die of a full disk on our side.
func (s *sink) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += int64(len(p))
	s.newlines += int64(bytes.Count(p, []byte{'\n'}))
	s.endsNL = p[len(p)-1] == '\n'
	s.buf = append(s.buf, p...)

	switch {
	case s.file != nil:
		s.save(p)
	case s.fileErr == nil && s.over():
		// The buffer still holds the whole stream here: trimming (below)
		// starts only past twice the bound, which is past the bound.
		s.spill()
	}
	if len(s.buf) > 2*s.bound.Bytes {
		drop := len(s.buf) - s.bound.Bytes
		s.baseAtNL = s.buf[drop-1] == '\n'
		s.buf = append(s.buf[:0], s.buf[drop:]...)
		s.base += int64(drop)
	}
	return len(p), nil
}

func (s *sink) over() bool {
	return s.total > int64(s.bound.Bytes) || s.lineCount() > int64(s.bound.Lines)
}

func (s *sink) lineCount() int64 {
	n := s.newlines
	if s.total > 0 && !s.endsNL {
		n++
	}
	return n
}

func (s *sink) spill() {
	f, err := os.CreateTemp(s.dir, "wisp-"+s.name+"-*.log")
	if err != nil {
		s.fileErr = fmt.Errorf("save full %s: %w", s.name, err)
		return
	}
	s.file, s.path = f, f.Name()
	s.save(s.buf)
}

func (s *sink) save(p []byte) {
	if s.fileErr != nil || s.fileCapped {
		return
	}
	if room := s.fileLimit - s.fileBytes; int64(len(p)) > room {
		p = p[:room]
		s.fileCapped = true
	}
	n, err := s.file.Write(p)
	s.fileBytes += int64(n)
	if err != nil {
		s.fileErr = fmt.Errorf("save full %s to %s: %w", s.name, s.path, err)
	}
}

// close ends the stream and releases the file.
func (s *sink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return
	}
	if err := s.file.Close(); err != nil && s.fileErr == nil {
		s.fileErr = fmt.Errorf("save full %s to %s: %w", s.name, s.path, err)
	}
	s.file = nil
}

// since returns what was written after m, bounded, and the mark to pass
// next time.
func (s *sink) since(m mark) (Stream, mark) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stream{TotalBytes: s.total - m.bytes, TotalLines: s.newlines - m.newlines}
	if st.TotalBytes > 0 && !s.endsNL {
		st.TotalLines++
	}
	start, lost := m.bytes, false
	if start < s.base {
		start, lost = s.base, true
	}
	kept, cut := tail(s.buf[start-s.base:], s.bound, lost && !s.baseAtNL)
	st.Text = string(kept)
	st.Lines = countLines(kept)
	st.Truncated = cut || lost
	if s.path != "" {
		st.File, st.FileCapped = s.path, s.fileCapped
	}
	if s.fileErr != nil {
		st.FileErr = s.fileErr.Error()
	}
	return st, mark{s.total, s.newlines}
}

// tail keeps the end of b within the bound. When b was cut at the front
// (or already starts mid-stream, partial), the kept text starts at a line
// boundary if there is one, else at a character boundary, so the model
// never sees half a line or half a rune first.
func tail(b []byte, max Bound, partial bool) (kept []byte, cut bool) {
	if len(b) > max.Bytes {
		partial = b[len(b)-max.Bytes-1] != '\n'
		b, cut = b[len(b)-max.Bytes:], true
	}
	if partial && len(b) > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b, cut = b[i+1:], true
		} else {
			for k := 0; k < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); k++ {
				b, cut = b[1:], true
			}
		}
	}
	if countLines(b) > max.Lines {
		end := len(b)
		if b[end-1] == '\n' {
			end--
		}
		seen := 0
		for i := end - 1; i >= 0; i-- {
			if b[i] == '\n' {
				seen++
				if seen == max.Lines {
					b, cut = b[i+1:], true
					break
				}
			}
		}
	}
	return b, cut
}

// countLines counts lines, a last line without a newline included.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
