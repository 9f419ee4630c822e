package proc

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTail(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		bound   Bound
		partial bool
		kept    string
		cut     bool
	}{
		{name: "fits", in: "a\nb\n", bound: Bound{Bytes: 10, Lines: 10}, kept: "a\nb\n"},
		{name: "empty", in: "", bound: Bound{Bytes: 10, Lines: 10}, kept: ""},
		{name: "lines", in: "a\nb\nc\nd\n", bound: Bound{Bytes: 100, Lines: 2}, kept: "c\nd\n", cut: true},
		{name: "lines without final newline", in: "a\nb\nc", bound: Bound{Bytes: 100, Lines: 2}, kept: "b\nc", cut: true},
		{name: "bytes at line boundary", in: "aaa\nbb\n", bound: Bound{Bytes: 3, Lines: 10}, kept: "bb\n", cut: true},
		{name: "bytes mid line", in: "aaa\nbbb\ncc\n", bound: Bound{Bytes: 6, Lines: 10}, kept: "cc\n", cut: true},
		{name: "bytes inside one line", in: "abcdef", bound: Bound{Bytes: 3, Lines: 10}, kept: "def", cut: true},
		{name: "rune boundary", in: "xé日本", bound: Bound{Bytes: 5, Lines: 10}, kept: "本", cut: true},
		{name: "partial start", in: "tail of a line\nnext\n", bound: Bound{Bytes: 100, Lines: 10}, partial: true, kept: "next\n", cut: true},
		{name: "partial single line", in: "only\n", bound: Bound{Bytes: 100, Lines: 10}, partial: true, kept: "only\n"},
		{name: "crlf", in: "a\r\nb\r\nc\r\n", bound: Bound{Bytes: 100, Lines: 2}, kept: "b\r\nc\r\n", cut: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kept, cut := tail([]byte(tc.in), tc.bound, tc.partial)
			if string(kept) != tc.kept || cut != tc.cut {
				t.Fatalf("tail = %q, %v; want %q, %v", kept, cut, tc.kept, tc.cut)
			}
		})
	}
}

// The sink must give the same tail whether the stream came in one write or
// many, and its windows must add up to the stream.
func TestSinkWindows(t *testing.T) {
	var stream strings.Builder
	for i := 0; i < 500; i++ {
		stream.WriteString(strings.Repeat("x", i%37) + "\n")
	}
	data := []byte(stream.String())
	bound := Bound{Bytes: 256, Lines: 20}
	whole := newSink("stdout", bound, t.TempDir(), 1<<20)
	whole.Write(data)
	want, _ := whole.since(mark{})
	whole.close()

	for _, chunk := range []int{1, 7, 64, 1000} {
		s := newSink("stdout", bound, t.TempDir(), 1<<20)
		var m mark
		var total int64
		for i := 0; i < len(data); i += chunk {
			s.Write(data[i:min(i+chunk, len(data))])
			var w Stream
			w, m = s.since(m)
			total += w.TotalBytes
			if len(w.Text) > bound.Bytes || w.Lines > bound.Lines {
				t.Fatalf("chunk %d: window over bound: %d bytes %d lines", chunk, len(w.Text), w.Lines)
			}
		}
		got, _ := s.since(mark{})
		s.close()
		if got.Text != want.Text || got.TotalBytes != int64(len(data)) || total != int64(len(data)) {
			t.Fatalf("chunk %d: tail %q, want %q; totals %d %d", chunk, got.Text, want.Text, got.TotalBytes, total)
		}
	}
}

func FuzzTail(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 4, 2, false)
	f.Add([]byte("日本語\r\n\x00\xff"), 3, 1, true)
	f.Fuzz(func(t *testing.T, b []byte, maxBytes, maxLines int, partial bool) {
		if maxBytes <= 0 || maxLines <= 0 {
			return
		}
		bound := Bound{Bytes: maxBytes, Lines: maxLines}
		kept, cut := tail(b, bound, partial)
		if len(kept) > maxBytes || countLines(kept) > maxLines {
			t.Fatalf("over bound: %q", kept)
		}
		if !bytes.HasSuffix(b, kept) {
			t.Fatalf("%q is not a tail of %q", kept, b)
		}
		if !cut && !bytes.Equal(kept, b) {
			t.Fatalf("shortened without cut")
		}
		if utf8.Valid(b) && !utf8.Valid(kept) {
			t.Fatalf("split a rune: %q", kept)
		}
	})
}
