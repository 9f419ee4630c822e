package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "hello, world\n", "hello, world\n"},
		{"tab and newline stay", "a\tb\nc", "a\tb\nc"},
		{"colour stays", "\x1b[31mred\x1b[0m", "\x1b[31mred\x1b[0m"},
		{"bold, 256 and true colour stay", "\x1b[1;38;5;208;48;2;1;2;3mx", "\x1b[1;38;5;208;48;2;1;2;3mx"},
		{"empty SGR is a reset", "\x1b[mx", "\x1b[0mx"},
		{"OSC 52 clipboard, BEL", "a\x1b]52;c;cm0gLXJmIH4=\x07b", "ab"},
		{"OSC 52 clipboard, ST", "a\x1b]52;c;cm0gLXJmIH4=\x1b\\b", "ab"},
		{"OSC 52 by C1 OSC", "a\u009d52;c;Zm9v\u009cb", "ab"},
		{"title set", "\x1b]0;pwned\x07text", "text"},
		{"title set, OSC 2", "\x1b]2;pwned\x1b\\text", "text"},
		{"hyperlink", "\x1b]8;;http://evil\x07click\x1b]8;;\x07", "click"},
		{"cursor up and erase line", "safe\x1b[1A\x1b[2Kevil", "safeevil"},
		{"cursor position", "\x1b[10;20Hx", "x"},
		{"save and restore cursor", "\x1b7a\x1b8b", "ab"},
		{"C1 CSI cursor move", "a\u009b2Jb", "ab"},
		{"carriage return overwrite", "rm -rf ~\rls     ", "rm -rf ~ls     "},
		{"CRLF becomes LF", "a\r\nb\r\n", "a\nb\n"},
		{"hidden attribute", "\x1b[8msecret\x1b[28m", "secret\x1b[28m"},
		{"hidden among colours", "\x1b[31;8;1mx", "\x1b[31;1mx"},
		{"blink dropped", "\x1b[5mx", "x"},
		{"private mode (alternate screen)", "\x1b[?1049hx", "x"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC and PM", "a\x1b_x\x1b\\b\x1b^y\x1b\\c", "abc"},
		{"bell, backspace, form feed, DEL", "a\x07b\x08c\x0cd\x7fe", "abcde"},
		{"NUL and other C0", "a\x00b\x01c\x1fd", "abcd"},
		{"C1 controls", "a\u0085b\u008dc", "abc"},
		{"bidi override", "abc\u202edcba", "abcdcba"},
		{"isolates", "a\u2066b\u2069c", "abc"},
		{"invalid UTF-8", "a\xffb", "a\ufffdb"},
		{"raw C1 byte", "a\x9b2Jb", "a\ufffd2Jb"},
		{"ESC alone at the end", "a\x1b", "a"},
		{"unterminated OSC keeps nothing", "a\x1b]52;c;" + strings.Repeat("A", 100), "a"},
		{"unterminated OSC ends at the bound", "\x1b]" + strings.Repeat("A", maxString) + "after", "after"},
		{"ESC then a letter", "\x1bcx", "x"},
		{"ESC with intermediates", "\x1b(0x", "x"},
		{"SGR with a colon form", "\x1b[38:2::1:2:3mx", "x"},
		{"SGR malformed extended colour", "\x1b[38;5mx", "x"},
		{"unicode text stays", "héllo 世界 🎉", "héllo 世界 🎉"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitAcrossWrites: a stream may cut a sequence or a character
// anywhere; the result is the same as one write of the whole.
func TestSplitAcrossWrites(t *testing.T) {
	inputs := []string{
		"a\x1b]52;c;cm0gLXJmIH4=\x07b",
		"\x1b[31mred\x1b[0m and \x1b[1A up",
		"é世🎉\x1b]0;t\x1b\\x",
		"x\x1b[8my\r\n",
	}
	for _, in := range inputs {
		want := Clean(in)
		for cut := 0; cut <= len(in); cut++ {
			var b strings.Builder
			w := NewWriter(&b)
			if _, err := w.WriteString(in[:cut]); err != nil {
				t.Fatal(err)
			}
			if _, err := w.WriteString(in[cut:]); err != nil {
				t.Fatal(err)
			}
			_ = w.Flush()
			if b.String() != want {
				t.Errorf("%q cut at %d: %q, want %q", in, cut, b.String(), want)
			}
		}
	}
}

// TestSettle: before wisp writes its own text (an approval question),
// the stream is brought back to a reset state on a fresh line.
func TestSettle(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nothing written", "", ""},
		{"ended line", "done\n", "done\n"},
		{"mid-line", "thinking", "thinking\n"},
		{"colour left on", "\x1b[31mred", "\x1b[31mred" + Reset + "\n"},
		{"colour reset already", "\x1b[31mred\x1b[0m\n", "\x1b[31mred\x1b[0m\n"},
		{"hidden attribute then half a sequence", "\x1b[8m\x1b[", ""},
		{"hidden text mid-line", "\x1b[8mhidden", "hidden\n"},
		{"reset before a colour", "\x1b[0;32mok\n", "\x1b[0;32mok\n" + Reset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			w := NewWriter(&b)
			if _, err := w.WriteString(tt.in); err != nil {
				t.Fatal(err)
			}
			if err := w.Settle(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
			if w.MidLine() || w.Styled() {
				t.Error("still mid-line or styled after Settle")
			}
		})
	}
}

// FuzzClean checks what Clean lets through: valid UTF-8 with no control
// character but newline, tab and the ESC of a plain SGR sequence.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[31mx\x1b[0m", "\x1b]52;c;Zm9v\x07", "\x1b]0;t\x1b\\", "a\rb", "\x1b[8m",
		"\u009b31m", "\u009d0;x\u009c", "\x1b[38;2;1;2;3m", "\x1b[38;5;8m", "\x1b[48;2;8;8;8;8m", "\x1bP\x1b\\", "\xff\xfe", "\u202e",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q is not UTF-8", s, out)
		}
		rest := out
		for rest != "" {
			i := strings.IndexByte(rest, 0x1b)
			if i < 0 {
				checkText(t, s, rest)
				break
			}
			checkText(t, s, rest[:i])
			end := strings.IndexByte(rest[i:], 'm')
			if end < 0 || !strings.HasPrefix(rest[i:], "\x1b[") {
				t.Fatalf("Clean(%q) = %q keeps an escape that is not SGR", s, out)
			}
			params := rest[i+2 : i+end]
			if strings.Trim(params, "0123456789;") != "" || conceals(params) {
				t.Fatalf("Clean(%q) = %q keeps SGR %q", s, out, params)
			}
			rest = rest[i+end+1:]
		}
		if Clean(out) != out {
			t.Fatalf("Clean is not idempotent on %q: %q then %q", s, out, Clean(out))
		}
	})
}

// conceals reports an SGR list that turns on hidden text (8), skipping
// the arguments of extended colours.
func conceals(params string) bool {
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		switch ps[i] {
		case "8":
			return true
		case "38", "48", "58":
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else {
				i += 4
			}
		}
	}
	return false
}

func checkText(t *testing.T, in, text string) {
	t.Helper()
	for _, r := range text {
		if r == '\n' || r == '\t' {
			continue
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || bidi(r) {
			t.Fatalf("Clean(%q) keeps %U", in, r)
		}
	}
}
