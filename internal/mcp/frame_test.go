package mcp

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestFrameReader feeds a frame of exactly the limit and one past, in
// whole reads and byte by byte.
func TestFrameReader(t *testing.T) {
	const limit = 1000
	cases := []struct {
		name  string
		input string
		over  bool
	}{
		{"at the limit", strings.Repeat("a", limit) + "\n" + strings.Repeat("b", limit) + "\n", false},
		{"one past", strings.Repeat("a", 10) + "\n" + strings.Repeat("b", limit+1) + "\n", true},
		{"past without a newline", strings.Repeat("c", limit+1), true},
	}
	for _, c := range cases {
		for _, slow := range []bool{false, true} {
			var r io.Reader = strings.NewReader(c.input)
			if slow {
				r = iotest.OneByteReader(r)
			}
			f := &frameReader{r: io.NopCloser(r), limit: limit}
			_, err := io.ReadAll(f)
			if got := errors.Is(err, errFrameTooLarge); got != c.over || f.tooLarge() != c.over {
				t.Errorf("%s (byte by byte %v): err %v, want too large %v", c.name, slow, err, c.over)
			}
		}
	}
}
