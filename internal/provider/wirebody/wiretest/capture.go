package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
)

// Capture is an http.RoundTripper that keeps each request body it is
// given and answers 400, so a test sees exactly the bytes a client would
// send without a server.
type Capture struct {
	mu     sync.Mutex
	bodies [][]byte
}

// Client returns an http.Client sending through c.
func (c *Capture) Client() *http.Client { return &http.Client{Transport: c} }

// RoundTrip keeps r's body, checks that its declared length is right, and
// answers with an API error.
func (c *Capture) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", err)
		}
		_ = r.Body.Close()
		body = b
	}
	if r.ContentLength >= 0 && r.ContentLength != int64(len(body)) {
		return nil, fmt.Errorf("Content-Length %d for a body of %d bytes", r.ContentLength, len(body))
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusBadRequest,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(`{"type":"error","error":{"type":"invalid_request_error","message":"captured"}}`)),
		Request:    r,
	}, nil
}

// Last returns the body of the latest request, or nil if none was sent.
func (c *Capture) Last() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		return nil
	}
	return c.bodies[len(c.bodies)-1]
}

// Count returns how many requests were sent.
func (c *Capture) Count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bodies)
}

// SameJSON reports whether two JSON texts decode to the same value, with
// numbers compared as written; the error says where they differ.
func SameJSON(got, want []byte) error {
	g, err := decode(got)
	if err != nil {
		return fmt.Errorf("ours: %w", err)
	}
	w, err := decode(want)
	if err != nil {
		return fmt.Errorf("SDK's: %w", err)
	}
	if reflect.DeepEqual(g, w) {
		return nil
	}
	return fmt.Errorf("bodies differ at %s", diff("", g, w))
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("text after the JSON value")
	}
	return v, nil
}

// diff names the first path where g and w differ, with both values.
func diff(path string, g, w any) string {
	switch gv := g.(type) {
	case map[string]any:
		wv, ok := w.(map[string]any)
		if !ok {
			break
		}
		for k := range gv {
			if _, ok := wv[k]; !ok {
				return fmt.Sprintf("%s.%s: only in ours", path, k)
			}
		}
		for k := range wv {
			if _, ok := gv[k]; !ok {
				return fmt.Sprintf("%s.%s: only in the SDK's", path, k)
			}
			if !reflect.DeepEqual(gv[k], wv[k]) {
				return diff(path+"."+k, gv[k], wv[k])
			}
		}
	case []any:
		wv, ok := w.([]any)
		if !ok || len(gv) != len(wv) {
			break
		}
		for i := range gv {
			if !reflect.DeepEqual(gv[i], wv[i]) {
				return diff(fmt.Sprintf("%s[%d]", path, i), gv[i], wv[i])
			}
		}
	}
	short := func(v any) string {
		s := fmt.Sprintf("%#v", v)
		if len(s) > 200 {
			s = s[:200] + "…"
		}
		return s
	}
	return fmt.Sprintf("%s: ours %s, SDK's %s", path, short(g), short(w))
}
