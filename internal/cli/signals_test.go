package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/testbin"
)

// These tests build and run the real wisp binary against the fake
// provider, send it a signal during a long tool call, and check that it
// ends cleanly: the exit code says which signal, no command it started is
// left running, and the transcript ends with a closing record naming the
// signal. (A built binary, not this test binary re-executed: wisp starts
// copies of itself for the sandbox, which must be wisp.)

// wisp is the package's build of cmd/wisp.
var wisp testbin.Wisp

// wispBinary builds cmd/wisp once for the package's tests.
func wispBinary(t *testing.T) string { return wisp.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	wisp.Remove()
	os.Exit(code)
}

// signalWorld is one wisp run's private home, workspace and fake provider.
type signalWorld struct {
	bin        string // the wisp binary
	home, work string
	env        []string
	marker     string // in the command lines of every process the run starts
}

func newSignalWorld(t *testing.T, bin string, turns []fake.Turn) *signalWorld {
	t.Helper()
	base := t.TempDir()
	w := &signalWorld{bin: bin, home: filepath.Join(base, "home"), work: filepath.Join(base, "work"),
		marker: fmt.Sprintf("%d.%06d", 30, rand.IntN(1_000_000))}
	for _, d := range []string{w.home, w.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range turns {
		for j := range turns[i].ToolCalls {
			in := strings.ReplaceAll(string(turns[i].ToolCalls[j].Input), "MARK", w.marker)
			turns[i].ToolCalls[j].Input = json.RawMessage(in)
		}
	}
	srv, err := fake.Start(fake.Script{Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	w.env = append(os.Environ(), "HOME="+w.home, "WISP_HOME="+filepath.Join(w.home, ".wisp"),
		"WISP_PROVIDER=anthropic", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL(), "TERM=dumb")
	return w
}

func (w *signalWorld) command(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir = w.work
	cmd.Env = w.env
	return cmd
}

// waitFile waits for a file the tool call creates; out is what wisp
// printed, shown when it does not come.
func (w *signalWorld) waitFile(t *testing.T, name string, exited <-chan error, out fmt.Stringer) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("wisp printed:\n%s", out)
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(filepath.Join(w.work, name)); err == nil {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("wisp ended before %s appeared: %v", name, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s did not appear", name)
}

// survivors lists the processes whose command line carries the marker.
func survivors(marker string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(data, []byte(marker)) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(data), "\x00", " "))
		}
	}
	return out
}

// checkEnd waits for wisp to exit and checks the exit code, the processes
// and the transcript's closing record.
func (w *signalWorld) checkEnd(t *testing.T, exited <-chan error, wantCode int, wantReason string) {
	t.Helper()
	var err error
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("wisp did not exit within 30 s of the signal")
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != wantCode {
		t.Errorf("exit code %d, want %d", code, wantCode)
	}
	// The kernel may take a moment to reap what was killed.
	var left []string
	for range 50 {
		if left = survivors(w.marker); len(left) == 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("processes outlived wisp: %q", left)
	}
	last := lastRecord(t, filepath.Join(w.home, ".wisp", "sessions"))
	if last.Type != "event" || last.Event.Type != "session_end" || last.Event.Reason != wantReason {
		t.Errorf("the transcript ends with %+v, want a session_end event with reason %q", last, wantReason)
	}
}

type transcriptRecord struct {
	Type  string `json:"type"`
	Event *struct {
		Type   string `json:"type"`
		Reason string `json:"reason"`
	} `json:"event"`
}

func lastRecord(t *testing.T, dir string) transcriptRecord {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("want one transcript in %s, found %q", dir, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var r transcriptRecord
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatal(err)
	}
	if r.Event == nil {
		r.Event = &struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		}{}
	}
	return r
}

