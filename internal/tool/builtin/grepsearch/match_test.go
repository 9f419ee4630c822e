package grepsearch

import (
	"fmt"
	"strings"
	"testing"
)

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern    string
		ignoreCase bool
		lit, fold  string
		pure       bool
	}{
		{pattern: "func NewReader", lit: "func NewReader", pure: true},
		{pattern: `func \w+Reader\(`, lit: "Reader("},
		{pattern: "newreader", ignoreCase: true, fold: "newreader"},
		{pattern: "(?i)func newreadersize", fold: "func newreader"},
		{pattern: "(?i)123", lit: "123"},
		{pattern: "foo|bar"},
		{pattern: `\d+`},
		{pattern: "(abc)+x", lit: "abc"},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			m, err := Compile(tc.pattern, tc.ignoreCase)
			if err != nil {
				t.Fatal(err)
			}
			if string(m.lit) != tc.lit || string(m.fold) != tc.fold || m.pure != tc.pure {
				t.Fatalf("lit %q fold %q pure %v", m.lit, m.fold, m.pure)
			}
			if tc.lit == "" && tc.fold == "" && m.multi == nil {
				t.Fatal("no literal and no multi-line regexp")
			}
		})
	}
}

// FuzzGrepMatcher checks the fast path against the plain one: the lines
// Scan reports must be exactly those the regexp matches line by line.
func FuzzGrepMatcher(f *testing.F) {
	f.Add("func NewReader", false, "x\nfunc NewReader(r)\n\nfunc newreader\n")
	f.Add(`func \w+Reader\(`, false, "func TeeReader(r Reader\nfunc Reader(")
	f.Add("newreader", true, "NEWREADER\nNewReader\r\nnewReadeR")
	f.Add("(?i)ks", false, "\u212As\nKS\nk\u017f")
	f.Add("^$", false, "\n\na\n")
	f.Add("a*", false, "bbb\n")
	f.Add(`\s+x`, false, "a\n x\n\nx")
	f.Add("a\nb", false, "a\nb\n")
	f.Fuzz(func(t *testing.T, pattern string, ignoreCase bool, text string) {
		m, err := Compile(pattern, ignoreCase)
		if err != nil {
			return
		}
		var got []int
		data := []byte(text)
		m.Scan(data, func(start, end int) bool {
			got = append(got, strings.Count(text[:start], "\n")+1)
			return true
		})
		var want []int
		lines := strings.Split(text, "\n")
		if strings.HasSuffix(text, "\n") {
			lines = lines[:len(lines)-1]
		}
		for i, l := range lines {
			if m.re.MatchString(l) {
				want = append(want, i+1)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pattern %q (ignore case %v) on %q: scan lines %v, per-line regexp %v", pattern, ignoreCase, text, got, want)
		}
	})
}
