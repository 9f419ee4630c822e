package transcript

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/segmentio/encoding/json"

	"github.com/wisp-agent/wisp/internal/chat"
)

// Layout of a session folder: one subfolder per working directory (the
// first 16 hex digits of the SHA-256 of the cleaned path), so finding the
// newest session of a directory lists one small folder and reads one
// header; file names start with the UTC start time, so they sort by age.

// cwdKey names the subfolder of a working directory.
func cwdKey(cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return hex.EncodeToString(sum[:8])
}

// fileRef is a transcript known by its name alone.
type fileRef struct {
	path  string
	stamp string
	id    string
}

// parseName splits "<stamp>_<id>.jsonl".
func parseName(name string) (stamp, id string, ok bool) {
	base, found := strings.CutSuffix(name, ".jsonl")
	if !found {
		return "", "", false
	}
	stamp, id, found = strings.Cut(base, "_")
	if !found || !validID(id) {
		return "", "", false
	}
	if _, err := time.Parse(stampLayout, stamp); err != nil {
		return "", "", false
	}
	return stamp, id, true
}

// filesIn lists the transcripts directly in dir. A missing folder holds
// none.
func filesIn(dir string) ([]fileRef, []os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("session: list %s: %w", dir, err)
	}
	var out []fileRef
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if stamp, id, ok := parseName(e.Name()); ok {
			out = append(out, fileRef{path: filepath.Join(dir, e.Name()), stamp: stamp, id: id})
		}
	}
	return out, entries, nil
}

