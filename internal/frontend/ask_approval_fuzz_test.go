package frontend

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"y", "S", " project ", "always", "", "n", "maybe", "yes\n", "n use rg", "No, later", "n:\x1b[2Jx", "y use rg"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		a, ok := parseAnswer(line)
		if !ok {
			if !reflect.DeepEqual(a, ApprovalAnswer{}) {
				t.Fatalf("invalid answer carries %+v", a)
			}
			return
		}
		if a.Allow != (a.Scope != "") || (!a.Allow && a.Reason != ReasonDenied) {
			t.Fatalf("parseAnswer(%q) = %+v", line, a)
		}
		if a.Note != "" && (a.Allow || strings.IndexFunc(a.Note, unicode.IsControl) >= 0 || utf8.RuneCountInString(a.Note) > maxNote) {
			t.Fatalf("parseAnswer(%q) = %+v: a note only comes with a no, without control characters, bounded", line, a)
		}
	})
}
