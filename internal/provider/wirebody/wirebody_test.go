package wirebody

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wisp-agent/wisp/internal/chat"
)

// stdString is encoding/json's encoding of s with HTML escaping off,
// which AppendString must match byte for byte.
func stdString(t testing.TB, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var strs = []string{
	"", "plain", `"`, `\`, "\x00\x01\b\f\n\r\t\x1f\x7f", "<&>", "é世🎉", "\u2028\u2029", "\xff", "a\xc3", "\xed\xa0\x80",
	"\xf4\x90\x80\x80", "\ufffd", "\U0010ffff", strings.Repeat("ab\"c\n", 1000),
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range strs {
		if got, want := AppendString([]byte("x"), s), append([]byte("x"), stdString(t, s)...); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range strs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), stdString(t, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}

func TestAppendRaw(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{`{}`, `{}`, true},
		{` { "a" : [1, 2] , "b":"x y" } `, `{"a":[1,2],"b":"x y"}`, true},
		{`null`, `null`, true},
		{`{"a":`, ``, false},
		{``, ``, false},
		{`{} {}`, ``, false},
	}
	for _, tc := range cases {
		got, err := AppendRaw([]byte("p:"), []byte(tc.in))
		switch {
		case (err == nil) != tc.ok:
			t.Errorf("AppendRaw(%q): error %v", tc.in, err)
		case tc.ok && string(got) != "p:"+tc.want:
			t.Errorf("AppendRaw(%q) = %s", tc.in, got)
		case !tc.ok && string(got) != "p:":
			t.Errorf("AppendRaw(%q) changed dst on error: %s", tc.in, got)
		}
	}
}

func TestBody(t *testing.T) {
	cases := []struct {
		name  string
		head  string
		parts []string
		want  string
	}{
		{"messages and fields", `{"model":"m","max_tokens":5}`, []string{`{"a":1}`, "", `{"b":2},{"c":3}`},
			`{"messages":[{"a":1},{"b":2},{"c":3}],"max_tokens":5,"model":"m","stream":true}`},
		{"no message", `{"model":"m"}`, []string{"", ""}, `{"model":"m","stream":true}`},
		{"head's messages and stream replaced", `{"messages":null,"stream":false}`, []string{`1`},
			`{"messages":[1],"stream":true}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parts := make([][]byte, len(tc.parts))
			for i, p := range tc.parts {
				parts[i] = []byte(p)
			}
			b, err := NewBody([]byte(tc.head), parts)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(b.Bytes()); got != tc.want || b.Len() != len(tc.want) {
				t.Fatalf("body %s (Len %d), want %s", got, b.Len(), tc.want)
			}
			// Read in small pieces, and through WriteTo, the same bytes come out.
			if err := iotest.TestReader(b.Reader(), []byte(tc.want)); err != nil {
				t.Fatal(err)
			}
			var w bytes.Buffer
			if _, err := io.Copy(&w, b.Reader()); err != nil || w.String() != tc.want {
				t.Fatalf("WriteTo gave %q, %v", w.String(), err)
			}
			r, _ := http.NewRequest(http.MethodPost, "http://x/", strings.NewReader(`{"small":1}`))
			b.Attach(r)
			for range 2 {
				got, _ := io.ReadAll(r.Body)
				if string(got) != tc.want || r.ContentLength != int64(len(tc.want)) || r.Header.Get("Content-Type") != "application/json" {
					t.Fatalf("attached body %q, length %d, type %q", got, r.ContentLength, r.Header.Get("Content-Type"))
				}
				r.Body, _ = r.GetBody()
			}
		})
	}
	if _, err := NewBody([]byte(`[1]`), nil); err == nil {
		t.Error("a head that is not an object was accepted")
	}
}

// TestSameMessageSeesEveryField fails when chat.Block gains a field that
// sameMessage does not compare: a remembered encoding would then be
// reused for a message that changed only in that field.
func TestSameMessageSeesEveryField(t *testing.T) {
	base := chat.Block{Type: "t", Text: "x", ID: "i", Name: "n", Input: json.RawMessage(`{}`), ToolUseID: "u", IsError: false}
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		changed := base
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("other")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.SetBytes([]byte(`{"a":1}`))
		default:
			t.Fatalf("chat.Block.%s is of a kind this test does not change; teach sameMessage and this test", typ.Field(i).Name)
		}
		a := chat.Message{Role: chat.User, Content: []chat.Block{base}}
		b := chat.Message{Role: chat.User, Content: []chat.Block{changed}}
		if sameMessage(a, b) {
			t.Errorf("sameMessage misses a change of chat.Block.%s", typ.Field(i).Name)
		}
	}
	if sameMessage(chat.Message{Role: chat.User}, chat.Message{Role: chat.Assistant}) {
		t.Error("sameMessage misses a change of role")
	}
}

func TestHistoryReusesOnlyWhatIsUnchanged(t *testing.T) {
	var h History
	calls := 0
	encode := func(dst []byte, m chat.Message, last bool) ([]byte, error) {
		calls++
		dst = append(dst, m.TextOf()...)
		if last {
			dst = append(dst, '!')
		}
		return dst, nil
	}
	msgs := []chat.Message{chat.UserText("a"), chat.UserText("b"), chat.UserText("c")}
	steps := []struct {
		name  string
		msgs  []chat.Message
		fresh int
		want  string
		calls int
	}{
		{"first", msgs, 2, "a b c!", 3},
		{"again", msgs, 2, "a b c!", 1},
		{"grown", append(msgs[:3:3], chat.UserText("d")), 3, "a b c d!", 2},
		{"changed", []chat.Message{chat.UserText("a"), chat.UserText("B"), chat.UserText("c")}, -1, "a B c", 1},
		{"shifted", []chat.Message{chat.UserText("B"), chat.UserText("c")}, -1, "B c", 2},
	}
	for _, s := range steps {
		calls = 0
		parts, err := h.Encode(s.msgs, s.fresh, encode)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(bytes.Join(parts, []byte(" "))); got != s.want || calls != s.calls {
			t.Errorf("%s: %q after %d encodings, want %q after %d", s.name, got, calls, s.want, s.calls)
		}
	}
}

// BenchmarkAppendString escapes 2 KB of source code, the bulk of a long
// session's history.
func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("func handle(w http.ResponseWriter, r *http.Request) {\n\treturn\n}\n", 30)
	buf := make([]byte, 0, 4*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

// TestHistoryConcurrentRequests encodes different conversations through
// one History at once: each must get its own messages' encodings.
func TestHistoryConcurrentRequests(t *testing.T) {
	var h History
	encode := func(dst []byte, m chat.Message, _ bool) ([]byte, error) { return append(dst, m.TextOf()...), nil }
	done := make(chan error)
	for g := range 4 {
		go func() {
			var err error
			for i := range 200 {
				msgs := []chat.Message{chat.UserText("same"), chat.UserText(strings.Repeat("g", g+1)), chat.UserText(string(rune('a' + i%26)))}
				parts, e := h.Encode(msgs, -1, encode)
				if e == nil && string(bytes.Join(parts, []byte(" "))) != "same "+strings.Repeat("g", g+1)+" "+string(rune('a'+i%26)) {
					e = errors.New("wrong encodings: " + string(bytes.Join(parts, []byte(" "))))
				}
				if err == nil {
					err = e
				}
			}
			done <- err
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
