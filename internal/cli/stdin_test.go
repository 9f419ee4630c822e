package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestJoinPiped(t *testing.T) {
	tests := []struct {
		name, piped, prompt, want string
	}{
		{"empty input adds nothing", "", "why?", "why?"},
		{"blank input adds nothing", " \n\t\n", "why?", "why?"},
		{"fenced, then the prompt", "FAIL: TestX\n", "why?", "```\nFAIL: TestX\n```\n\nwhy?"},
		{"fence longer than any run inside", "a ```` b\n", "why?", "`````\na ```` b\n`````\n\nwhy?"},
		{"short runs keep three", "x ` y `` z", "why?", "```\nx ` y `` z\n```\n\nwhy?"},
		{"trailing newlines folded", "log\r\n\n\n", "why?", "```\nlog\n```\n\nwhy?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := joinPiped(tc.piped, tc.prompt); got != tc.want {
				t.Errorf("joinPiped = %q, want %q", got, tc.want)
			}
		})
	}
}

// countingReader is an endless text source that counts what was taken.
type countingReader struct{ n int64 }

func (c *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	c.n += int64(len(p))
	return len(p), nil
}

func TestReadInput(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		limit   int64
		wantErr string
	}{
		{name: "text", in: "hello\n", limit: 100},
		{name: "exactly the limit", in: "abcd", limit: 4},
		{name: "one over the limit", in: "abcde", limit: 4, wantErr: "stdin holds more than 4 bytes, the limit for piped input; raise it with --max-input-bytes N, or pipe less"},
		{name: "NUL byte", in: "ab\x00c", limit: 100, wantErr: "stdin looks binary (a NUL byte at offset 2)"},
		{name: "invalid UTF-8", in: "ok\xff", limit: 100, wantErr: "stdin is not valid UTF-8 (first bad byte at offset 2)"},
		{name: "UTF-8 text", in: "héllo ✓", limit: 100},
		{name: "zeros over the limit are binary first", in: strings.Repeat("\x00", 10), limit: 4, wantErr: "stdin looks binary"},
		{name: "UTF-16 named", in: "\xff\xfeh\x00i\x00", limit: 100, wantErr: "stdin is UTF-16 text"},
		{name: "UTF-16 big-endian named", in: "\xfe\xff\x00h", limit: 100, wantErr: "stdin is UTF-16 text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readInput(strings.NewReader(tc.in), tc.limit)
			if tc.wantErr == "" {
				if err != nil || string(got) != tc.in {
					t.Fatalf("got %q, %v; want %q", got, err, tc.in)
				}
				return
			}
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, tc.wantErr) {
				t.Fatalf("err = %v, want a usage error starting %q", err, tc.wantErr)
			}
		})
	}
}

// TestReadInputBounded: an endless input is read no further than one
// byte past the limit.
func TestReadInputBounded(t *testing.T) {
	src := &countingReader{}
	if _, err := readInput(src, 1000); err == nil {
		t.Fatal("an endless input was accepted")
	}
	if src.n != 1001 {
		t.Errorf("read %d bytes for a limit of 1000, want 1001", src.n)
	}
}

func TestPrintPrompt(t *testing.T) {
	tests := []struct {
		name    string
		words   string
		stdin   string
		tty     bool
		max     int64
		want    string
		wantErr string
	}{
		{name: "words, stdin a terminal", words: "hi", tty: true, want: "hi"},
		{name: "words, empty pipe", words: "hi", want: "hi"},
		{name: "words and piped text", words: "why?", stdin: "boom\n", want: "```\nboom\n```\n\nwhy?"},
		{name: "dash reads the prompt", words: "-", stdin: "  the prompt\n", want: "the prompt"},
		{name: "no words reads the prompt", stdin: "the prompt", want: "the prompt"},
		{name: "empty prompt on stdin", words: "-", wantErr: "the prompt on stdin is empty"},
		{name: "no prompt at a terminal", tty: true, wantErr: "print mode needs a prompt"},
		{name: "limit applies to -p -", words: "-", stdin: "0123456789", max: 5, wantErr: "stdin holds more than 5 bytes"},
		{name: "limit applies to joined input", words: "x", stdin: "0123456789", max: 5, wantErr: "stdin holds more than 5 bytes"},
		{name: "raised limit", words: "x", stdin: "0123456789", max: 10, want: "```\n0123456789\n```\n\nx"},
		{name: "binary refused with -p -", words: "-", stdin: "\x00", wantErr: "stdin looks binary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sys := IO{Stdin: strings.NewReader(tc.stdin), StdinTTY: tc.tty}
			got, err := printPrompt(tc.words, Options{MaxInputBytes: tc.max}, sys)
			if tc.wantErr != "" {
				var ue *UsageError
				if !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, tc.wantErr) {
					t.Fatalf("err = %v, want a usage error starting %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestNeedsTerminal(t *testing.T) {
	tests := []struct {
		name        string
		interactive bool
		stdoutTTY   bool
		refused     bool
	}{
		{"interactive on a terminal", true, true, false},
		{"interactive, stdout redirected", true, false, true},
		{"print mode, stdout redirected", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := needsTerminal(tc.interactive, IO{StdinTTY: true, StdoutTTY: tc.stdoutTTY})
			var ue *UsageError
			if refused := errors.As(err, &ue); refused != tc.refused {
				t.Fatalf("err = %v, want refused %v", err, tc.refused)
			}
		})
	}
	// Through Main: the refusal is exit 2 with the reason on stderr,
	// before any configuration is read or session opened.
	var out, errb bytes.Buffer
	home := t.TempDir()
	env := map[string]string{"HOME": home, "WISP_HOME": home + "/.wisp", "WISP_PROVIDER": "fake"}
	sys := IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] },
		StdinTTY: true, StdoutTTY: false, StderrTTY: true, Workdir: t.TempDir()}
	if code := Main(t.Context(), nil, sys); code != ExitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitUsage, errb.String())
	}
	if !strings.Contains(errb.String(), "interactive mode needs a terminal on stdout") || out.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

// FuzzJoinPiped: whatever the piped text holds, its fence cannot be
// closed from inside it, and the prompt comes last, unchanged.
func FuzzJoinPiped(f *testing.F) {
	f.Add("log\n", "why?")
	f.Add("```go\nx\n```", "explain")
	f.Add("``````", "")
	f.Fuzz(func(t *testing.T, piped, prompt string) {
		got := joinPiped(piped, prompt)
		if !strings.HasSuffix(got, prompt) {
			t.Fatalf("the prompt is not last: %q", got)
		}
		if strings.TrimSpace(piped) == "" {
			if got != prompt {
				t.Fatalf("blank input changed the prompt: %q", got)
			}
			return
		}
		fence, _, _ := strings.Cut(got, "\n")
		if len(fence) < 3 || strings.Trim(fence, "`") != "" {
			t.Fatalf("bad fence %q", fence)
		}
		if strings.Contains(piped, fence) {
			t.Fatalf("the fence %q occurs in the text", fence)
		}
	})
}

func TestReadInputDropsTheByteOrderMark(t *testing.T) {
	if got, err := readInput(strings.NewReader("\ufeffhello"), 100); err != nil || string(got) != "hello" {
		t.Fatalf("got %q, %v; want the text without its byte order mark", got, err)
	}
}
