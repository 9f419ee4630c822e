package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/sandbox"
)

// quick keeps kill escalation short so the tests stay fast.
func quick(dir string) Options {
	return Options{Grace: 200 * time.Millisecond, Drain: 200 * time.Millisecond, Dir: dir}
}

// sh is the plain shell the sandbox helper would run, unconfined: proc
// only runs what it is handed.
func sh(line, dir string) *exec.Cmd { return sandbox.Command(sandbox.Config{}, "", line, dir) }

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		timeout time.Duration
		state   State
		exit    int
		signal  string
		stdout  string
		stderr  string
	}{
		{name: "success", line: "echo hello", state: Exited, exit: 0, stdout: "hello\n"},
		{name: "exit code", line: "exit 3", state: Exited, exit: 3},
		{name: "separate streams", line: "echo out; echo err >&2; echo out2", state: Exited, stdout: "out\nout2\n", stderr: "err\n"},
		{name: "killed by signal", line: "kill -KILL $$", state: Exited, exit: -1, signal: "SIGKILL"},
		{name: "stdin is /dev/null", line: "cat; echo done", timeout: 10 * time.Second, state: Exited, stdout: "done\n"},
		{name: "crlf", line: `printf 'a\r\nb\r\n'`, state: Exited, stdout: "a\r\nb\r\n"},
		{name: "unicode", line: `printf 'héllo ✓ 日本 🙂\n'`, state: Exited, stdout: "héllo ✓ 日本 🙂\n"},
		{name: "binary", line: `printf '\000\001\377\376x'`, state: Exited, stdout: "\x00\x01\xff\xfex"},
		{name: "no output", line: "true", state: Exited},
		{name: "timeout", line: "echo before; sleep 100", timeout: 300 * time.Millisecond, state: TimedOut, exit: -1, signal: "SIGTERM", stdout: "before\n"},
		{name: "cwd", line: "basename \"$PWD\"", state: Exited, stdout: "work\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "work")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			opts := quick(t.TempDir())
			opts.Timeout = tc.timeout
			o, err := Run(context.Background(), sh(tc.line, dir), opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if o.State != tc.state || o.ExitCode != tc.exit || o.Signal != tc.signal {
				t.Errorf("state %s exit %d signal %q, want %s %d %q", o.State, o.ExitCode, o.Signal, tc.state, tc.exit, tc.signal)
			}
			if o.Stdout.Text != tc.stdout || o.Stderr.Text != tc.stderr {
				t.Errorf("stdout %q stderr %q, want %q %q", o.Stdout.Text, o.Stderr.Text, tc.stdout, tc.stderr)
			}
			if o.Stdout.Truncated || o.Stderr.Truncated {
				t.Errorf("truncated without reason: %+v", o)
			}
			if o.TimedOut() != (tc.state == TimedOut) {
				t.Errorf("TimedOut() = %v", o.TimedOut())
			}
		})
	}
}

func TestRunStartFailure(t *testing.T) {
	cmd := exec.Command(filepath.Join(t.TempDir(), "missing"))
	if _, err := Run(context.Background(), cmd, Options{}); err == nil {
		t.Fatal("Run of a missing program: want error")
	}
}

func TestRunContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	done := make(chan Outcome)
	go func() {
		o, err := Run(ctx, sh("echo x > ready; sleep 100", dir), quick(dir))
		if err != nil {
			t.Error(err)
		}
		done <- o
	}()
	waitFile(t, ready)
	cancel()
	o := <-done
	if o.State != Killed || o.Signal != "SIGTERM" {
		t.Fatalf("after cancel: state %s signal %q", o.State, o.Signal)
	}
	if _, err := Run(ctx, sh("true", dir), Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a done context: err %v", err)
	}
}

