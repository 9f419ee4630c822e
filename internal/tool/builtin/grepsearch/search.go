// Package grepsearch is the engine behind the grep tool: a matcher that
// finds matching lines fast (a required literal first, the regexp only
// on the lines that hold it) and a search that runs it over one file or,
// through filespace's walker, a tree, and renders the bounded report.
//
// It must never open a path itself: every file comes through filespace,
// so the workspace confinement and ignore rules hold; and it never holds
// the tool's spec or description, which stay in builtin/grep.go.
package grepsearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filetext"
)

// Bounds of every search.
const (
	MaxLineRunes = 500
	// MaxOutput bounds the text returned, context lines included.
	MaxOutput = 50 << 10
	// MaxFileBytes skips files too big to hold in memory per worker;
	// the result says how many were skipped.
	MaxFileBytes = 64 << 20
)

// Search is one grep call: the matcher, the results gathered by the
// workers, and what was skipped.
type Search struct {
	matcher *Matcher
	context int
	limit   int

	matches atomic.Int64 // matches recorded, at most limit
	capped  atomic.Bool  // a match beyond limit was seen
	cut     atomic.Bool  // some line was cut to MaxLineRunes
	binary  atomic.Int64
	big     atomic.Int64
	failed  atomic.Int64

	mu      sync.Mutex
	results []grepFileResult
}

// New starts a search with m, showing context lines around each match
// and recording at most limit matches.
func New(m *Matcher, context, limit int) *Search {
	return &Search{matcher: m, context: context, limit: limit}
}

// Binary reports whether a file searched was skipped as binary.
func (s *Search) Binary() bool { return s.binary.Load() > 0 }

type grepFileResult struct {
	rel   string
	lines []grepLine
}

type grepLine struct {
	no    int
	text  string
	match bool
	sep   bool // not a line: the "--" between groups
}

// Tree searches every file below start with one worker per CPU; keep,
// when set, chooses the files searched.
func (s *Search) Tree(ctx context.Context, space *filespace.Space, start string, keep func(filespace.Entry) bool) error {
	workers := runtime.NumCPU()
	bufs := make([][]byte, workers)
	w := &filespace.Walker{Space: space, Workers: workers}
	w.OnFile = func(e filespace.Entry, worker int) {
		if s.capped.Load() {
			return
		}
		if keep != nil && !keep(e) {
			return
		}
		data, err := e.ReadFile(&bufs[worker], MaxFileBytes)
		switch {
		case errors.Is(err, filespace.ErrTooBig):
			s.big.Add(1)
		case errors.Is(err, filespace.ErrNotRegular):
		case err != nil:
			s.failed.Add(1)
		default:
			s.searchData(data, e.Rel)
		}
		if s.capped.Load() {
			w.Halt()
		}
	}
	if err := w.Walk(ctx, start); err != nil {
		return err
	}
	s.failed.Add(w.Unreadable.Load())
	return nil
}

// File reads f whole and records its matching lines.
func (s *Search) File(f *os.File, rel string) {
	fi, err := f.Stat()
	switch {
	case err != nil:
		s.failed.Add(1)
		return
	case !fi.Mode().IsRegular():
		return
	case fi.Size() > MaxFileBytes:
		s.big.Add(1)
		return
	}
	data, err := io.ReadAll(f)
	if err != nil {
		s.failed.Add(1)
		return
	}
	s.searchData(data, rel)
}

// searchData records the matching lines of one file's contents.
func (s *Search) searchData(data []byte, rel string) {
	if len(data) == 0 {
		return
	}
	if bytes.IndexByte(data[:min(len(data), filetext.BinarySample)], 0) >= 0 {
		s.binary.Add(1)
		return
	}

	var hits []grepHit
	lineNo, counted := 1, 0
	s.matcher.Scan(data, func(start, end int) bool {
		lineNo += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		if s.matches.Add(1) > int64(s.limit) {
			s.matches.Add(-1)
			s.capped.Store(true)
			return false
		}
		hits = append(hits, grepHit{no: lineNo, start: start, end: end})
		return true
	})
	if len(hits) == 0 {
		return
	}
	res := grepFileResult{rel: rel}
	if s.context == 0 {
		for _, h := range hits {
			res.lines = append(res.lines, grepLine{no: h.no, text: s.lineText(data[h.start:h.end]), match: true})
		}
	} else {
		res.lines = s.withContext(data, hits)
	}
	s.mu.Lock()
	s.results = append(s.results, res)
	s.mu.Unlock()
}

