package builtin

import (
	"strings"
	"testing"
)

// TestEditLineEndings: each line keeps its own ending; new lines take the
// ending around them; a change of ending is named in the result.
func TestEditLineEndings(t *testing.T) {
	tests := []struct {
		name, content, args, want string
		note                      string // expected note line, "" for none
	}{
		{name: "all CRLF", content: "a\r\nb\r\nc\r\n",
			args: `{"path":"f","old_text":"b\n","new_text":"b\nB\n"}`, want: "a\r\nb\r\nB\r\nc\r\n"},
		{name: "all LF", content: "a\nb\nc\n",
			args: `{"path":"f","old_text":"b","new_text":"b\nB"}`, want: "a\nb\nB\nc\n"},
		{name: "mostly CRLF keeps its LF line", content: "a\r\nb\r\nlf\nc\r\nd\r\n",
			args: `{"path":"f","old_text":"c","new_text":"C"}`, want: "a\r\nb\r\nlf\nC\r\nd\r\n"},
		{name: "a line split inside an LF line of a CRLF file", content: "a\r\nb\nc\r\nd\r\n",
			args: `{"path":"f","old_text":"b","new_text":"b1\nb2"}`, want: "a\r\nb1\nb2\nc\r\nd\r\n"},
		{name: "mostly LF keeps its CRLF line", content: "a\nb\r\nc\nd\n",
			args: `{"path":"f","old_text":"d","new_text":"D"}`, want: "a\nb\r\nc\nD\n"},
		{name: "old_text copied with CRLF matches an LF file", content: "a\nb\nc\n",
			args: `{"path":"f","old_text":"a\r\nb","new_text":"x\r\ny"}`, want: "x\ny\nc\n"},
		{name: "replacing mixed lines names the change", content: "a\r\nb\nc\r\nd\r\n",
			args: `{"path":"f","old_text":"a\nb\nc\n","new_text":"1\n2\n3\n"}`, want: "1\r\n2\r\n3\r\nd\r\n",
			note: "note: line endings: lines 1-3 had 2 CRLF and 1 LF; the new lines all end in CRLF"},
		{name: "last line without newline follows the line before", content: "a\r\nb",
			args: `{"path":"f","old_text":"b","new_text":"b\nc"}`, want: "a\r\nb\r\nc"},
		{name: "byte-order mark kept", content: "\xEF\xBB\xBFa\r\nb\r\n",
			args: `{"path":"f","old_text":"a","new_text":"A"}`, want: "\xEF\xBB\xBFA\r\nb\r\n"},
		{name: "lone CR is text", content: "a\rb\nc\n",
			args: `{"path":"f","old_text":"c","new_text":"C"}`, want: "a\rb\nC\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{"f": tc.content})
			res := callTool(t, Edit(), env, tc.args)
			if res.IsError {
				t.Fatal(res.Content)
			}
			if got := readBack(t, root, "f"); got != tc.want {
				t.Fatalf("file = %q, want %q", got, tc.want)
			}
			hasNote := strings.Contains(res.Content, "\nnote: line endings")
			if tc.note == "" && hasNote {
				t.Fatalf("unexpected note in %q", res.Content)
			}
			if tc.note != "" && !strings.Contains(res.Content, "\n"+tc.note+"\n") {
				t.Fatalf("result %q lacks %q", res.Content, tc.note)
			}
		})
	}
}

func FuzzLineEndings(f *testing.F) {
	for _, s := range []string{"a\r\nb\nc", "\r\n\r\n\n", "x\ry\r", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm, le := normaliseEndings(s)
		if strings.Contains(norm, "\r\n") && !strings.Contains(s, "\r\r\n") {
			t.Fatalf("normalised %q still holds CRLF: %q", s, norm)
		}
		if back, _ := le.restore(norm, nil); back != s {
			t.Fatalf("restore(normalise(%q)) = %q", s, back)
		}
	})
}
