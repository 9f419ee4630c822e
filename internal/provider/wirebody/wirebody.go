// Package wirebody holds what the provider adapters share to write a
// request body themselves instead of through their SDK: assembling the
// body from the SDK's encoding of the small fields and our encoding of
// the messages, attaching it to the SDK's outgoing request, and
// remembering each message's encoding from one request to the next.
//
// It exists because the SDKs' reflection-based encoders take about
// 100 ms for the 6 MB body of a 10,000-record history, which is most of
// what a resumed session waits before its first request. It holds no SDK
// types and must not import an SDK: the adapters keep the SDKs as their
// clients (headers, authentication, streaming, errors) and mirror only the
// message shapes, which their tests check against the SDKs' own encoding.
package wirebody

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// Body is a request body kept as the pieces it was made of and read from
// them in turn: joining them would allocate, clear and fill a second
// buffer the size of the whole body.
type Body struct {
	pieces [][]byte
	size   int
}

// NewBody returns the JSON object made of the members of head (an object,
// as an SDK encodes the request's small fields), with "messages" set to
// the array of the non-empty parts and "stream" set to true. Members of
// head with those names are replaced. Each part is one or more complete
// array elements separated by commas. With no part to send, "messages" is
// left out, as the SDKs leave out an empty list. The parts are not copied
// and must not change afterwards.
func NewBody(head []byte, parts [][]byte) (*Body, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(head, &members); err != nil {
		return nil, fmt.Errorf("request fields are not a JSON object: %w", err)
	}
	delete(members, "messages")
	members["stream"] = json.RawMessage("true")
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := &Body{pieces: make([][]byte, 0, 2*len(parts)+3)}
	b.add([]byte("{"))
	if slices.ContainsFunc(parts, func(p []byte) bool { return len(p) > 0 }) {
		b.add([]byte(`"messages":[`))
		comma := []byte(",")
		first := true
		for _, p := range parts {
			if len(p) == 0 {
				continue
			}
			if !first {
				b.add(comma)
			}
			b.add(p)
			first = false
		}
		b.add([]byte("],"))
	}
	var tail []byte
	for i, k := range keys {
		name, err := json.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("request field %q: %w", k, err)
		}
		if i > 0 {
			tail = append(tail, ',')
		}
		tail = append(tail, name...)
		tail = append(tail, ':')
		tail = append(tail, members[k]...)
	}
	b.add(append(tail, '}'))
	return b, nil
}

func (b *Body) add(p []byte) {
	b.pieces = append(b.pieces, p)
	b.size += len(p)
}

// Len returns the body's length in bytes.
func (b *Body) Len() int { return b.size }

// Bytes returns the body in one piece.
func (b *Body) Bytes() []byte {
	out := make([]byte, 0, b.size)
	for _, p := range b.pieces {
		out = append(out, p...)
	}
	return out
}

// Reader returns a reader of the body from its start.
func (b *Body) Reader() io.Reader { return &reader{pieces: b.pieces} }

type reader struct {
	pieces [][]byte
	i, off int
}

func (r *reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.pieces) {
		c := copy(p[n:], r.pieces[r.i][r.off:])
		n += c
		r.off += c
		if r.off == len(r.pieces[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// WriteTo hands each piece to w whole, which lets a buffered writer pass
// the large ones straight through.
func (r *reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for r.i < len(r.pieces) {
		n, err := w.Write(r.pieces[r.i][r.off:])
		total += int64(n)
		r.off += n
		if err != nil {
			return total, err
		}
		r.i, r.off = r.i+1, 0
	}
	return total, nil
}

// Attach makes r carry the body in place of the one its SDK encoded. It is
// called from the SDK's middleware, once per attempt, so a retry sends
// the same bytes; the SDK's own encoding is of the small fields alone and
// costs nothing worth avoiding. The SDKs' option.WithRequestBody is not
// used because both SDKs then set "stream" in the given body with sjson,
// which scans and copies all of it (4 to 15 ms for 6 MB).
func (b *Body) Attach(r *http.Request) {
	if r.Body != nil {
		_ = r.Body.Close()
	}
	r.Body = io.NopCloser(b.Reader())
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(b.Reader()), nil }
	r.ContentLength = int64(b.size)
	r.Header.Set("Content-Type", "application/json")
}
