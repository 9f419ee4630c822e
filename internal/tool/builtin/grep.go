package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/tool"
)

//go:embed grep.md
var grepDescription string

var grepSchema = json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"},"ignore_case":{"type":"boolean"},"context":{"type":"integer","description":"lines around each match"}},"required":["pattern"]}`)

const (
	grepMaxMatches   = 100
	grepMaxLineRunes = 500
	grepMaxContext   = 10
	// grepMaxOutput bounds the text returned, context lines included.
	grepMaxOutput = 50 << 10
	// grepMaxFileBytes skips files too big to hold in memory per worker;
	// the result says how many were skipped.
	grepMaxFileBytes = 64 << 20
)

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
	Context    int    `json:"context"`
}

type grepTool struct{}

// Grep returns the grep tool: a parallel regexp search of the workspace.
func Grep() tool.Tool { return grepTool{} }

func (grepTool) Spec() tool.Spec {
	return tool.Spec{Name: "grep", Description: strings.TrimSpace(grepDescription), Schema: grepSchema, Class: tool.Read}
}

func (grepTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a grepArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	switch {
	case a.Pattern == "":
		return tool.Errorf("pattern is required"), nil
	case a.Context < 0:
		return tool.Errorf("context must be 0 or more, got %d", a.Context), nil
	}
	if a.Path == "" {
		a.Path = "."
	}
	a.Context = min(a.Context, grepMaxContext)
	m, err := compileGrep(a.Pattern, a.IgnoreCase)
	if err != nil {
		return tool.Errorf("invalid pattern: %v", err), nil
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	space, err := openFileSpace(env)
	if err != nil {
		return tool.Result{}, err
	}
	defer space.Close()
	rel, msg := space.resolve(a.Path)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	fi, err := space.stat(rel)
	if err != nil {
		return tool.Errorf("%s", statMessage(a.Path, err)), nil
	}
	s := &grepSearch{matcher: m, context: a.Context, limit: grepMaxMatches}
	if fi.IsDir() {
		var glob pathGlob
		if a.Glob != "" {
			if glob, msg = newPathGlob(a.Glob, rel); msg != "" {
				return tool.Errorf("%s", msg), nil
			}
		}
		if err := s.searchTree(ctx, space, rel, glob); err != nil {
			return tool.Errorf("%s", statMessage(a.Path, err)), nil
		}
	} else if !fi.Mode().IsRegular() {
		return tool.Errorf("%s is not a regular file", a.Path), nil
	} else {
		f, err := space.openRegular(rel)
		if err != nil {
			return tool.Errorf("%s", statMessage(a.Path, err)), nil
		}
		s.searchFile(f, rel)
		f.Close()
		if s.binary.Load() > 0 {
			return tool.Result{Content: fmt.Sprintf("%s looks like a binary file; not searched", a.Path)}, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Content: s.report()}, nil
}

// grepSearch is one grep call: the matcher, the results gathered by the
// workers, and what was skipped.
type grepSearch struct {
	matcher *grepMatcher
	context int
	limit   int

	matches atomic.Int64 // matches recorded, at most limit
	capped  atomic.Bool  // a match beyond limit was seen
	cut     atomic.Bool  // some line was cut to grepMaxLineRunes
	binary  atomic.Int64
	big     atomic.Int64
	failed  atomic.Int64

	mu      sync.Mutex
	results []grepFileResult
}

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

// searchTree searches every file below start with one worker per CPU.
func (s *grepSearch) searchTree(ctx context.Context, space *fileSpace, start string, glob pathGlob) error {
	workers := runtime.NumCPU()
	bufs := make([][]byte, workers)
	w := &walker{space: space, workers: workers}
	w.file = func(e walkEntry, worker int) {
		if s.capped.Load() {
			return
		}
		if glob.pattern != "" && !glob.match(e) {
			return
		}
		data, err := e.dir.h.readFile(e.name, &bufs[worker], grepMaxFileBytes)
		switch {
		case errors.Is(err, errTooBig):
			s.big.Add(1)
		case errors.Is(err, errNotRegular):
		case err != nil:
			s.failed.Add(1)
		default:
			s.searchData(data, e.rel)
		}
		if s.capped.Load() {
			w.halt()
		}
	}
	if err := w.walk(ctx, start); err != nil {
		return err
	}
	s.failed.Add(w.unreadable.Load())
	return nil
}

// searchFile reads f whole and records its matching lines.
func (s *grepSearch) searchFile(f *os.File, rel string) {
	fi, err := f.Stat()
	switch {
	case err != nil:
		s.failed.Add(1)
		return
	case !fi.Mode().IsRegular():
		return
	case fi.Size() > grepMaxFileBytes:
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
func (s *grepSearch) searchData(data []byte, rel string) {
	if len(data) == 0 {
		return
	}
	if bytes.IndexByte(data[:min(len(data), binarySample)], 0) >= 0 {
		s.binary.Add(1)
		return
	}

	var hits []grepHit
	lineNo, counted := 1, 0
	s.matcher.scan(data, func(start, end int) bool {
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

func (s *grepSearch) lineText(line []byte) string {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if cut, ok := cutRunes(line, grepMaxLineRunes); ok {
		s.cut.Store(true)
		return strings.ToValidUTF8(string(cut), "\uFFFD") + "…"
	}
	return strings.ToValidUTF8(string(line), "\uFFFD")
}

// withContext lays out the hits with up to s.context lines around each,
// merging groups that touch and marking gaps with "--", as grep -C does.
func (s *grepSearch) withContext(data []byte, hits []grepHit) []grepLine {
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

// report renders the results sorted by path, at most s.limit matches.
func (s *grepSearch) report() string {
	slices.SortFunc(s.results, func(a, b grepFileResult) int { return strings.Compare(a.rel, b.rel) })
	var b strings.Builder
	full := false
results:
	for i, r := range s.results {
		if i > 0 && s.context > 0 {
			b.WriteString("--\n")
		}
		for _, l := range r.lines {
			if b.Len() > grepMaxOutput {
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
		fmt.Fprintf(&b, "[output cut at %d KB; narrow the pattern, path or glob, or use less context]\n", grepMaxOutput>>10)
	}
	if s.capped.Load() {
		fmt.Fprintf(&b, "[results capped at %d matches; narrow the pattern, path or glob]\n", s.limit)
	}
	if s.cut.Load() {
		fmt.Fprintf(&b, "[lines cut at %d characters]\n", grepMaxLineRunes)
	}
	var skipped []string
	if n := s.big.Load(); n > 0 {
		skipped = append(skipped, plural(int(n), "file", "files")+fmt.Sprintf(" over %d MB", grepMaxFileBytes>>20))
	}
	if n := s.failed.Load(); n > 0 {
		skipped = append(skipped, plural(int(n), "unreadable entry", "unreadable entries"))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "[skipped %s]\n", strings.Join(skipped, ", "))
	}
	return b.String()
}

// grepMatcher finds matching lines fast. Running a regexp over every line
// is slow, so when every match must contain some literal text, that text
// is found first with bytes.Index (SIMD in the standard library) and the
// regexp only checks the lines that hold it; a pattern that is nothing
// but a literal needs no regexp at all. Without such a literal the
// regexp runs over the whole file in multi-line mode and each hit is
// checked against its line.
type grepMatcher struct {
	re     *regexp.Regexp // checks one line
	multi  *regexp.Regexp // (?m) form, used when there is no literal
	lit    []byte         // every match holds lit, case-sensitive
	fold   []byte         // every match holds fold, ASCII case-insensitive, lower case
	anchor int            // index in fold of the byte searched for
	pure   bool           // a match is exactly lit: no regexp check
}

func compileGrep(pattern string, ignoreCase bool) (*grepMatcher, error) {
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &grepMatcher{re: re}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	best := bestLiteral(requiredLiterals(tree))
	switch {
	case best.text != "" && !best.fold:
		m.lit = []byte(best.text)
		// A literal newline never matches within a line, so such a
		// pattern still goes through the per-line check.
		m.pure = tree.Op == syntax.OpLiteral && tree.Flags&syntax.FoldCase == 0 && !strings.Contains(best.text, "\n")
	case best.text != "":
		m.fold = []byte(best.text)
		m.anchor = rarestByte(m.fold)
	default:
		if m.multi, err = regexp.Compile("(?m)" + expr); err != nil {
			return nil, err
		}
	}
	return m, nil
}

type requiredLiteral struct {
	text string
	fold bool
}

// requiredLiterals lists literal strings that any match of re contains.
func requiredLiterals(re *syntax.Regexp) []requiredLiteral {
	switch re.Op {
	case syntax.OpLiteral:
		return []requiredLiteral{{text: string(re.Rune), fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []requiredLiteral
		for _, sub := range re.Sub {
			out = append(out, requiredLiterals(sub)...)
		}
		return out
	}
	return nil
}

// bestLiteral picks the longest usable literal. A case-folded one is
// usable as its longest run of ASCII bytes other than k and s (which fold
// to the Kelvin sign and long s in Unicode, outside ASCII); one whose
// bytes have no case at all is as good as a case-sensitive one.
func bestLiteral(lits []requiredLiteral) requiredLiteral {
	var best requiredLiteral
	score := func(l requiredLiteral) int {
		if l.fold {
			return 2*len(l.text) - 1 // prefer exact bytes at equal length
		}
		return 2 * len(l.text)
	}
	for _, l := range lits {
		if l.fold {
			l = foldableRun(l.text)
		}
		if len(l.text) >= 2 && score(l) > score(best) || best.text == "" && l.text != "" {
			best = l
		}
	}
	return best
}

func foldableRun(s string) requiredLiteral {
	bestRun, run := "", 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] >= utf8.RuneSelf || s[i] == 'k' || s[i] == 'K' || s[i] == 's' || s[i] == 'S' {
			if i-run > len(bestRun) {
				bestRun = s[run:i]
			}
			run = i + 1
		}
	}
	lower := strings.ToLower(bestRun)
	if lower == strings.ToUpper(bestRun) {
		return requiredLiteral{text: bestRun}
	}
	return requiredLiteral{text: lower, fold: true}
}

// byteCommonness orders bytes from most to least common in source text;
// searching for a rare byte of a literal leaves fewer false starts.
const byteCommonness = " etaoinsrlcdu\tpmhf.\ng,b(y)w;v=_\"/-kx:*0{}j1q2z"

func rarestByte(lit []byte) int {
	best, bestRank := 0, -1
	for i, c := range lit {
		rank := len(byteCommonness) // not listed: rarer than any listed
		if j := strings.IndexByte(byteCommonness, c); j >= 0 {
			rank = j
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// scan calls emit with the bounds of each matching line (without its
// newline), in order, until emit returns false.
func (m *grepMatcher) scan(data []byte, emit func(start, end int) bool) {
	var folder *foldSearch
	if m.fold != nil {
		folder = newFoldSearch(data, m.fold, m.anchor)
	}
	pos := 0
	for pos <= len(data) {
		var at int
		switch {
		case m.lit != nil:
			i := bytes.Index(data[pos:], m.lit)
			if i < 0 {
				return
			}
			at = pos + i
		case folder != nil:
			at = folder.next(pos)
			if at < 0 {
				return
			}
		default:
			loc := m.multi.FindIndex(data[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
		}
		start := pos + bytes.LastIndexByte(data[pos:at], '\n') + 1
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at
		}
		if start == len(data) && start > 0 {
			return // an empty match after the final newline is not a line
		}
		if m.pure || m.re.Match(data[start:end]) {
			if !emit(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// foldSearch finds an ASCII literal regardless of case. It looks for the
// literal's rarest byte in both cases with bytes.IndexByte, remembering
// the next position of each so no byte is scanned twice.
type foldSearch struct {
	data     []byte
	lit      []byte
	anchor   int
	lo, up   byte
	caseless bool
	// For each case of the anchor: the next index found, searched from
	// where; -1 in next means none is left.
	nextLo, fromLo int
	nextUp, fromUp int
}

func newFoldSearch(data, lit []byte, anchor int) *foldSearch {
	c := lit[anchor]
	f := &foldSearch{data: data, lit: lit, anchor: anchor, lo: c, up: byte(unicode.ToUpper(rune(c)))}
	f.caseless = f.lo == f.up
	f.fromLo, f.fromUp = -1, -1
	return f
}

// next returns the first index >= pos where the literal starts, or -1.
func (f *foldSearch) next(pos int) int {
	p := pos + f.anchor
	for p < len(f.data) {
		i := f.find(p)
		if i < 0 {
			return -1
		}
		start := i - f.anchor
		if start+len(f.lit) <= len(f.data) && equalFoldASCII(f.data[start:start+len(f.lit)], f.lit) {
			return start
		}
		p = i + 1
	}
	return -1
}

// find returns the first index >= p of either case of the anchor byte.
func (f *foldSearch) find(p int) int {
	lo := f.cached(p, f.lo, &f.nextLo, &f.fromLo)
	if f.caseless {
		return lo
	}
	up := f.cached(p, f.up, &f.nextUp, &f.fromUp)
	switch {
	case lo < 0:
		return up
	case up < 0:
		return lo
	}
	return min(lo, up)
}

func (f *foldSearch) cached(p int, c byte, next, from *int) int {
	if *from >= 0 && *from <= p && (*next < 0 || *next >= p) {
		return *next
	}
	i := bytes.IndexByte(f.data[p:], c)
	*from = p
	if i < 0 {
		*next = -1
	} else {
		*next = p + i
	}
	return *next
}

func equalFoldASCII(b, lowerLit []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lowerLit[i] {
			return false
		}
	}
	return true
}