// allFiles lists the transcripts in dir and its cwd subfolders. Files
// put directly in dir (by hand, or by a flat layout) count too.
func allFiles(dir string) ([]fileRef, error) {
	out, entries, err := filesIn(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub, _, err := filesIn(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// Find resolves what a person typed after --resume: a transcript's path
// (anything with a path separator or ending in .jsonl), a session id, or
// an unambiguous prefix of one. No match wraps ErrNotFound; several wrap
// ErrAmbiguous and are listed, newest first.
func Find(dir, q string) (string, error) {
	if q == "" {
		return "", fmt.Errorf("session: no session id given: %w", ErrNotFound)
	}
	if strings.ContainsRune(q, filepath.Separator) || strings.ContainsRune(q, '/') || strings.HasSuffix(q, ".jsonl") {
		fi, err := os.Stat(q)
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("session: %s: %w", q, ErrNotFound)
		}
		if err != nil {
			return "", fmt.Errorf("session: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("session: %s is not a transcript file", q)
		}
		return q, nil
	}
	files, err := allFiles(dir)
	if err != nil {
		return "", err
	}
	sortNewestFirst(files)
	var matches []fileRef
	for _, f := range files {
		if f.id == q {
			return f.path, nil
		}
		if strings.HasPrefix(f.id, q) {
			matches = append(matches, f)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("session: no session %q in %s: %w", q, dir, ErrNotFound)
	case 1:
		return matches[0].path, nil
	}
	var names []string
	for _, m := range matches {
		names = append(names, m.id+" ("+m.stamp+")")
	}
	return "", fmt.Errorf("session: %w %q: it matches %d sessions: %s", ErrAmbiguous, q, len(matches), strings.Join(names, ", "))
}

func sortNewestFirst(files []fileRef) {
	sort.Slice(files, func(i, j int) bool {
		if files[i].stamp != files[j].stamp {
			return files[i].stamp > files[j].stamp
		}
		return files[i].path > files[j].path
	})
}

// DamagedError says the newest session of a folder cannot be resumed
// because its header cannot be read.
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the newest session, %s, is damaged: %v", Escape(e.Path), e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Latest returns the newest (by start time) session whose header names
// cwd as its working directory. None wraps ErrNotFound. When the newest
// file of the folder has a header that cannot be read, Latest returns a
// *DamagedError naming it rather than passing it over: the person asked
// for the newest session, and an older one is not it.
func Latest(dir, cwd string) (string, error) {
	if cwd != "" {
		cwd = filepath.Clean(cwd)
	}
	files, _, err := filesIn(filepath.Join(dir, cwdKey(cwd)))
	if err != nil {
		return "", err
	}
	sortNewestFirst(files)
	var best fileRef
	var bestStart time.Time
	for _, f := range files {
		if best.path != "" && f.stamp != best.stamp {
			// Names order by the second; only a tie needs the headers'
			// finer start times.
			break
		}
		h, err := readHeader(f.path)
		var fe *FormatError
		if best.path == "" && errors.As(err, &fe) {
			return "", &DamagedError{Path: f.path, Err: err}
		}
		if err != nil || h.Cwd != cwd {
			continue
		}
		if best.path == "" || h.Start.After(bestStart) {
			best, bestStart = f, h.Start
		}
	}
	if best.path == "" {
		return "", fmt.Errorf("session: no session for %s in %s: %w", cwd, dir, ErrNotFound)
	}
	return best.path, nil
}

// readHeader decodes the first line of a transcript only.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	return header(path, bufio.NewReaderSize(f, 16<<10))
}

// maxHeaderLine bounds what is read looking for the header, so a stray
// huge file in the folder costs little.
const maxHeaderLine = 1 << 20

// header reads up to the first non-blank complete line, which must be
// the session record.
func header(path string, br *bufio.Reader) (Header, error) {
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(br, maxHeaderLine)
		if err != nil {
			return Header{}, fmt.Errorf("session: %s: no complete header line: %w", path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r Record
		if err := decodeLine(line, &r, true); err != nil {
			return Header{}, &FormatError{Path: path, Line: lineNo, Err: err}
		}
		return headerOf(r), nil
	}
}

// readLine returns one complete line without its newline; a line that
// ends without one is torn and reads as io.ErrUnexpectedEOF.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case err == bufio.ErrBufferFull:
			if len(line) > limit {
				return nil, fmt.Errorf("line longer than %d bytes", limit)
			}
		case err == io.EOF && len(line) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// Summary describes a session for a listing.
type Summary struct {
	ID       string
	Path     string
	Time     time.Time // start
	Cwd      string
	Provider string
	Model    string
	// Messages counts the message records on every branch.
	Messages int
	// FirstPrompt is the first user text, on one line, at most 80
	// characters.
	FirstPrompt string
	// Damaged says what is wrong with the file, control bytes escaped:
	// the first malformed line, or an unreadable header; empty when the
	// file is sound.
	Damaged string
	// Parent is the session this one was forked from.
	Parent string
}

// List describes every session in dir, newest first. A file whose header
// cannot be read is still listed, with what its name tells (id, start)
// and Damaged set, so one damaged transcript neither hides the others
// nor hides itself. A missing folder lists nothing.
func List(dir string) ([]Summary, error) {
	files, err := allFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(files))
	for _, f := range files {
		s, err := summarize(f.path)
		if err != nil {
			s = Summary{ID: f.id, Path: f.path, Damaged: damageNote(err)}
			s.Time, _ = time.Parse(stampLayout, f.stamp)
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.After(out[j].Time)
		}
		return out[i].Path > out[j].Path
	})
	return out, nil
}

// damageNote is what a listing says about an unreadable file.
func damageNote(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fmt.Sprintf("line %d: %s", fe.Line, clip(Escape(fe.Err.Error()), 120))
	}
	return Escape(err.Error())
}

// messagePrefix starts every message line this package writes (Record's
// field order), so counting messages needs no decoding.
var messagePrefix = []byte(`{"type":"message"`)

// typePrefix starts every line this package writes.
var typePrefix = []byte(`{"type":"`)

// summarize reads the header, then only looks at the start of each line,
// decoding just the lines needed to find the first prompt.
func summarize(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	return summarizeFrom(path, f)
}

func summarizeFrom(path string, r io.Reader) (Summary, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := header(path, br)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{ID: h.ID, Path: path, Time: h.Start, Cwd: h.Cwd, Provider: h.Provider, Model: h.Model, Parent: h.Parent}
	var full []byte
	lineNo := 1 // the header's line, when no blank lines come first
	for {
		lineNo++
		chunk, err := br.ReadSlice('\n')
		isMsg := bytes.HasPrefix(chunk, messagePrefix)
		// Checking a line means holding it whole, so only the first
		// bad line is looked for; lines this package wrote start with
		// the type key.
		check := s.Damaged == "" && !bytes.HasPrefix(chunk, typePrefix)
		wantPrompt := isMsg && s.FirstPrompt == ""
		keep := wantPrompt || s.Damaged == ""
		full = full[:0]
		if keep {
			full = append(full, chunk...)
		}
		for err == bufio.ErrBufferFull {
			chunk, err = br.ReadSlice('\n')
			if keep {
				full = append(full, chunk...)
			}
		}
		if err == io.EOF {
			// Whatever is left has no newline: torn, not counted.
			return s, nil
		}
		if err != nil {
			return Summary{}, fmt.Errorf("session: read %s: %w", Escape(path), err)
		}
		if s.Damaged == "" && (check || !json.Valid(full)) && !blank(full) {
			var r Record
			if derr := decodeLine(bytes.TrimSuffix(full, []byte{'\n'}), &r, false); derr != nil {
				s.Damaged = fmt.Sprintf("line %d: %s", lineNo, clip(Escape(derr.Error()), 120))
				continue
			}
		}
		if !isMsg {
			continue
		}
		s.Messages++
		if wantPrompt {
			var r Record
			if json.Unmarshal(full, &r) == nil && r.Message != nil && r.Message.Role == chat.User {
				s.FirstPrompt = oneLine(afterPiped(r.Message.TextOf()), 80)
			}
		}
	}
}

// oneLine folds whitespace runs to single spaces and cuts to limit
// runes, marking a cut with an ellipsis.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit-1]) + "…"
}

// afterPiped drops the fenced block piped input puts before a prompt
// (cat log | wisp -p "why?"): the listing names the question, not the
// log. A prompt that is only a fenced block is kept as it is.
func afterPiped(text string) string {
	if !strings.HasPrefix(text, "```") {
		return text
	}
	fence := text[:len(text)-len(strings.TrimLeft(text, "`"))]
	body := text[len(fence):]
	end := strings.Index(body, "\n"+fence+"\n")
	if end < 0 {
		return text
	}
	if rest := strings.TrimSpace(body[end+len(fence)+2:]); rest != "" {
		return rest
	}
	return text
}
