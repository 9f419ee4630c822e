package mcp

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/config"
)

// errRedirect refuses a redirect: the headers_from headers are meant for
// the configured address alone.
var errRedirect = errors.New("the server redirected the request")

// serverHeaders are the headers_from headers of a url server. missing
// names the first variable that is not set (the server is then skipped).
func serverHeaders(getenv func(string) string, cfg config.MCPServer) (h http.Header, missing string) {
	h = http.Header{}
	names := make([]string, 0, len(cfg.HeadersFrom))
	for k := range cfg.HeadersFrom {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := getenv(cfg.HeadersFrom[k])
		if v == "" {
			return nil, cfg.HeadersFrom[k]
		}
		h.Set(k, v)
	}
	return h, ""
}

// dial makes a url server's streamable HTTP transport: every request
// carries the headers_from headers, no redirect is followed, and every
// response's frames are held to the frame limit before the SDK parses
// them.
func (srv *server) dial(headers http.Header, o Options) sdk.Transport {
	rt := &httpFrames{base: http.DefaultTransport, headers: headers, limit: o.Limits.FrameBytes}
	srv.mu.Lock()
	srv.frames = rt
	srv.mu.Unlock()
	client := &http.Client{
		Transport:     rt,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
	}
	return &sdk.StreamableClientTransport{
		Endpoint: srv.cfg.URL, HTTPClient: client,
		// wisp reads no server-initiated messages (tools/list_changed is
		// not supported), so it keeps no stream open for them.
		DisableStandaloneSSE: true,
		// httpFrames enforces the limit exactly; this is a backstop.
		MaxEventSize: 2 * o.Limits.FrameBytes,
		MaxRetries:   -1,
	}
}

// httpFrames is the round trip of a url server's requests. It counts the
// bytes of each frame as the SDK reads them: a JSON response is one
// frame, an event stream a frame per event.
type httpFrames struct {
	base    http.RoundTripper
	headers http.Header
	limit   int
	over    atomic.Bool
	// status is the last error status the server answered with, for a
	// diagnostic that quotes nothing the server wrote.
	status atomic.Int32
}

func (t *httpFrames) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header[k] = v
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		t.status.Store(int32(resp.StatusCode))
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &frameBody{r: resp.Body, t: t, events: media == "text/event-stream"}
	return resp, nil
}

func (t *httpFrames) tooLarge() bool { return t.over.Load() }
func (t *httpFrames) max() int       { return t.limit }

// frameBody is one response's body, failing the read that would pass
// the frame limit. In an event stream a frame ends at an empty line.
type frameBody struct {
	r      io.ReadCloser
	t      *httpFrames
	events bool
	run    int // bytes of the current frame so far
	line   int // bytes of the current line so far, \r left out
}

func (b *frameBody) Read(p []byte) (int, error) {
	if b.t.over.Load() {
		return 0, errFrameTooLarge
	}
	n, err := b.r.Read(p)
	if !b.events {
		b.run += n
	} else {
		for _, c := range p[:n] {
			switch c {
			case '\n':
				if b.line == 0 {
					b.run = 0
				}
				b.line = 0
			case '\r':
			default:
				b.line++
				b.run++
			}
			if b.run > b.t.limit {
				break
			}
		}
	}
	if b.run > b.t.limit {
		b.t.over.Store(true)
		return 0, errFrameTooLarge
	}
	return n, err
}

func (b *frameBody) Close() error { return b.r.Close() }

// httpFailure words a url server's failure from the status it answered
// with, when it refused a request; otherwise as the caller would.
func (srv *server) httpFailure(otherwise string) string {
	srv.mu.Lock()
	rt, _ := srv.frames.(*httpFrames)
	srv.mu.Unlock()
	if rt == nil {
		return otherwise
	}
	if code := rt.status.Load(); code != 0 {
		return fmt.Sprintf("the server answered with HTTP status %d (%s)", code, http.StatusText(int(code)))
	}
	return otherwise
}
