// Package termtext makes text from a model or a tool safe to write to a
// terminal. A terminal obeys control sequences in what it prints: OSC 52
// writes the clipboard, OSC 0 sets the window title, cursor movement and
// a bare carriage return overwrite what was shown, and the "hidden" SGR
// attribute makes the next question invisible. Text that did not come
// from wisp itself must not be able to do any of that.
//
// A Writer keeps plain SGR styling (colours, bold, italic, underline,
// reverse, strike) and removes every other escape sequence (CSI, OSC,
// DCS, SOS, PM, APC and two-byte ESC sequences, also when introduced by
// their C1 forms), every other C0 and C1 control character except
// newline and tab, DEL, and Unicode bidirectional overrides and
// isolates. Bytes that are not UTF-8 become U+FFFD. It keeps its state
// across writes, so a sequence split between two chunks of a stream is
// removed whole.
//
// The package only filters text: it never decides what is shown, and
// writes nowhere but to the writer it is given.
package termtext

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Reset is the SGR sequence that turns every attribute off.
const Reset = "\x1b[0m"

// Limits on a sequence being collected. A CSI longer than maxCSI is not
// one wisp keeps; a string (OSC and the like) longer than maxString is
// dropped without waiting for its end any longer, so that an
// unterminated one cannot swallow the rest of the text.
const (
	maxCSI    = 64
	maxString = 4096
)

type state int

const (
	ground   state = iota
	escape         // after ESC
	escInter       // ESC followed by intermediate bytes
	csi            // collecting a control sequence
	str            // inside OSC, DCS, SOS, PM or APC, until ST or BEL
	strEsc         // ESC inside a string: ST if a backslash follows
)

// Writer filters what is written through it to w. It is not safe for
// concurrent use.
type Writer struct {
	w     io.Writer
	st    state
	seq   []byte // the CSI being collected
	n     int    // bytes of the current string
	part  []byte // an incomplete UTF-8 character at the end of a write
	out   []byte
	mid   bool // the last character written was not a newline
	style bool // an SGR other than a reset is in force
}

// NewWriter returns a Writer that writes the filtered text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Clean returns s filtered, as a Writer would write it with nothing
// before it and nothing after.
func Clean(s string) string {
	var b strings.Builder
	fw := NewWriter(&b)
	_, _ = fw.WriteString(s)
	_ = fw.Flush()
	return b.String()
}

