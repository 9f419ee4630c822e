package provider

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// ErrIdle is a response that stopped sending for longer than the idle
// limit. It counts as a dropped connection, so the request is retried.
var ErrIdle = errors.New("the provider sent nothing for too long")

// IdleTransport bounds how long a provider may stay silent: waiting for
// the response headers, and between two reads of the (streamed) body. A
// model may think for a long time between tokens, so the limit is on
// silence, not on the whole response. Without it a stalled connection
// would hang a run until the person presses Ctrl-C.
func IdleTransport(base http.RoundTripper, idle time.Duration) http.RoundTripper {
	if base == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = idle
		base = t
	}
	return idleTransport{base: base, idle: idle}
}

type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
}

func (t idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	res.Body = newIdleBody(res.Body, t.idle)
	return res, nil
}

// idleBody closes the underlying body when no read completes within the
// limit, which makes the pending read fail; that failure is reported as
// ErrIdle.
type idleBody struct {
	body  io.ReadCloser
	idle  time.Duration
	timer *time.Timer
	mu    sync.Mutex
	fired bool
}

func newIdleBody(body io.ReadCloser, idle time.Duration) *idleBody {
	b := &idleBody{body: body, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.mu.Lock()
		b.fired = true
		b.mu.Unlock()
		_ = body.Close()
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	fired := b.fired
	b.mu.Unlock()
	if fired {
		return n, ErrIdle
	}
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.body.Close()
}