// TestGroupEnds checks that nothing of the command's group outlives it and
// that a background child never keeps Run waiting.
func TestGroupEnds(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		timeout time.Duration
		setsid  bool
		state   State
	}{
		{name: "timeout kills background child", line: "sleep 100 & echo $! > pid; wait", timeout: 200 * time.Millisecond, state: TimedOut},
		{name: "sigterm ignored escalates to sigkill", line: "trap '' TERM; sleep 100 & echo $! > pid; wait", timeout: 200 * time.Millisecond, state: TimedOut},
		{name: "clean exit ends background child", line: "sleep 100 & echo $! > pid; echo done", state: Exited},
		{name: "background child with closed output", line: "sleep 100 >/dev/null 2>&1 & echo $! > pid", state: Exited},
		{name: "command that is a session leader", line: "sleep 100 & echo $! > pid; wait", timeout: 200 * time.Millisecond, setsid: true, state: TimedOut},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := quick(dir)
			opts.Timeout = tc.timeout
			cmd := sh(tc.line, dir)
			if tc.setsid {
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			}
			o, err := Run(context.Background(), cmd, opts)
			if err != nil {
				t.Fatal(err)
			}
			if o.State != tc.state {
				t.Errorf("state %s, want %s", o.State, tc.state)
			}
			pid := readPID(t, filepath.Join(dir, "pid"))
			if alive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("background child %d survived", pid)
			}
		})
	}
}

// A process that leaves the group keeps the pipe open; Run must still
// return once the drain time is over.
func TestEscapedChildDoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	o, err := Run(context.Background(), sh("setsid sleep 100 & echo $! > pid; echo done", dir), quick(dir))
	pid := readPID(t, filepath.Join(dir, "pid"))
	syscall.Kill(pid, syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	if o.State != Exited || o.Stdout.Text != "done\n" {
		t.Fatalf("got %+v", o)
	}
}

func TestBound(t *testing.T) {
	seq := func(from, to int) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
		return b.String()
	}
	tests := []struct {
		name  string
		line  string
		bound Bound
		kept  string
		full  string
		lines int64
	}{
		{name: "lines", line: "seq 1 10000", bound: Bound{Lines: 100}, kept: seq(9901, 10000), full: seq(1, 10000), lines: 10000},
		{name: "bytes cut at a line", line: "seq 1 1000", bound: Bound{Bytes: 20}, kept: seq(997, 1000), full: seq(1, 1000), lines: 1000},
		{name: "bytes within a long line", line: `head -c 5000 /dev/zero | tr '\0' a`, bound: Bound{Bytes: 100}, kept: strings.Repeat("a", 100), full: strings.Repeat("a", 5000), lines: 1},
		{name: "default bound", line: "seq 1 30000", kept: seq(28001, 30000), full: seq(1, 30000), lines: 30000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := quick(t.TempDir())
			opts.Bound = tc.bound
			o, err := Run(context.Background(), sh(tc.line, t.TempDir()), opts)
			if err != nil {
				t.Fatal(err)
			}
			s := o.Stdout
			if !s.Truncated || s.Text != tc.kept {
				t.Fatalf("truncated %v, kept %q, want %q", s.Truncated, short(s.Text), short(tc.kept))
			}
			if s.TotalLines != tc.lines || s.TotalBytes != int64(len(tc.full)) {
				t.Errorf("totals %d lines %d bytes, want %d %d", s.TotalLines, s.TotalBytes, tc.lines, len(tc.full))
			}
			if s.Lines != countLines([]byte(tc.kept)) {
				t.Errorf("Lines %d", s.Lines)
			}
			if filepath.Dir(s.File) != opts.Dir {
				t.Fatalf("file %q not in %q (err %q)", s.File, opts.Dir, s.FileErr)
			}
			full, err := os.ReadFile(s.File)
			if err != nil {
				t.Fatal(err)
			}
			if string(full) != tc.full {
				t.Errorf("full file holds %d bytes, want %d", len(full), len(tc.full))
			}
		})
	}
}

func TestFileLimit(t *testing.T) {
	opts := quick(t.TempDir())
	opts.Bound = Bound{Bytes: 10}
	opts.FileLimit = 1000
	o, err := Run(context.Background(), sh("seq 1 10000", t.TempDir()), opts)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(o.Stdout.File)
	if err != nil {
		t.Fatal(err)
	}
	if !o.Stdout.FileCapped || fi.Size() != 1000 {
		t.Fatalf("capped %v size %d", o.Stdout.FileCapped, fi.Size())
	}
}

