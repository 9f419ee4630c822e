package rpc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every frame, naming errors by their code.
func readAll(t *testing.T, r io.Reader, max int) []string {
	t.Helper()
	fr := NewFrameReader(r, max)
	var out []string
	for i := 0; i < 1000; i++ {
		f, err := fr.Next()
		var fe *FrameError
		switch {
		case errors.Is(err, io.EOF):
			return out
		case errors.As(err, &fe):
			out = append(out, "!"+fe.Code)
		case err != nil:
			t.Fatalf("Next: %v", err)
		default:
			out = append(out, string(f))
		}
	}
	t.Fatal("the reader never reached the end")
	return nil
}

func TestFrameReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"one frame", "{\"a\":1}\n", 64, []string{`{"a":1}`}},
		{"CRLF", "{\"a\":1}\r\n{\"b\":2}\n", 64, []string{`{"a":1}`, `{"b":2}`}},
		{"only the last CR goes", "a\r\r\n", 64, []string{"a\r"}},
		{"lone CR is no line end", "a\rb\n", 64, []string{"a\rb"}},
		{"U+2028 and U+2029 are no line ends", "\"a\u2028b\u2029c\"\n", 64, []string{"\"a\u2028b\u2029c\""}},
		{"blank lines skipped", "\n\r\n  \n{}\n", 64, []string{"{}"}},
		{"too large, then on", long + "\n{}\n", 64, []string{"!" + CodeFrameTooLarge, "{}"}},
		{"exactly the limit", strings.Repeat("y", 64) + "\n", 64, []string{strings.Repeat("y", 64)}},
		{"the limit and a CR", strings.Repeat("y", 64) + "\r\n", 64, []string{strings.Repeat("y", 64)}},
		{"one over the limit", strings.Repeat("y", 65) + "\n", 64, []string{"!" + CodeFrameTooLarge}},
		{"one over the limit with a CR", strings.Repeat("y", 65) + "\r\n{}\n", 64, []string{"!" + CodeFrameTooLarge, "{}"}},
		{"invalid UTF-8, then on", "\xff\xfe\n{}\n", 64, []string{"!" + CodeInvalidUTF8, "{}"}},
		{"torn last line", "{}\n{\"a\"", 64, []string{"{}", "!" + CodeTornFrame}},
		{"torn and too large", "{}\n" + long, 64, []string{"{}", "!" + CodeTornFrame}},
		{"trailing blanks are no torn frame", "{}\n  ", 64, []string{"{}"}},
		{"empty input", "", 64, nil},
		{"larger than the buffer", strings.Repeat("z", 200<<10) + "\n", 1 << 20, []string{strings.Repeat("z", 200<<10)}},
		{"too large across buffers", strings.Repeat("z", 200<<10) + "\n{}\n", 100 << 10, []string{"!" + CodeFrameTooLarge, "{}"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got := readAll(t, r, tc.max)
				if strings.Join(got, "|") != strings.Join(tc.want, "|") {
					t.Fatalf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	cases := []struct {
		name, in, code, typ, id string
	}{
		{"command", `{"type":"get_state"}`, "", "get_state", ""},
		{"string id", `{"id":"x","type":"get_state"}`, "", "get_state", `"x"`},
		{"number id", `{"id":7,"type":"get_state"}`, "", "get_state", "7"},
		{"duplicate key", `{"type":"a","type":"b"}`, CodeDuplicateKey, "", ""},
		{"escaped duplicate", `{"type":"a","\u0074ype":"b"}`, CodeDuplicateKey, "", ""},
		{"nested duplicate", `{"type":"a","x":{"k":1,"k":2}}`, CodeDuplicateKey, "", ""},
		{"same key in two objects", `{"type":"a","x":[{"k":1},{"k":2}]}`, "", "a", ""},
		{"not JSON", `{"type":`, CodeInvalidJSON, "", ""},
		{"trailing value", `{"type":"a"}{}`, CodeInvalidJSON, "", ""},
		{"array", `[]`, CodeInvalidRequest, "", ""},
		{"null", `null`, CodeInvalidRequest, "", ""},
		{"no type", `{"id":"q"}`, CodeInvalidRequest, "", `"q"`},
		{"type not a string", `{"type":3}`, CodeInvalidRequest, "", ""},
		{"bool id", `{"id":true,"type":"a"}`, CodeInvalidRequest, "", ""},
		{"deep nesting", `{"type":"a","x":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`, CodeInvalidJSON, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, err := parseRequest([]byte(tc.in))
			code := ""
			if err != nil {
				code = err.Code
			}
			if code != tc.code || req.Type != tc.typ || string(req.ID) != tc.id {
				t.Fatalf("got code %q type %q id %s, want %q %q %s", code, req.Type, req.ID, tc.code, tc.typ, tc.id)
			}
		})
	}
}

func TestDecodeParams(t *testing.T) {
	cases := []struct {
		name, in, code string
	}{
		{"all fields", `{"type":"approve","call_id":"c","approved":true,"scope":"once","note":"n"}`, ""},
		{"required missing", `{"type":"approve","call_id":"c"}`, CodeInvalidParams},
		{"wrong kind", `{"type":"approve","call_id":"c","approved":"yes"}`, CodeInvalidParams},
		{"unknown field", `{"type":"approve","call_id":"c","approved":true,"extra":1}`, CodeInvalidRequest},
		{"case differs", `{"type":"approve","Call_ID":"c","approved":true}`, CodeInvalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, perr := parseRequest([]byte(tc.in))
			if perr != nil {
				t.Fatal(perr)
			}
			var p approveParams
			code := ""
			if err := decodeParams(req, &p); err != nil {
				code = err.Code
			}
			if code != tc.code {
				t.Fatalf("code %q, want %q", code, tc.code)
			}
		})
	}
}

// FuzzReadFrame feeds arbitrary input to the reader and the command
// parser: neither panics, every frame is valid UTF-8 without a LF, and
// the frames are the input's non-blank lines in order.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"{\"type\":\"get_state\"}\n", "a\r\nb\n", "\xff\n", "{\"a\":1,\"a\":2}\n", "torn", "\u2028\n",
		"{\"id\":1,\"type\":\"prompt\",\"message\":\"hi\"}\r\n", "\n\n\n", "[" + strings.Repeat("{", 10),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fr := NewFrameReader(bytes.NewReader(in), 64)
		for i := 0; ; i++ {
			if i > len(in)+2 {
				t.Fatal("more frames than lines")
			}
			frame, err := fr.Next()
			var fe *FrameError
			if errors.Is(err, io.EOF) {
				break
			}
			if errors.As(err, &fe) {
				if fe.Code == "" || fe.Msg == "" {
					t.Fatalf("untyped frame error %#v", fe)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if bytes.IndexByte(frame, '\n') >= 0 || len(frame) > 64 || len(bytes.TrimSpace(frame)) == 0 {
				t.Fatalf("bad frame %q", frame)
			}
			if !bytes.Contains(in, frame) {
				t.Fatalf("frame %q is not from the input", frame)
			}
			req, perr := parseRequest(frame)
			if perr == nil && req.Type == "" {
				t.Fatalf("a request without a type passed: %q", frame)
			}
			if perr != nil && (perr.Code == "" || perr.Message == "") {
				t.Fatalf("untyped error %#v", perr)
			}
		}
	})
}
