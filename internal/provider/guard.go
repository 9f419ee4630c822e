package provider

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// UnexpectedBodyError is a successful status whose body is not an event
// stream: a proxy's or captive portal's HTML page, a JSON document, plain
// text. It says what came back instead of calling it a cut stream, and it
// is not retried: the same address would answer the same way.
type UnexpectedBodyError struct {
	Status      int
	ContentType string
	// Head is the start of the body as received (not yet escaped).
	Head string
}

func (e *UnexpectedBodyError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "none"
	}
	status := fmt.Sprintf("HTTP %d", e.Status)
	if t := http.StatusText(e.Status); t != "" {
		status += " " + t
	}
	if strings.TrimSpace(e.Head) == "" {
		return fmt.Sprintf("the server answered %s with an empty body (Content-Type %s), not an event stream", status, Escape(ct))
	}
	return fmt.Sprintf("the server answered %s with Content-Type %s, not an event stream; the body begins: %s", status, Escape(ct), Escape(e.Head))
}

// headBytes is how much of an unexpected body an error quotes.
const headBytes = 200

// Escape makes text from a server or a file safe to print: control
// characters (escape sequences, carriage returns, NUL), Unicode format
// characters (bidirectional overrides, zero-width marks) and bytes that
// are not UTF-8 are written as \n, \xNN or \uNNNN, so they can neither
// drive a terminal nor hide what follows them.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case needsEscape(r) && r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// Guard watches one streamed response. Check turns an HTTP error into an
// *APIError, refuses a successful answer whose body is not an event
// stream, and bounds the raw stream: one event may not pass the response
// bound, and the whole stream may not pass wireFactor times it, so a
// server that streams forever cannot make wisp hold or read without end.
// It also notes the OpenAI stream's closing "data: [DONE]".
type Guard struct {
	limit int64
	done  atomic.Bool
}

// NewGuard returns a guard for one request; limit is the response bound
// in bytes (0 for DefaultMaxResponseBytes).
func NewGuard(limit int64) *Guard {
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	return &Guard{limit: limit}
}

// SawDone says whether the stream sent "data: [DONE]".
func (g *Guard) SawDone() bool { return g.done.Load() }

// Check inspects a response before the SDK reads it. It consumes and
// closes the body of a response it refuses.
func (g *Guard) Check(res *http.Response) (*http.Response, error) {
	if res.StatusCode >= 400 {
		return nil, ErrorFromResponse(res)
	}
	br := bufio.NewReaderSize(res.Body, 512)
	if !isEventStream(res.Header.Get("Content-Type")) {
		// Some compatible servers send a stream under another type; the
		// first bytes decide.
		head, err := peekHead(br)
		if !looksLikeSSE(head) {
			if err == nil {
				head, _ = br.Peek(headBytes + 1)
			}
			_ = res.Body.Close()
			return nil, &UnexpectedBodyError{Status: res.StatusCode, ContentType: res.Header.Get("Content-Type"), Head: clip(head)}
		}
	}
	res.Body = &boundedStream{r: br, c: res.Body, g: g, eventLimit: g.limit + eventSlack, wireLimit: g.limit * wireFactor}
	return res, nil
}

func isEventStream(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// peekHead reads until the body's first non-blank bytes show whether it
// is an event stream, without waiting for more than that: the first
// event of a slow model may be all there is for a while.
func peekHead(br *bufio.Reader) ([]byte, error) {
	for {
		if n := br.Buffered(); n > 0 {
			b, _ := br.Peek(n)
			rest := bytes.TrimLeft(b, " \t\r\n\ufeff")
			if len(rest) > 0 && (looksLikeSSE(rest) || !isSSEPrefix(rest)) || n >= br.Size() {
				return b, nil
			}
		}
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			b, _ := br.Peek(br.Buffered())
			return b, err
		}
	}
}

var sseFields = []string{"data:", "event:", "id:", "retry:", ":"}

// looksLikeSSE says whether a body starts the way an event stream does.
func looksLikeSSE(head []byte) bool {
	rest := bytes.TrimLeft(head, " \t\r\n\ufeff")
	for _, f := range sseFields {
		if bytes.HasPrefix(rest, []byte(f)) {
			return true
		}
	}
	return false
}

// isSSEPrefix says whether b could still grow into an event stream field.
func isSSEPrefix(b []byte) bool {
	for _, f := range sseFields {
		if len(b) < len(f) && strings.HasPrefix(f, string(b)) {
			return true
		}
	}
	return false
}

// clip keeps the first headBytes of a body on a rune boundary.
func clip(b []byte) string {
	if len(b) <= headBytes {
		return string(b)
	}
	cut := headBytes
	for cut > headBytes-utf8.UTFMax && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

// boundedStream counts the raw stream as the SDK reads it.
type boundedStream struct {
	r io.Reader
	c io.Closer
	g *Guard

	eventLimit, wireLimit int64
	total, event          int64
	// line holds the first bytes of the current line, enough to see
	// "data: [DONE]"; lineLen counts the whole line.
	line    [16]byte
	lineLen int
	err     error
}

func (s *boundedStream) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.total += int64(n)
	if s.total > s.wireLimit {
		s.err = &ResponseTooLargeError{Limit: s.wireLimit, What: "stream data"}
		return 0, s.err
	}
	s.scan(p[:n])
	if s.event > s.eventLimit {
		s.err = &ResponseTooLargeError{Limit: s.g.limit, What: "one stream event"}
		return 0, s.err
	}
	return n, err
}

// scan follows line and event boundaries: a blank line ends an event.
func (s *boundedStream) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		seg := b
		if i >= 0 {
			seg = b[:i]
		}
		if s.lineLen < len(s.line) {
			copy(s.line[s.lineLen:], seg)
		}
		s.lineLen += len(seg)
		s.event += int64(len(seg))
		if i < 0 {
			return
		}
		s.endLine()
		b = b[i+1:]
	}
}

func (s *boundedStream) endLine() {
	line := bytes.TrimRight(s.line[:min(s.lineLen, len(s.line))], "\r")
	switch {
	case s.lineLen <= 1 && len(line) == 0:
		s.event = 0
	case s.lineLen <= len(s.line) && bytes.HasPrefix(line, []byte("data:")) &&
		string(bytes.TrimSpace(line[len("data:"):])) == "[DONE]":
		s.g.done.Store(true)
	}
	s.lineLen = 0
}

func (s *boundedStream) Close() error { return s.c.Close() }

// IsBoundError says whether err is a refusal of the guard or the budget
// rather than a failure of the connection, so adapters do not report it
// as a cut stream.
func IsBoundError(err error) bool {
	return errors.As(err, new(*ResponseTooLargeError)) || errors.As(err, new(*UnexpectedBodyError))
}

// Escaped wraps err so that its text has control characters escaped
// (Escape), keeping the chain for errors.Is and errors.As. Adapters return
// their errors through it because an SDK's error may quote whatever the
// server sent. Escaping twice changes nothing.
func Escaped(err error) error {
	if err == nil {
		return nil
	}
	return escapedError{err}
}

type escapedError struct{ err error }

func (e escapedError) Error() string { return Escape(e.err.Error()) }
func (e escapedError) Unwrap() error { return e.err }
