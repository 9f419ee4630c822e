package cli

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// maxInputCeiling bounds --max-input-bytes: a provider refuses a request
// much larger than this, after wisp has read, kept and sent it.
const maxInputCeiling = 32 << 20

// defaultMaxInput bounds piped stdin unless --max-input-bytes raises it:
// 1 MiB of text is already far more than most models take in one prompt.
const defaultMaxInput = 1 << 20

// printPrompt is what a print-mode run sends. With no prompt words, or
// the word "-", stdin is the prompt. With words and a piped stdin (not a
// terminal), the piped text comes first, fenced, then the words, so
// `cat log | wisp -p "why does this fail?"` sends both. Like any filter,
// wisp reads a pipe to its end: /dev/null and closed pipes end at once, a
// pipe nobody closes keeps it waiting.
func printPrompt(words string, o Options, sys IO) (string, error) {
	fromStdin := words == "" || words == "-"
	if fromStdin && sys.StdinTTY {
		return "", usagef("print mode needs a prompt: wisp -p \"PROMPT\" (or - to read it from stdin)")
	}
	var piped []byte
	if !sys.StdinTTY && sys.Stdin != nil {
		limit := o.MaxInputBytes
		if limit <= 0 {
			limit = defaultMaxInput
		}
		var err error
		if piped, err = readInput(sys.Stdin, limit); err != nil {
			return "", err
		}
	}
	if fromStdin {
		p := strings.TrimSpace(string(piped))
		if p == "" {
			return "", usagef("the prompt on stdin is empty")
		}
		return p, nil
	}
	return joinPiped(string(piped), words), nil
}

// readInput reads stdin up to limit bytes, never more than limit+1, and
// refuses what is not text. Both refusals are usage errors (exit 2): the
// run has not started, and the fix lies in how wisp is called (a smaller
// or converted input, or --max-input-bytes), as with a bad flag.
func readInput(r io.Reader, limit int64) ([]byte, error) {
	limit = min(limit, math.MaxInt64-1)
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	// What the input is comes before how long it is: a stream of zeros
	// is binary, not merely too long.
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return nil, usagef("stdin is UTF-16 text; wisp takes UTF-8: convert it first (iconv -f UTF-16 -t UTF-8)")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, usagef("stdin looks binary (a NUL byte at offset %d); wisp takes text only: pipe text, or convert the input first", i)
	}
	if int64(len(data)) > limit {
		return nil, usagef("stdin holds more than %d bytes, the limit for piped input; raise it with --max-input-bytes N, or pipe less", limit)
	}
	if !utf8.Valid(data) {
		return nil, usagef("stdin is not valid UTF-8 (first bad byte at offset %d); wisp takes text only: pipe text, or convert the input first (iconv)", invalidUTF8At(data))
	}
	// A byte order mark says nothing to the model.
	return bytes.TrimPrefix(data, []byte("\ufeff")), nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// joinPiped puts piped text before the prompt, fenced with more backticks
// than any run inside it, so that nothing in the text can end the fence.
// Whitespace-only input adds nothing.
func joinPiped(piped, prompt string) string {
	if strings.TrimSpace(piped) == "" {
		return prompt
	}
	fence := strings.Repeat("`", max(3, longestRun(piped, '`')+1))
	body := strings.TrimRight(piped, "\r\n")
	return fence + "\n" + body + "\n" + fence + "\n\n" + prompt
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
