package mcp

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
)

// errFrameTooLarge ends a connection whose server sent a frame past the
// limit.
var errFrameTooLarge = errors.New("protocol frame too large")

// frameReader is a server's stdout as the SDK reads it: it counts the
// bytes since the last newline and fails the read that would pass the
// limit, so that no frame larger than the limit is ever buffered whole
// or parsed.
type frameReader struct {
	r     io.ReadCloser
	limit int
	run   int // bytes of the current frame so far
	over  atomic.Bool
}

func (f *frameReader) Read(p []byte) (int, error) {
	if f.over.Load() {
		return 0, errFrameTooLarge
	}
	n, err := f.r.Read(p)
	chunk := p[:n]
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			f.run += len(chunk)
			break
		}
		if f.run+i > f.limit {
			f.run += i
			break
		}
		f.run = 0
		chunk = chunk[i+1:]
	}
	if f.run > f.limit {
		f.over.Store(true)
		return 0, errFrameTooLarge
	}
	return n, err
}

// Close closes the pipe.
func (f *frameReader) Close() error { return f.r.Close() }

func (f *frameReader) tooLarge() bool { return f.over.Load() }
func (f *frameReader) max() int       { return f.limit }

// frameGuard is what a transport tells about the frame limit: whether
// the server passed it, and what it is.
type frameGuard interface {
	tooLarge() bool
	max() int
}