// Write filters p and writes the result. It reports len(p) consumed
// when the underlying write succeeds, since the filtered length differs.
func (fw *Writer) Write(p []byte) (int, error) {
	fw.out = fw.out[:0]
	data := p
	if len(fw.part) > 0 {
		data = append(fw.part, p...)
		fw.part = nil
	}
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(data) {
				// The rest of the character comes with the next write.
				fw.part = append([]byte(nil), data...)
				break
			}
			r = utf8.RuneError
		}
		fw.rune(r)
		data = data[size:]
	}
	if len(fw.out) == 0 {
		return len(p), nil
	}
	if _, err := fw.w.Write(fw.out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write for a string.
func (fw *Writer) WriteString(s string) (int, error) { return fw.Write([]byte(s)) }

// MidLine reports whether the last character written was not a newline,
// so that the caller can end the line before it writes its own.
func (fw *Writer) MidLine() bool { return fw.mid }

// Styled reports whether a colour or another attribute written through
// fw may still be in force.
func (fw *Writer) Styled() bool { return fw.style }

// Flush ends the text written so far: a sequence left unfinished is
// dropped, and a character cut short is written as U+FFFD.
func (fw *Writer) Flush() error {
	fw.st, fw.seq, fw.n = ground, fw.seq[:0], 0
	if len(fw.part) == 0 {
		return nil
	}
	fw.part = nil
	fw.out = utf8.AppendRune(fw.out[:0], utf8.RuneError)
	fw.mid = true
	_, err := fw.w.Write(fw.out)
	return err
}

// Settle ends whatever the text left behind: a sequence cut off is
// dropped, an attribute in force is reset and a line left open is ended,
// so that what the caller writes next starts from a clean state on a
// line of its own.
func (fw *Writer) Settle() error {
	if err := fw.Flush(); err != nil {
		return err
	}
	var b []byte
	if fw.style {
		b = append(b, Reset...)
		fw.style = false
	}
	if fw.mid {
		b = append(b, '\n')
		fw.mid = false
	}
	if len(b) == 0 {
		return nil
	}
	_, err := fw.w.Write(b)
	return err
}

// rune advances the filter by one character.
func (fw *Writer) rune(r rune) {
	switch fw.st {
	case escape:
		fw.afterEsc(r)
	case escInter:
		if r >= 0x20 && r <= 0x2f {
			return
		}
		fw.st = ground
		if r < 0x30 || r > 0x7e {
			fw.ground(r)
		}
	case csi:
		fw.inCSI(r)
	case str:
		fw.inString(r)
	case strEsc:
		fw.st = str
		if r == '\\' {
			fw.st = ground
			return
		}
		fw.inString(r)
	default:
		fw.ground(r)
	}
}

func (fw *Writer) ground(r rune) {
	switch {
	case r == 0x1b:
		fw.st = escape
	case r == 0x9b:
		fw.st, fw.seq = csi, fw.seq[:0]
	case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
		fw.st, fw.n = str, 0
	case r == '\n':
		fw.out = append(fw.out, '\n')
		fw.mid = false
	case r == '\t':
		fw.out = append(fw.out, '\t')
		fw.mid = true
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || bidi(r):
		// Dropped: a control character or an override that reorders
		// what is shown.
	default:
		fw.out = utf8.AppendRune(fw.out, r)
		fw.mid = true
	}
}

func (fw *Writer) afterEsc(r rune) {
	switch {
	case r == '[':
		fw.st, fw.seq = csi, fw.seq[:0]
	case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
		fw.st, fw.n = str, 0
	case r >= 0x20 && r <= 0x2f:
		fw.st = escInter
	case r >= 0x30 && r <= 0x7e:
		fw.st = ground // a two-byte sequence (ESC 7, ESC c, ...): dropped
	default:
		// Not a sequence: the ESC is dropped and r is text or control.
		fw.st = ground
		fw.ground(r)
	}
}

func (fw *Writer) inCSI(r rune) {
	switch {
	case r >= 0x30 && r <= 0x3f || r >= 0x20 && r <= 0x2f:
		if len(fw.seq) >= maxCSI {
			fw.st = ground // too long to be a style: dropped, rest is text
			fw.ground(r)
			return
		}
		fw.seq = append(fw.seq, byte(r))
	case r >= 0x40 && r <= 0x7e:
		fw.st = ground
		if r == 'm' {
			fw.sgr(string(fw.seq))
		}
	default:
		// A byte no sequence holds: the sequence is dropped and the
		// byte handled as if it came alone.
		fw.st = ground
		fw.ground(r)
	}
}

func (fw *Writer) inString(r rune) {
	switch r {
	case 0x07, 0x9c:
		fw.st = ground
		return
	case 0x1b:
		fw.st = strEsc
		return
	}
	fw.n += utf8.RuneLen(r)
	if fw.n > maxString {
		fw.st = ground
		fw.ground(r)
	}
}

// sgr writes the allowed attributes of an SGR sequence with parameters
// params. An empty list is a reset, and so is "0".
func (fw *Writer) sgr(params string) {
	kept := allowedSGR(params)
	if len(kept) == 0 {
		return
	}
	fw.out = append(fw.out, "\x1b["...)
	fw.out = append(fw.out, strings.Join(kept, ";")...)
	fw.out = append(fw.out, 'm')
	fw.style = kept[len(kept)-1] != "0"
}

// allowedSGR filters SGR parameters to plain styling, in order; an empty
// parameter is a reset ("0"). Conceal (8), blink (5, 6), fonts (10-20)
// and anything unknown are dropped; extended colours (38, 48, 58) are
// kept only well formed.
func allowedSGR(params string) (kept []string) {
	if strings.ContainsAny(params, "<=>?:") {
		return nil // private or colon forms: not plain styling
	}
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, err := strconv.Atoi(ps[i])
		if ps[i] == "" {
			n, err = 0, nil
		}
		if err != nil {
			return kept
		}
		switch {
		case n == 0:
			kept = append(kept, "0")
		case n == 38 || n == 48 || n == 58:
			ext, used := extendedColour(ps[i+1:])
			if used == 0 {
				return kept
			}
			kept = append(kept, strconv.Itoa(n)+";"+ext)
			i += used
		case plainSGR(n):
			kept = append(kept, strconv.Itoa(n))
		}
	}
	return kept
}

// plainSGR reports whether attribute n is styling that hides nothing.
func plainSGR(n int) bool {
	switch {
	case n >= 1 && n <= 4, n == 7, n == 9:
		return true
	case n >= 21 && n <= 25, n == 27, n == 28, n == 29:
		return true
	case n >= 30 && n <= 37, n == 39, n >= 40 && n <= 47, n == 49:
		return true
	case n == 53, n == 55, n == 59:
		return true
	case n >= 90 && n <= 97, n >= 100 && n <= 107:
		return true
	}
	return false
}

// extendedColour reads the arguments of 38/48/58: 5;N or 2;R;G;B, each
// 0-255. It returns them joined and how many it used, 0 when malformed.
func extendedColour(ps []string) (string, int) {
	if len(ps) == 0 {
		return "", 0
	}
	want := map[string]int{"5": 1, "2": 3}[ps[0]]
	if want == 0 || len(ps) < 1+want {
		return "", 0
	}
	for _, p := range ps[1 : 1+want] {
		if v, err := strconv.Atoi(p); err != nil || v < 0 || v > 255 {
			return "", 0
		}
	}
	return strings.Join(ps[:1+want], ";"), 1 + want
}

// bidi reports Unicode's bidirectional embeddings, overrides and
// isolates, which reorder how the text around them is shown.
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
