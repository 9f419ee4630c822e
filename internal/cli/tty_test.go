package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// TestResumeHintOnLeaving runs the real binary on a pseudo-terminal and
// leaves the conversation each way there is; wisp then names the command
// that resumes the session, on stderr (the terminal), only when the
// session is kept and holds messages.
func TestResumeHintOnLeaving(t *testing.T) {
	bin := wispBinary(t)
	tests := []struct {
		name   string
		args   []string
		say    bool // send a prompt first
		leave  func(master *os.File, p *os.Process)
		code   int
		noHint bool
	}{
		{name: "/exit", say: true, leave: typeLine("/exit"), code: 0},
		{name: "Ctrl-D", say: true, leave: typeLine("\x04"), code: 0},
		{name: "Ctrl-C twice", say: true, leave: signalTwice(syscall.SIGINT), code: 130},
		{name: "SIGTERM", say: true, leave: signalOnce(syscall.SIGTERM), code: 143},
		{name: "SIGHUP", say: true, leave: signalOnce(syscall.SIGHUP), code: 129},
		{name: "nothing said", leave: typeLine("/exit"), code: 0, noHint: true},
		{name: "no transcript", args: []string{"--no-session"}, say: true, leave: typeLine("/exit"), code: 0, noHint: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newSignalWorld(t, bin, []fake.Turn{{Text: "Hello back."}})
			w.env = append(w.env, "WISP_TRUST=0")
			master, tty := openPTY(t)
			cmd := w.command(t, tc.args...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			var screen syncBuffer
			copied := make(chan struct{})
			go func() {
				_, _ = io.Copy(&screen, master)
				close(copied)
			}()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitScreen(t, &screen, "› ", 1)
			if tc.say {
				io.WriteString(master, "hello\n")
				waitScreen(t, &screen, "› ", 2)
			}
			tc.leave(master, cmd.Process)
			code := exitOf(t, exited, &screen)
			master.Close()
			<-copied
			if code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
			hint := "wisp: to resume this session: wisp -r "
			if tc.noHint {
				if strings.Contains(screen.String(), hint) {
					t.Errorf("a resume hint with nothing to resume:\n%s", screen.String())
				}
				return
			}
			files, _ := filepath.Glob(filepath.Join(w.home, ".wisp", "sessions", "*", "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("want one transcript, found %q", files)
			}
			id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")
			id = id[strings.IndexByte(id, '_')+1:]
			if !strings.Contains(screen.String(), hint+id+"\r\n") {
				t.Errorf("no %q on leaving:\n%s", hint+id, screen.String())
			}
		})
	}
}

func typeLine(s string) func(*os.File, *os.Process) {
	return func(master *os.File, _ *os.Process) {
		if s != "\x04" {
			s += "\n"
		}
		io.WriteString(master, s)
	}
}

// signalOnce ends wisp as a closed terminal or a kill does.
func signalOnce(sig syscall.Signal) func(*os.File, *os.Process) {
	return func(_ *os.File, p *os.Process) { _ = p.Signal(sig) }
}

// signalTwice sends sig, and again a moment later: one Ctrl-C at the
// prompt only warns, the second quits.
func signalTwice(sig syscall.Signal) func(*os.File, *os.Process) {
	return func(_ *os.File, p *os.Process) {
		_ = p.Signal(sig)
		time.Sleep(100 * time.Millisecond)
		_ = p.Signal(sig)
	}
}

// waitScreen waits until s appears n times on the screen.
func waitScreen(t *testing.T, screen *syncBuffer, s string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(screen.String(), s) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%q did not appear %d times:\n%s", s, n, screen.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func exitOf(t *testing.T, exited <-chan error, screen *syncBuffer) int {
	t.Helper()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("wisp did not exit:\n%s", screen.String())
		return -1
	}
}
