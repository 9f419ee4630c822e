package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/wisp-agent/wisp/internal/event"
)

// deltaHighWater is how many frames may wait for a slow reader before
// text deltas start to be joined: the loop never waits for the reader,
// and what is joined is only text, so every event but a delta still
// arrives as itself, in order.
const deltaHighWater = 4096

// writer is the one owner of the output: frames are queued by any
// goroutine and written, whole and in order, by its own goroutine, so
// that two frames never interleave and a slow reader never stalls the
// session's loop.
type writer struct {
	mu      sync.Mutex
	pending []outFrame
	spare   []outFrame
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	err     error // the first failed write, shared under mu
	werr    error // the same, owned by loop; later frames are dropped
	out     *bufio.Writer
}

// outFrame is an encoded frame, or a text delta kept as an event so
// that later deltas of the same turn can join it.
type outFrame struct {
	data  []byte
	delta *event.MessageDelta
}

func newWriter(w io.Writer) *writer {
	wr := &writer{wake: make(chan struct{}, 1), done: make(chan struct{}), out: bufio.NewWriterSize(w, 64<<10)}
	go wr.loop()
	return wr
}

// encode is one frame's bytes, LF included.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value sent is built here from plain types; a failure is
		// a bug, and the client still gets a frame that says so.
		b.Reset()
		_ = enc.Encode(Response{Type: "response", Success: false, Error: failure(CodeFailed, "encode a frame: %v", err)})
	}
	return b.Bytes()
}

// send queues an encoded frame.
func (w *writer) send(data []byte) {
	w.mu.Lock()
	if !w.closed {
		w.pending = append(w.pending, outFrame{data: data})
	}
	w.mu.Unlock()
	w.signal()
}

// sendDelta queues a text delta, joining it to the delta queued last
// when the reader is behind and that one is of the same turn.
func (w *writer) sendDelta(e event.MessageDelta) {
	w.mu.Lock()
	if !w.closed {
		n := len(w.pending)
		if last := n - 1; n > deltaHighWater && w.pending[last].delta != nil &&
			w.pending[last].delta.Turn == e.Turn && w.pending[last].delta.Session == e.Session {
			w.pending[last].delta.Delta += e.Delta
		} else {
			w.pending = append(w.pending, outFrame{delta: &e})
		}
	}
	w.mu.Unlock()
	w.signal()
}

func (w *writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *writer) loop() {
	defer close(w.done)
	for {
		<-w.wake
		w.mu.Lock()
		batch, closed := w.pending, w.closed
		w.pending, w.spare = w.spare[:0], nil
		w.mu.Unlock()
		for i, f := range batch {
			if f.delta != nil {
				f.data = encode(f.delta)
			}
			if w.werr == nil {
				_, w.werr = w.out.Write(f.data)
			}
			batch[i] = outFrame{}
		}
		if w.werr == nil {
			w.werr = w.out.Flush()
		}
		w.mu.Lock()
		w.err = w.werr
		w.spare = batch
		more := len(w.pending) > 0
		w.mu.Unlock()
		if closed && !more {
			return
		}
		if more {
			w.signal()
		}
	}
}

// close writes what is queued and stops; it returns the first write
// error (a reader that went away).
func (w *writer) close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.signal()
	<-w.done
	return w.err
}

// failed says whether a write failed: nobody reads the output any more.
func (w *writer) failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}
