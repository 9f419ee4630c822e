package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseFrontMatter(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     FrontMatter
		body     string
		errHas   string
		validErr string // from Validate with folder "x"
	}{
		{name: "plain", in: "---\nname: x\ndescription: Does x.\n---\nBody\n", want: FrontMatter{"x", "Does x."}, body: "Body\n"},
		{name: "CRLF", in: "---\r\nname: x\r\ndescription: d\r\n---\r\n\r\nBody\r\n", want: FrontMatter{"x", "d"}, body: "Body\r\n"},
		{name: "BOM", in: "\ufeff---\nname: x\ndescription: d\n---\n", want: FrontMatter{"x", "d"}},
		{name: "dots close", in: "---\nname: x\ndescription: d\n...\nB", want: FrontMatter{"x", "d"}, body: "B"},
		{name: "close at end of file", in: "---\nname: x\ndescription: d\n---", want: FrontMatter{"x", "d"}},
		{name: "folded description", in: "---\nname: x\ndescription: >\n  one\n  two\n---\n", want: FrontMatter{"x", "one two"}},
		{name: "quoted with colon", in: "---\nname: \"x\"\ndescription: 'Use: when asked'\n---\n", want: FrontMatter{"x", "Use: when asked"}},
		{name: "extra keys", in: "---\nname: x\ndescription: d\nlicense: MIT\nmetadata:\n  a: b\nallowed-tools: [read]\n---\n", want: FrontMatter{"x", "d"}},
		{name: "trailing spaces on fences", in: "---  \nname: x\ndescription: d\n---\t\nB", want: FrontMatter{"x", "d"}, body: "B"},
		{name: "no opening", in: "name: x\n---\n", errHas: "does not start"},
		{name: "empty file", in: "", errHas: "does not start"},
		{name: "not closed", in: "---\nname: x\n", errHas: "not closed"},
		{name: "empty", in: "---\n---\n", errHas: "empty"},
		{name: "list", in: "---\n- a\n---\n", errHas: "front matter"},
		{name: "duplicate key", in: "---\nname: x\nname: y\n---\n", errHas: "front matter"},
		{name: "name not a string", in: "---\nname: [x]\ndescription: d\n---\n", errHas: "front matter"},
		{name: "huge front matter", in: "---\n" + strings.Repeat("a: b\n", 5000) + "---\n", errHas: "KiB"},
		{name: "name mismatch", in: "---\nname: y\ndescription: d\n---\n", want: FrontMatter{"y", "d"}, validErr: "differs"},
		{name: "numeric name", in: "---\nname: 123\ndescription: d\n---\n", want: FrontMatter{"123", "d"}, validErr: "differs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fm, body, err := ParseFrontMatter([]byte(tc.in))
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fm != tc.want || body != tc.body {
				t.Fatalf("got %+v %q, want %+v %q", fm, body, tc.want, tc.body)
			}
			verr := fm.Validate("x")
			if (verr != nil) != (tc.validErr != "") || verr != nil && !strings.Contains(verr.Error(), tc.validErr) {
				t.Fatalf("Validate: %v, want %q", verr, tc.validErr)
			}
		})
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: x\ndescription: d\n---\nbody",
		"---\r\nname: x\r\n...\r\n",
		"---\na: &a [*a, *a]\nb: &b [*a, *a]\n---\n",
		"---\nname: |\n  x\n---\n",
		"\ufeff---\n---\n",
		"---\n{name: x, description: [}\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, body, err := ParseFrontMatter(data)
		if err != nil {
			if fm != (FrontMatter{}) || body != "" {
				t.Fatalf("error %v with results %+v %q", err, fm, body)
			}
			return
		}
		if !strings.HasSuffix(string(data), body) {
			t.Fatalf("body %q is not the end of the input", body)
		}
		if fm.Validate(fm.Name) == nil {
			if validName(fm.Name) != nil || len(fm.Name) > MaxNameLen || utf8.RuneCountInString(fm.Description) > MaxDescriptionLen {
				t.Fatalf("valid front matter out of bounds: %+v", fm)
			}
		}
	})
}
