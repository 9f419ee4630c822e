package grepsearch

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Matcher finds matching lines fast. Running a regexp over every line
// is slow, so when every match must contain some literal text, that text
// is found first with bytes.Index (SIMD in the standard library) and the
// regexp only checks the lines that hold it; a pattern that is nothing
// but a literal needs no regexp at all. Without such a literal the
// regexp runs over the whole file in multi-line mode and each hit is
// checked against its line.
type Matcher struct {
	re     *regexp.Regexp // checks one line
	multi  *regexp.Regexp // (?m) form, used when there is no literal
	lit    []byte         // every match holds lit, case-sensitive
	fold   []byte         // every match holds fold, ASCII case-insensitive, lower case
	anchor int            // index in fold of the byte searched for
	pure   bool           // a match is exactly lit: no regexp check
}

// Compile builds the matcher for pattern (RE2 syntax).
func Compile(pattern string, ignoreCase bool) (*Matcher, error) {
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re}
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

// Scan calls emit with the bounds of each matching line (without its
// newline), in order, until emit returns false.
func (m *Matcher) Scan(data []byte, emit func(start, end int) bool) {
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
