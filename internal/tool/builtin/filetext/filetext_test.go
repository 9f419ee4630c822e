package filetext

import (
	"strings"
	"testing"
)

func TestBinaryReason(t *testing.T) {
	long := strings.Repeat("a", BinarySample-1) + "é" // é cut by the sample end
	tests := []struct {
		name  string
		data  string
		whole bool
		want  string
	}{
		{"text", "hello\n", true, ""},
		{"unicode", "héllo wörld ✓\n", true, ""},
		{"nul", "abc\x00def", true, "it contains NUL bytes"},
		{"latin1", "caf\xe9\n", true, "it is not valid UTF-8"},
		{"rune cut by sample end", long + strings.Repeat("b", 10), false, ""},
		{"truncated rune at true end", "abc\xc3", true, "it is not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := BinaryReason([]byte(tc.data), tc.whole); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
