package transcript

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

// Transcript is a transcript file as read: its header, every good record
// in file order, the malformed lines that were skipped, and the record
// the conversation continues from.
type Transcript struct {
	Path    string
	Header  Header
	Records []Record
	// Damage lists every malformed complete line, in file order.
	Damage []*FormatError
	// Leaf is the index in Records of the record a resumed run
	// continues from; -1 when there is none.
	Leaf int
	// lines holds each record's line number, for salvage.
	lines []int
}

// Unhandled returns the malformed lines no salvage record has handled
// yet: the ones after the newest salvage record.
func (t *Transcript) Unhandled() []*FormatError {
	after := 0
	for i := len(t.Records) - 1; i >= 0; i-- {
		if t.Records[i].Type == TypeSalvage {
			after = t.lines[i]
			break
		}
	}
	for i, d := range t.Damage {
		if d.Line > after {
			return t.Damage[i:]
		}
	}
	return nil
}

// Messages returns the conversation along the branch a resumed run
// continues.
func (t *Transcript) Messages() []chat.Message {
	if t.Leaf < 0 {
		return nil
	}
	return conversation(branchAt(t.Records, t.Leaf))
}

// Branch returns the records from the root to the leaf, root first.
func (t *Transcript) Branch() []Record {
	if t.Leaf < 0 {
		return nil
	}
	return branchAt(t.Records, t.Leaf)
}

// leaf picks where a resumed run continues: the newest record, unless a
// malformed line no salvage record has handled comes first; then the
// last good record before that line, since what follows it may hang off
// the record the bad line was.
func (t *Transcript) leaf() int {
	un := t.Unhandled()
	if len(un) == 0 {
		return len(t.Records) - 1
	}
	leaf := -1
	for i, l := range t.lines {
		if l > un[0].Line {
			break
		}
		leaf = i
	}
	return leaf
}

// Read reads a transcript, skipping malformed complete lines (listed in
// Damage) and a torn last line. Only a missing or malformed header is an
// error: a *FormatError naming line 1 (or the first non-blank line).
func Read(path string) (*Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("session: read %s: %w", Escape(path), err)
	}
	return parse(path, data)
}

// Load reads a transcript strictly: its header and every record after
// it, in file order. A torn last line is dropped; a malformed complete
// line is a *FormatError naming the file and line.
func Load(path string) (Header, []Record, error) {
	t, err := Read(path)
	if err != nil {
		return Header{}, nil, err
	}
	if len(t.Damage) > 0 {
		return Header{}, nil, t.Damage[0]
	}
	return t.Header, t.Records, nil
}

// parse decodes a whole transcript. Only bytes up to the last newline
// count: whatever follows it is a write that never finished. Lines are
// decoded on all cores, since resuming a long session is mostly JSON
// decoding.
func parse(path string, data []byte) (*Transcript, error) {
	end := bytes.LastIndexByte(data, '\n')
	if end < 0 {
		return nil, fmt.Errorf("session: %s: empty transcript (no complete header line)", Escape(path))
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
		return nil, fmt.Errorf("session: %s: empty transcript (no complete header line)", Escape(path))
	}

	decoded := make([]Record, len(lines))
	bad := decodeAll(path, lines, first, decoded)
	if len(bad) > 0 && bad[0].Line == first+1 {
		return nil, bad[0]
	}
	t := &Transcript{Path: path, Header: headerOf(decoded[first]), Damage: bad}
	// Blank and malformed lines left empty slots; squeeze them out.
	t.Records = make([]Record, 0, len(lines)-first-1)
	t.lines = make([]int, 0, len(lines)-first-1)
	for i := first + 1; i < len(lines); i++ {
		if decoded[i].Type != "" {
			t.Records = append(t.Records, decoded[i])
			t.lines = append(t.lines, i+1)
		}
	}
	t.Leaf = t.leaf()
	return t, nil
}

// decodeAll decodes lines[first:] into decoded on all cores and returns
// the malformed lines in file order, leaving their slots empty.
func decodeAll(path string, lines [][]byte, first int, decoded []Record) []*FormatError {
	workers := min(runtime.GOMAXPROCS(0), len(lines)/512+1)
	errs := make([][]*FormatError, workers)
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
					decoded[i] = Record{}
					errs[w] = append(errs[w], &FormatError{Path: path, Line: i + 1, Err: err, Excerpt: excerpt(lines[i])})
				}
			}
		})
	}
	wg.Wait()
	var out []*FormatError
	for _, e := range errs {
		out = append(out, e...)
	}
	return out
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
		if r.Parent != "" && !validID(r.Parent) {
			return fmt.Errorf("header has invalid parent session id %q", r.Parent)
		}
		return nil
	}
	if r.ID == "" {
		return fmt.Errorf("%s record without id", Escape(r.Type))
	}
	switch r.Type {
	case TypeMessage:
		if r.Message == nil {
			return errors.New("message record without message")
		}
	case TypeEvent:
		if r.Event.Event == nil {
			return errors.New("event record without event")
		}
	case TypeSalvage:
	case TypeCheckpoint:
		if r.Checkpoint == nil {
			return errors.New("checkpoint record without checkpoint")
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
// (the last line written).
func Messages(records []Record) []chat.Message {
	if len(records) == 0 {
		return nil
	}
	return conversation(branchAt(records, len(records)-1))
}
