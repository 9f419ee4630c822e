package provider

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

func TestEscape(t *testing.T) {
	cases := map[string]string{
		"plain text, ünïcode": "plain text, ünïcode",
		"two\nlines\r\tand":   `two\nlines\r\tand`,
		"\x1b]0;title\x07":    `\x1b]0;title\x07`,
		"nul\x00 del\x7f":     `nul\x00 del\x7f`,
		"c1 \u009b31m":        `c1 \x9b31m`,
		"bidi \u202egnp.exe":  `bidi \u202egnp.exe`,
		"zero\u200bwidth":     `zero\u200bwidth`,
		"bad \xff\xfe utf8":   `bad \xff\xfe utf8`,
		"replacement \ufffd":  "replacement \ufffd",
		`back\slash "quoted"`: `back\slash "quoted"`,
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	cases := map[int64]string{8 << 20: "8 MiB", 64 << 10: "64 KiB", 1 << 30: "1 GiB", 1500: "1500 bytes", 3 << 19: "1.5 MiB", 1: "1 bytes"}
	for n, want := range cases {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBudget(t *testing.T) {
	b := Budget{Limit: 10}
	if err := b.Take(10); err != nil {
		t.Fatalf("exactly the bound: %v", err)
	}
	err := b.Take(1)
	if err == nil || err.Error() != "response exceeded 10 bytes of text and tool arguments; stopped reading (raise max_response_bytes in settings.json to allow more)" {
		t.Errorf("one past the bound: %v", err)
	}
	var zero Budget
	if zero.Take(DefaultMaxResponseBytes) != nil || zero.Take(1) == nil {
		t.Error("the zero budget does not allow exactly DefaultMaxResponseBytes")
	}
}

func TestCheckArguments(t *testing.T) {
	cases := []struct {
		args string
		cut  bool
		want string
	}{
		{`{"a":1}`, false, ""},
		{` {} `, true, ""},
		{`[1]`, false, "must be a JSON object, not a list"},
		{`"x"`, false, "must be a JSON object, not a string"},
		{`{"a":`, false, "not valid JSON (unexpected end of JSON input); they began: {\"a\":"},
		{`{"a":`, true, "cut off by the reply's max_tokens limit before they were complete; split the work into smaller calls"},
		{`{"a":"` + strings.Repeat("é", 200), false, `they began: {"a":"` + strings.Repeat("é", 56) + "…"},
	}
	for _, tc := range cases {
		got := CheckArguments(tc.args, tc.cut)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("CheckArguments(%.30q, %v) = %q, want %q", tc.args, tc.cut, got, tc.want)
		}
	}
}

func response(contentType string, body io.Reader) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(body)}
}

func TestGuardCheck(t *testing.T) {
	cases := []struct {
		name, contentType, body string
		wantErr                 string // "" when the body passes
	}{
		{"event stream", "text/event-stream; charset=utf-8", "anything at all", ""},
		{"stream under json type", "application/json", "data: {}\n\n", ""},
		{"stream with comment first", "", "\n\n: ping\n\n", ""},
		{"event field first", "text/plain", "event: message_start\n", ""},
		{"html", "text/html", "<html>\x1b[31mhi</html>", `Content-Type text/html, not an event stream; the body begins: <html>\x1b[31mhi</html>`},
		{"json document", "application/json", `{"error":"nope"}`, `the body begins: {"error":"nope"}`},
		{"short word", "text/plain", "da", "the body begins: da"},
		{"empty", "", "", "with an empty body (Content-Type none)"},
		{"long body is clipped", "text/html", strings.Repeat("x", 1000), strings.Repeat("x", headBytes) + "…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time: the guard must decide without waiting for more.
			res, err := NewGuard(0).Check(response(tc.contentType, iotest.OneByteReader(strings.NewReader(tc.body))))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				data, _ := io.ReadAll(res.Body)
				if string(data) != tc.body {
					t.Errorf("body read back as %q", data)
				}
				return
			}
			var ue *UnexpectedBodyError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// The guard sees [DONE] however the stream is split into reads.
func TestGuardSeesDone(t *testing.T) {
	cases := map[string]bool{
		"data: {}\n\ndata: [DONE]\n\n":   true,
		"data:[DONE]\r\n\r\n":            true,
		"data: [DONE]":                   false, // the line never ended
		"data: {\"t\":\"[DONE]\"}\n\n":   false,
		"data: [DONE] and more text\n\n": false,
	}
	for body, want := range cases {
		g := NewGuard(0)
		res, err := g.Check(response("text/event-stream", iotest.OneByteReader(strings.NewReader(body))))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.ReadAll(res.Body)
		if g.SawDone() != want {
			t.Errorf("%q: SawDone = %v, want %v", body, g.SawDone(), want)
		}
	}
}

// FuzzBoundedStream: whatever the bytes and however they are split, the
// guard passes them through unchanged, notes [DONE] exactly when a line
// says it, and never panics.
func FuzzBoundedStream(f *testing.F) {
	f.Add([]byte("data: {}\n\ndata: [DONE]\n\n"), uint8(3))
	f.Add([]byte("event: ping\r\ndata: {}\r\n\r\n"), uint8(1))
	f.Add([]byte("\n\n\ndata:  [DONE]  \n"), uint8(7))
	f.Fuzz(func(t *testing.T, body []byte, step uint8) {
		g := NewGuard(1 << 20)
		res, err := g.Check(response("text/event-stream", &chunked{data: body, step: int(step%16) + 1}))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("body changed")
		}
		want := false
		lines := bytes.Split(body, []byte("\n"))
		for _, l := range lines[:len(lines)-1] {
			l = bytes.TrimRight(l, "\r")
			if len(l) <= 16 && bytes.HasPrefix(l, []byte("data:")) && string(bytes.TrimSpace(l[5:])) == "[DONE]" {
				want = true
			}
		}
		if g.SawDone() != want {
			t.Fatalf("SawDone = %v, want %v", g.SawDone(), want)
		}
	})
}

type chunked struct {
	data []byte
	step int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.step)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func TestEscaped(t *testing.T) {
	err := Escaped(fmt.Errorf("x: %w: got \x1b[2J", ErrStreamCut))
	if !errors.Is(err, ErrStreamCut) || err.Error() != `x: stream cut before the message was complete: got \x1b[2J` {
		t.Errorf("Escaped = %q", err)
	}
	if twice := Escaped(err); twice.Error() != err.Error() {
		t.Errorf("escaping twice changed %q to %q", err, twice)
	}
	if Escaped(nil) != nil {
		t.Error("Escaped(nil) is not nil")
	}
}

// BenchmarkGuard compares reading an event stream through the guard with
// reading it directly, to show what the bound costs per byte.
func BenchmarkGuard(b *testing.B) {
	event := "event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"some words "}}` + "\n\n"
	body := []byte(strings.Repeat(event, 4096))
	buf := make([]byte, 32<<10)
	for _, guarded := range []bool{false, true} {
		name := "direct"
		if guarded {
			name = "guarded"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var r io.Reader = bytes.NewReader(body)
				if guarded {
					res, err := NewGuard(0).Check(response("text/event-stream", r))
					if err != nil {
						b.Fatal(err)
					}
					r = res.Body
				}
				for {
					if _, err := r.Read(buf); err != nil {
						break
					}
				}
			}
		})
	}
}