func TestManagedLifecycle(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(sh("echo first; echo warn >&2; while [ ! -e go ]; do sleep 0.01; done; echo second; exit 7", dir), quick(dir))
	if err != nil {
		t.Fatal(err)
	}
	var got, gotErr string
	for !strings.Contains(got, "first") || gotErr == "" {
		o := p.Poll(20 * time.Millisecond)
		if o.State != Running {
			t.Fatalf("state %s before go", o.State)
		}
		got += o.Stdout.Text
		gotErr += o.Stderr.Text
	}
	if got != "first\n" || gotErr != "warn\n" {
		t.Fatalf("first polls: %q %q", got, gotErr)
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	o := p.Poll(10 * time.Second)
	if o.State != Exited || o.ExitCode != 7 || o.Stdout.Text != "second\n" || o.Stderr.Text != "" {
		t.Fatalf("final poll: %+v", o)
	}
	o = p.Poll(0)
	if o.State != Exited || o.Stdout.Text != "" || o.Stdout.TotalBytes != 0 {
		t.Fatalf("poll after end: %+v", o)
	}
	p.Cancel() // no effect on an ended process
	if o := p.Poll(0); o.State != Exited {
		t.Fatalf("cancel changed an ended process: %s", o.State)
	}
}

func TestManagedCancelAndLifetime(t *testing.T) {
	tests := []struct {
		name     string
		lifetime time.Duration
		cancel   bool
		state    State
	}{
		{name: "cancel", cancel: true, state: Killed},
		{name: "lifetime", lifetime: 200 * time.Millisecond, state: TimedOut},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := quick(dir)
			opts.Timeout = tc.lifetime
			p, err := Start(sh("sleep 100 & echo $! > pid; wait", dir), opts)
			if err != nil {
				t.Fatal(err)
			}
			waitFile(t, filepath.Join(dir, "pid"))
			if tc.cancel {
				p.Cancel()
			}
			o := p.Poll(10 * time.Second)
			if o.State != tc.state || o.Signal != "SIGTERM" {
				t.Fatalf("state %s signal %q, want %s SIGTERM", o.State, o.Signal, tc.state)
			}
			if pid := readPID(t, filepath.Join(dir, "pid")); alive(pid) {
				t.Fatalf("child %d survived", pid)
			}
		})
	}
}

// An increment larger than the bound keeps its tail and points at the file.
func TestManagedIncrementBound(t *testing.T) {
	dir := t.TempDir()
	opts := quick(dir)
	opts.Bound = Bound{Lines: 10}
	p, err := Start(sh("seq 1 5; while [ ! -e go ]; do sleep 0.01; done; seq 6 100", dir), opts)
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for first != "1\n2\n3\n4\n5\n" {
		o := p.Poll(10 * time.Millisecond)
		if o.Stdout.Truncated {
			t.Fatalf("first increment truncated: %+v", o.Stdout)
		}
		first += o.Stdout.Text
	}
	os.WriteFile(filepath.Join(dir, "go"), nil, 0o644)
	o := p.Poll(10 * time.Second)
	if !o.Stdout.Truncated || o.Stdout.Lines != 10 || !strings.HasPrefix(o.Stdout.Text, "91\n") || o.Stdout.TotalLines != 95 || o.Stdout.File == "" {
		t.Fatalf("second increment: %+v", o.Stdout)
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	// kill(0) or kill(-1) would hit the test itself or every process.
	if pid <= 1 {
		t.Fatalf("pid file holds %d", pid)
	}
	return pid
}

// alive tells whether pid still runs a moment after it was signalled
// (delivery is asynchronous); a zombie waiting for a reaper counts as dead.
func alive(pid int) bool {
	for i := 0; i < 500; i++ {
		if !running(pid) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

func short(s string) string {
	if len(s) > 60 {
		return s[:30] + "…" + s[len(s)-30:]
	}
	return s
}

func BenchmarkRunTrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Run(context.Background(), exec.Command("true"), Options{Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecTrue is the baseline for BenchmarkRunTrue.
func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
