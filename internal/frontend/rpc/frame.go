package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// MaxFrame bounds one frame (its bytes without the line end): 64 MiB.
const MaxFrame = 64 << 20

// Error codes of frames that cannot be read as a command.
const (
	CodeFrameTooLarge = "frame_too_large"
	CodeInvalidUTF8   = "invalid_utf8"
	CodeTornFrame     = "torn_frame"
	CodeInvalidJSON   = "invalid_json"
	CodeDuplicateKey  = "duplicate_key"
)

// FrameError is a frame the reader rejects; reading goes on with the
// next line.
type FrameError struct {
	Code string
	Msg  string
}

func (e *FrameError) Error() string { return e.Code + ": " + e.Msg }

// retainLimit is the largest buffer kept between frames: one huge
// prompt should not pin its memory for the rest of the session.
const retainLimit = 1 << 20

// FrameReader splits a stream into frames at LF bytes only: a CR before
// the LF is dropped, and U+2028 and U+2029, which some JSON readers take
// for line ends, are ordinary characters inside a frame.
type FrameReader struct {
	br  *bufio.Reader
	max int
	buf []byte
	eof bool
}

// NewFrameReader reads frames of at most max bytes from r.
func NewFrameReader(r io.Reader, max int) *FrameReader {
	return &FrameReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next frame, valid until the following call. Blank
// lines are skipped. A frame that is too long, not UTF-8, or cut short
// by the end of the stream is a *FrameError, and the reader goes on; the
// end of the stream is io.EOF.
func (r *FrameReader) Next() ([]byte, error) {
	for {
		if r.eof {
			return nil, io.EOF
		}
		line, err := r.line()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !utf8.Valid(line) {
			return nil, &FrameError{Code: CodeInvalidUTF8, Msg: "the frame is not valid UTF-8"}
		}
		return line, nil
	}
}

// line reads up to the next LF, dropping the rest of a line longer than
// max rather than holding it.
func (r *FrameReader) line() ([]byte, error) {
	if cap(r.buf) > retainLimit {
		r.buf = nil
	}
	r.buf = r.buf[:0]
	over := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		ended := err == nil
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		// One byte over max is held for a CR that may end the frame.
		if !over && len(r.buf)+len(chunk) > r.max+1 {
			over, r.buf = true, r.buf[:0]
		}
		if !over {
			r.buf = append(r.buf, chunk...)
		}
		if ended && !over {
			r.buf = bytes.TrimSuffix(r.buf, []byte{'\r'})
			over = len(r.buf) > r.max
		}
		switch {
		case ended && over:
			return nil, &FrameError{Code: CodeFrameTooLarge, Msg: fmt.Sprintf("the frame is larger than %d bytes; it was skipped", r.max)}
		case ended:
			return r.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			r.eof = true
			if !over && len(bytes.TrimSpace(r.buf)) == 0 {
				return nil, io.EOF
			}
			return nil, &FrameError{Code: CodeTornFrame, Msg: "the input ended inside a frame (no line feed after it); it was not run"}
		default:
			return nil, fmt.Errorf("read the input: %w", err)
		}
	}
}

// maxDepth bounds the nesting of a frame's JSON.
const maxDepth = 256

// checkJSON says whether data is one JSON value whose objects never
// repeat a key: encoding/json keeps the last of two, so a frame such as
// {"type":"approve","approved":false,"approved":true} would mean what
// its sender may not have meant.
func checkJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := walkValue(dec, 0); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &FrameError{Code: CodeInvalidJSON, Msg: "the frame holds more than one JSON value"}
	}
	return nil
}

func walkValue(dec *json.Decoder, depth int) error {
	tok, err := dec.Token()
	if err != nil {
		return &FrameError{Code: CodeInvalidJSON, Msg: "the frame is not JSON: " + err.Error()}
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	if depth >= maxDepth {
		return &FrameError{Code: CodeInvalidJSON, Msg: fmt.Sprintf("the frame nests deeper than %d levels", maxDepth)}
	}
	seen := map[string]bool{}
	for dec.More() {
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return &FrameError{Code: CodeInvalidJSON, Msg: "the frame is not JSON: " + err.Error()}
			}
			key, _ := k.(string)
			if seen[key] {
				return &FrameError{Code: CodeDuplicateKey, Msg: fmt.Sprintf("the key %q appears twice in one object", key)}
			}
			seen[key] = true
		}
		if err := walkValue(dec, depth+1); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return &FrameError{Code: CodeInvalidJSON, Msg: "the frame is not JSON: " + err.Error()}
	}
	return nil
}