func TestPrintModeSignals(t *testing.T) {
	bin := wispBinary(t)
	tests := []struct {
		sig    syscall.Signal
		code   int
		reason string
	}{
		{syscall.SIGTERM, 143, "SIGTERM"},
		{syscall.SIGHUP, 129, "SIGHUP"},
		{syscall.SIGINT, 130, "SIGINT"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			w := newSignalWorld(t, bin, []fake.Turn{
				{Text: "Starting.", ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"touch started; sleep MARK"}`)}}},
				{Text: "done"},
			})
			cmd := w.command(t, "-p", "start a long job", "--allow-tool", "bash", "--yes")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			w.waitFile(t, "started", exited, &stderr)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			w.checkEnd(t, exited, tc.code, tc.reason)
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr does not say it was interrupted: %s", stderr.String())
			}
		})
	}
}

func TestInteractiveSignals(t *testing.T) {
	bin := wispBinary(t)
	tests := []struct {
		sig    syscall.Signal
		code   int
		reason string
	}{
		{syscall.SIGTERM, 143, "SIGTERM"},
		{syscall.SIGHUP, 129, "SIGHUP"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			w := newSignalWorld(t, bin, []fake.Turn{
				{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"operation":"start","command":"sleep 1MARK"}`)}}},
				{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"touch started; sleep MARK"}`)}}},
				{Text: "done"},
			})
			_, screen, exited, cmd := w.startOnTerminal(t, "start the jobs")
			w.waitFile(t, "started", exited, screen)
			if len(survivors(w.marker)) < 2 {
				t.Fatalf("the managed process and the command should both run: %q", survivors(w.marker))
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			w.checkEnd(t, exited, tc.code, tc.reason)
		})
	}
}

// startOnTerminal starts wisp with args on a pseudo-terminal of its own
// (it is interactive only on one), answering yes to every question; it
// returns the terminal's master side, what wisp wrote, and how it exited.
func (w *signalWorld) startOnTerminal(t *testing.T, args ...string) (master *os.File, screen *syncBuffer, exited chan error, cmd *exec.Cmd) {
	t.Helper()
	master, tty := openPTY(t)
	cmd = w.command(t, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	screen = &syncBuffer{}
	go answerYes(master, screen)
	exited = make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return master, screen, exited, cmd
}

// answerYes approves every question wisp asks on the terminal.
func answerYes(master *os.File, screen *syncBuffer) {
	r := bufio.NewReader(master)
	var seen bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		seen.Write(buf[:n])
		screen.Write(buf[:n])
		for {
			// The approval question, and the trust question at the start.
			_, after, found := bytes.Cut(seen.Bytes(), []byte("Allow? "))
			if !found {
				_, after, found = bytes.Cut(seen.Bytes(), []byte("? [y/n] "))
			}
			if !found {
				break
			}
			rest := bytes.Clone(after)
			seen.Reset()
			seen.Write(rest)
			io.WriteString(master, "y\n")
		}
		if err != nil {
			return
		}
	}
}

// openPTY opens a pseudo-terminal pair: wisp is interactive only on a
// terminal.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("pseudo-terminal number: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open pseudo-terminal: %v", err)
	}
	return m, s
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSpilledOutputRemoved: a command's full output, spilled to a file in
// the run's scratch folder once it outgrows what is kept in memory, is
// removed when the run ends; a run killed outright leaves its folder to
// the next run, which removes it.
func TestSpilledOutputRemoved(t *testing.T) {
	bin := wispBinary(t)
	w := newSignalWorld(t, bin, []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"seq 1 40000"}`)}}},
		{Text: "done"},
		{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"seq 1 40000; touch started; sleep MARK"}`)}}},
		{Text: "never"},
		{Text: "hello again"},
	})
	tmp := filepath.Join(filepath.Dir(w.work), "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "TMPDIR="+tmp)
	scratch := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, "wisp-run-*"))
		logs, _ := filepath.Glob(filepath.Join(tmp, "*", "wisp-std*"))
		return append(m, logs...)
	}

	out, err := w.command(t, "-p", "count", "--allow-tool", "bash", "--yes", "--no-session").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if left := scratch(); len(left) > 0 {
		t.Errorf("after a normal end, left in TMPDIR: %q", left)
	}

	cmd := w.command(t, "-p", "count and wait", "--allow-tool", "bash", "--yes", "--no-session")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	w.waitFile(t, "started", exited, &stderr)
	if logs, _ := filepath.Glob(filepath.Join(tmp, "wisp-run-*", "wisp-stdout-*")); len(logs) == 0 {
		t.Fatalf("the spilled output is not in a scratch folder under TMPDIR: %q", scratch())
	}
	_ = cmd.Process.Kill()
	<-exited
	for _, p := range survivors(w.marker) {
		pid := 0
		fmt.Sscanf(p, "%d:", &pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(scratch()) == 0 {
		t.Fatal("the killed run's scratch folder is already gone")
	}
	if out, err := w.command(t, "-p", "hi", "--no-session").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if left := scratch(); len(left) > 0 {
		t.Errorf("the next run did not remove the killed run's scratch folder: %q", left)
	}
}