type grepHit struct{ no, start, end int }

func (s *Search) lineText(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if cut, ok := filetext.CutRunes(line, MaxLineRunes); ok {
		s.cut.Store(true)
		return strings.ToValidUTF8(string(cut), "\uFFFD") + "…"
	}
	return strings.ToValidUTF8(string(line), "\uFFFD")
}

// withContext lays out the hits with up to s.context lines around each,
// merging groups that touch and marking gaps with "--", as grep -C does.
func (s *Search) withContext(data []byte, hits []grepHit) []grepLine {
	var out []grepLine
	last := 0 // last line number written
	for i, h := range hits {
		// Lines before the hit, walking back from its start.
		from := max(h.no-s.context, last+1, 1)
		var before [][]byte
		p := h.start
		for no := h.no - 1; no >= from; no-- {
			prevEnd := p - 1 // the '\n' ending line no
			prevStart := bytes.LastIndexByte(data[:prevEnd], '\n') + 1
			before = append(before, data[prevStart:prevEnd])
			p = prevStart
		}
		if last > 0 && from > last+1 {
			out = append(out, grepLine{sep: true})
		}
		for j := len(before) - 1; j >= 0; j-- {
			out = append(out, grepLine{no: h.no - 1 - j, text: s.lineText(before[j])})
		}
		out = append(out, grepLine{no: h.no, text: s.lineText(data[h.start:h.end]), match: true})
		last = h.no
		// Lines after, up to the next hit.
		to := h.no + s.context
		if i+1 < len(hits) {
			to = min(to, hits[i+1].no-1)
		}
		p = h.end
		for no := h.no + 1; no <= to; no++ {
			start := p + 1
			if start >= len(data) {
				break // past the last line
			}
			end := bytes.IndexByte(data[start:], '\n')
			if end < 0 {
				end = len(data)
			} else {
				end += start
			}
			out = append(out, grepLine{no: no, text: s.lineText(data[start:end])})
			last = no
			p = end
		}
	}
	return out
}

// Report renders the results sorted by path, at most s.limit matches.
func (s *Search) Report() string {
	slices.SortFunc(s.results, func(a, b grepFileResult) int { return strings.Compare(a.rel, b.rel) })
	var b strings.Builder
	full := false
results:
	for i, r := range s.results {
		if i > 0 && s.context > 0 {
			b.WriteString("--\n")
		}
		for _, l := range r.lines {
			if b.Len() > MaxOutput {
				full = true
				break results
			}
			switch {
			case l.sep:
				b.WriteString("--\n")
			case l.match:
				fmt.Fprintf(&b, "%s:%d:%s\n", r.rel, l.no, l.text)
			default:
				fmt.Fprintf(&b, "%s-%d-%s\n", r.rel, l.no, l.text)
			}
		}
	}
	if len(s.results) == 0 {
		b.WriteString("no matches\n")
	}
	if full {
		fmt.Fprintf(&b, "[output cut at %d KB; narrow the pattern, path or glob, or use less context]\n", MaxOutput>>10)
	}
	if s.capped.Load() {
		fmt.Fprintf(&b, "[results capped at %d matches; narrow the pattern, path or glob]\n", s.limit)
	}
	if s.cut.Load() {
		fmt.Fprintf(&b, "[lines cut at %d characters]\n", MaxLineRunes)
	}
	var skipped []string
	if n := s.big.Load(); n > 0 {
		skipped = append(skipped, plural(int(n), "file", "files")+fmt.Sprintf(" over %d MB", MaxFileBytes>>20))
	}
	if n := s.failed.Load(); n > 0 {
		skipped = append(skipped, plural(int(n), "unreadable entry", "unreadable entries"))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "[skipped %s]\n", strings.Join(skipped, ", "))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
