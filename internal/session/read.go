package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/segmentio/encoding/json"

	"github.com/wisp-agent/wisp/internal/chat"
)

// Load reads a transcript: its header and every record after it, in file
// order. A torn last line is dropped; a malformed complete line is a
// *FormatError naming the file and line.
func Load(path string) (Header, []Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Header{}, nil, fmt.Errorf("session: read %s: %w", path, err)
	}
	return parse(path, data)
}

// parse decodes a whole transcript. Only bytes up to the last newline
// count: whatever follows it is a write that never finished. Lines are
// decoded on all cores, since resuming a long session is mostly JSON
// decoding; errors are still reported for the first bad line.
func parse(path string, data []byte) (Header, []Record, error) {
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return Header{}, nil, fmt.Errorf("session: %s: empty transcript (no complete header line)", path)
	}
	data = data[:end+1]
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'}))
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		lines = append(lines, data[:i])
		data = data[i+1:]
	}
	first := -1
	for i, l := range lines {
		if !blank(l) {
			first = i
			break
		}
	}
	if first < 0 {
		return Header{}, nil, fmt.Errorf("session: %s: empty transcript (no complete header line)", path)
	}

	decoded := make([]Record, len(lines))
	workers := min(runtime.GOMAXPROCS(0), len(lines)/512+1)
	errs := make([]*FormatError, workers)
	per := (len(lines) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(lines))
		wg.Go(func() {
			for i := lo; i < hi; i++ {
				if i < first || blank(lines[i]) {
					continue
				}
				if err := decodeLine(lines[i], &decoded[i], i == first); err != nil {
					errs[w] = &FormatError{Path: path, Line: i + 1, Err: err}
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return Header{}, nil, err
		}
	}

	h := headerOf(decoded[first])
	records := decoded[first+1:]
	// Blank lines left empty slots; squeeze them out (rare: only editors
	// add blank lines).
	out := records[:0]
	for i := range records {
		if records[i].Type != "" {
			out = append(out, records[i])
		}
	}
	return h, out, nil
}

func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// decodeLine decodes one line into r and checks it may stand where it
// stands. segmentio's decoder is a drop-in for encoding/json that
// measured about twice as fast on transcripts, which is what keeps
// resuming a 10,000-record session well inside 100 ms.
func decodeLine(line []byte, r *Record, first bool) error {
	if err := json.Unmarshal(line, r); err != nil {
		return err
	}
	if r.Type == "" {
		return errors.New("record without type")
	}
	return check(r, first)
}

// check says whether a decoded record may stand where it stands.
func check(r *Record, first bool) error {
	if first {
		if r.Type != TypeSession {
			return fmt.Errorf("first record has type %q, want %q", r.Type, TypeSession)
		}
		if r.Version < 1 {
			return errors.New("header without a format version")
		}
		if r.Version > FormatVersion {
			return fmt.Errorf("format version %d is newer than this wisp reads (%d)", r.Version, FormatVersion)
		}
		if !validID(r.ID) {
			return fmt.Errorf("header has invalid session id %q", r.ID)
		}
		return nil
	}
	if r.ID == "" {
		return fmt.Errorf("%s record without id", r.Type)
	}
	switch r.Type {
	case TypeMessage:
		if r.Message == nil {
			return errors.New("message record without message")
		}
	case TypeEvent:
		if r.Event == nil {
			return errors.New("event record without event")
		}
	case TypeSession:
		return errors.New("second session header")
	default:
		return fmt.Errorf("unknown record type %q", r.Type)
	}
	return nil
}

// parentIndex maps each record to the index of its parent, or -1 for a
// root. A parent is the nearest earlier record with that id: a record
// cannot name a later one, so the links never form a cycle, and a
// (vanishingly unlikely) id clash between two writers still resolves the
// same way every time.
func parentIndex(records []Record) []int {
	seen := make(map[string]int, len(records))
	out := make([]int, len(records))
	for i, r := range records {
		p, ok := seen[r.Parent]
		if r.Parent == "" || !ok {
			p = -1
		}
		out[i] = p
		seen[r.ID] = i
	}
	return out
}

func branchAt(records []Record, leaf int) []Record {
	parent := parentIndex(records)
	n := 0
	for i := leaf; i >= 0; i = parent[i] {
		n++
	}
	out := make([]Record, n)
	for i := leaf; i >= 0; i = parent[i] {
		n--
		out[n] = records[i]
	}
	return out
}

// Branch returns the path from the root to the record leafID, root first.
// When several records share the id, the latest one is the leaf.
func Branch(records []Record, leafID string) ([]Record, error) {
	for i := len(records) - 1; i >= 0; i-- {
		if records[i].ID == leafID {
			return branchAt(records, i), nil
		}
	}
	return nil, fmt.Errorf("session: record %q: %w", leafID, ErrNotFound)
}

// Messages returns the conversation along the branch of the latest record
// (the last line written), which is what resuming continues.
func Messages(records []Record) []chat.Message {
	if len(records) == 0 {
		return nil
	}
	var out []chat.Message
	for _, r := range branchAt(records, len(records)-1) {
		if r.Type == TypeMessage && r.Message != nil {
			out = append(out, *r.Message)
		}
	}
	return out
}
