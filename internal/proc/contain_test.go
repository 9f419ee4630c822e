package proc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// parentEnv makes the test binary act as a stand-in for wisp: it starts
// the command its value describes through the sandbox, says "started"
// and waits to be killed.
const parentEnv = "WISP_PROC_TEST_PARENT"

// runEnv makes the test binary run the command its value describes
// through the sandbox to its end and print the outcome and the sandbox's
// support as JSON.
const runEnv = "WISP_PROC_TEST_RUN"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	if spec := os.Getenv(parentEnv); spec != "" {
		os.Exit(standIn(spec))
	}
	if spec := os.Getenv(runEnv); spec != "" {
		os.Exit(runAndReport(spec))
	}
	os.Exit(m.Run())
}

// parentSpec is what the stand-in runs.
type parentSpec struct {
	Cfg     sandbox.Config
	Line    string
	Timeout time.Duration
}

// runReport is what runAndReport prints.
type runReport struct {
	Support sandbox.Support
	State   State
	Exit    int
	Stdout  string
	Stderr  string
}

func runAndReport(spec string) int {
	var s parentSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o, err := Run(context.Background(), sandbox.Command(s.Cfg, self, s.Line, s.Cfg.Workdir), Options{Timeout: s.Timeout, Grace: 200 * time.Millisecond, Drain: 200 * time.Millisecond, Dir: os.TempDir()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	enc, _ := json.Marshal(runReport{Support: sandbox.Probe(), State: o.State, Exit: o.ExitCode, Stdout: o.Stdout.Text, Stderr: o.Stderr.Text})
	fmt.Println(string(enc))
	return 0
}

func standIn(spec string) int {
	var s parentSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if _, err := Start(sandbox.Command(s.Cfg, self, s.Line, s.Cfg.Workdir), Options{Dir: os.TempDir()}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println("started")
	time.Sleep(time.Hour)
	return 0
}

// box is a sandbox configuration for one containment test, in temp dirs.
func box(t *testing.T) sandbox.Config {
	t.Helper()
	_, ok := sandbox.Available()
	needFeature(t, ok, "Landlock is unavailable here")
	base := t.TempDir()
	work, home, tmp := filepath.Join(base, "work"), filepath.Join(base, "home"), filepath.Join(base, "tmp")
	for _, d := range []string{work, home, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("TMPDIR", tmp)
	return sandbox.Config{Enabled: true, Workdir: work, WispHome: filepath.Join(base, "wisp"), TempDir: tmp}
}

func needFeature(t *testing.T, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI: %s", why)
	}
	t.Skip(why)
}

// token is a sleep duration no other process uses, so that the processes
// a line started can be found by their command line alone, in whatever
// PID namespace or session they ended up.
func token() string {
	return fmt.Sprintf("4%d.%06d", time.Now().Unix()%1000, time.Now().Nanosecond()/1000)
}

// holders lists the live processes whose command line holds tok.
func holders(tok string) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), tok) && running(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// noneWithin waits up to d for every process holding tok to end, kills
// the survivors and fails the test if there were any.
func noneWithin(t *testing.T, tok string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		left := holders(tok)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("%d processes outlived their call: %v", len(left), left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitHolders waits until n processes hold tok.
func waitHolders(t *testing.T, tok string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(holders(tok)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the command's processes (%s) never appeared", tok)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// escapes are lines that leave processes behind every way a shell can.
var escapes = []struct{ name, line string }{
	{"setsid", "setsid sleep TOK &"},
	{"set -m job", "set -m; sleep TOK &"},
	{"double fork", "( (sleep TOK &) & )"},
	{"nohup", "nohup sleep TOK >/dev/null 2>&1 &"},
	{"daemon", "( setsid bash -c 'sleep TOK & disown' </dev/null >/dev/null 2>&1 & ); sleep 0.2"},
	{"session leader ignoring TERM", "setsid bash -c 'trap \"\" TERM HUP; sleep TOK' & sleep 0.2"},
}

// TestContainment runs each escape to its end, one-shot, under both
// profiles: nothing it started may outlive the call.
func TestContainment(t *testing.T) {
	cfg := box(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The control: without the sandbox's containment, setsid escapes
	// the process group, so the count below can see a survivor.
	t.Run("unconfined setsid escapes", func(t *testing.T) {
		tok := token()
		if _, err := Run(context.Background(), sh("setsid sleep "+tok+" & sleep 0.2", cfg.Workdir), quick(t.TempDir())); err != nil {
			t.Fatal(err)
		}
		left := holders(tok)
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(left) == 0 {
			t.Error("an unconfined setsid child did not survive: the count proves nothing")
		}
	})
	for _, autoRun := range []bool{false, true} {
		if autoRun && !sandbox.Probe().AutoRun {
			needFeature(t, false, "the auto-run sandbox cannot be built here: "+sandbox.Probe().AutoRunWhy)
		}
		for _, tc := range escapes {
			t.Run(fmt.Sprintf("%s auto-run=%v", tc.name, autoRun), func(t *testing.T) {
				c := cfg
				c.AutoRun = autoRun
				tok := token()
				line := strings.ReplaceAll(tc.line, "TOK", tok)
				o, err := Run(context.Background(), sandbox.Command(c, self, line, c.Workdir), quick(t.TempDir()))
				if err != nil {
					t.Fatal(err)
				}
				if o.State != Exited || o.ExitCode != 0 {
					t.Errorf("state %s exit %d signal %q: %s", o.State, o.ExitCode, o.Signal, o.Stderr.Text)
				}
				noneWithin(t, tok, time.Second)
			})
		}
	}
}

// TestContainmentEnds ends a command early every way there is: its
// timeout, the caller's cancellation, a managed process's cancel and
// lifetime, and wisp's own death by SIGKILL.
func TestContainmentEnds(t *testing.T) {
	cfg := box(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const escape = "setsid sleep TOK & set -m; sleep TOK & ( (sleep TOK &) & ); sleep TOK"
	const count = 4
	cmd := func(tok string) *exec.Cmd {
		return sandbox.Command(cfg, self, strings.ReplaceAll(escape, "TOK", tok), cfg.Workdir)
	}

	t.Run("timeout", func(t *testing.T) {
		tok := token()
		opts := quick(t.TempDir())
		opts.Timeout = 500 * time.Millisecond
		o, err := Run(context.Background(), cmd(tok), opts)
		if err != nil {
			t.Fatal(err)
		}
		if o.State != TimedOut || o.Signal != "SIGTERM" {
			t.Errorf("state %s signal %q, want timed_out by SIGTERM", o.State, o.Signal)
		}
		noneWithin(t, tok, time.Second)
	})
	t.Run("cancellation", func(t *testing.T) {
		tok := token()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan Outcome, 1)
		go func() {
			o, _ := Run(ctx, cmd(tok), quick(t.TempDir()))
			done <- o
		}()
		waitHolders(t, tok, count)
		cancel()
		if o := <-done; o.State != Killed {
			t.Errorf("state %s, want killed", o.State)
		}
		noneWithin(t, tok, time.Second)
	})
	t.Run("managed cancel", func(t *testing.T) {
		tok := token()
		p, err := Start(cmd(tok), quick(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		waitHolders(t, tok, count)
		p.Cancel()
		noneWithin(t, tok, time.Second)
	})
	t.Run("managed lifetime", func(t *testing.T) {
		tok := token()
		opts := quick(t.TempDir())
		opts.Timeout = 700 * time.Millisecond
		p, err := Start(cmd(tok), opts)
		if err != nil {
			t.Fatal(err)
		}
		<-p.Done()
		noneWithin(t, tok, time.Second)
	})
	t.Run("SIGKILL of wisp", func(t *testing.T) {
		tok := token()
		spec, _ := json.Marshal(parentSpec{Cfg: cfg, Line: strings.ReplaceAll(escape, "TOK", tok)})
		parent := exec.Command(self)
		parent.Env = append(os.Environ(), parentEnv+"="+string(spec))
		out, err := parent.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		parent.Stderr = os.Stderr
		if err := parent.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(out).ReadString('\n'); line != "started\n" {
			_ = parent.Process.Kill()
			t.Fatalf("the stand-in for wisp said %q", line)
		}
		waitHolders(t, tok, count)
		if err := parent.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = parent.Wait()
		noneWithin(t, tok, time.Second)
	})
}

// TestForkBomb runs a fork bomb with a small process limit: the number of
// its processes never passes the limit, and none survives the timeout.
func TestForkBomb(t *testing.T) {
	cfg := box(t)
	s := sandbox.Probe()
	needFeature(t, s.PidsMax > 0, "processes cannot be limited here (containment "+s.Containment+")")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg.PidsMax = 48
	tok := token()
	// The bomb's processes all carry the token in their command line.
	line := "b() { b | b & }; b; sleep " + tok
	opts := quick(t.TempDir())
	opts.Timeout = 2 * time.Second
	done := make(chan Outcome, 1)
	go func() {
		o, _ := Run(context.Background(), sandbox.Command(cfg, self, line, cfg.Workdir), opts)
		done <- o
	}()
	peak := 0
	for running := true; running; {
		select {
		case o := <-done:
			if o.State != TimedOut {
				t.Errorf("state %s, want timed_out", o.State)
			}
			running = false
		default:
			peak = max(peak, len(holders(tok)))
			time.Sleep(20 * time.Millisecond)
		}
	}
	if peak > cfg.PidsMax {
		t.Errorf("the bomb reached %d processes, over the limit of %d", peak, cfg.PidsMax)
	}
	if peak < 5 {
		t.Errorf("the bomb reached only %d processes: it did not run", peak)
	}
	noneWithin(t, tok, time.Second)
}

// TestSandboxedOutcome checks that the sandbox helper, a supervisor that
// stays between proc and the shell, reports what the shell itself would:
// exit codes, deaths by signal, separate streams, the timeout.
func TestSandboxedOutcome(t *testing.T) {
	cfg := box(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		line    string
		autoRun bool
		timeout time.Duration
		state   State
		exit    int
		signal  string
		stdout  string
		stderr  string
	}{
		{name: "success", line: "echo hello", state: Exited, stdout: "hello\n"},
		{name: "exit code", line: "echo out; echo err >&2; exit 3", state: Exited, exit: 3, stdout: "out\n", stderr: "err\n"},
		{name: "exit code auto-run", line: "exit 7", autoRun: true, state: Exited, exit: 7},
		{name: "killed by SIGKILL", line: "kill -KILL $$", state: Exited, exit: -1, signal: "SIGKILL"},
		{name: "killed by SIGTERM", line: "kill -TERM $$", state: Exited, exit: -1, signal: "SIGTERM"},
		{name: "killed by SIGABRT", line: "kill -ABRT $$", state: Exited, exit: -1, signal: "SIGABRT"},
		{name: "killed by SIGHUP", line: "kill -HUP $$", state: Exited, exit: -1, signal: "SIGHUP"},
		{name: "killed by SIGSEGV", line: "kill -SEGV $$", state: Exited, exit: -1, signal: "SIGSEGV"},
		{name: "stdin is /dev/null", line: "cat; echo done", state: Exited, stdout: "done\n"},
		{name: "timeout", line: "echo before; sleep 100", timeout: 2 * time.Second, state: TimedOut, exit: -1, signal: "SIGTERM", stdout: "before\n"},
		{name: "timeout with TERM trapped", line: "trap '' TERM; echo before; sleep 100", timeout: 2 * time.Second, state: TimedOut, exit: -1, signal: "SIGKILL", stdout: "before\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.autoRun && !sandbox.Probe().AutoRun {
				needFeature(t, false, "the auto-run sandbox cannot be built here: "+sandbox.Probe().AutoRunWhy)
			}
			c := cfg
			c.AutoRun = tc.autoRun
			opts := quick(t.TempDir())
			opts.Timeout = tc.timeout
			o, err := Run(context.Background(), sandbox.Command(c, self, tc.line, c.Workdir), opts)
			if err != nil {
				t.Fatal(err)
			}
			if o.State != tc.state || o.ExitCode != tc.exit || o.Signal != tc.signal {
				t.Errorf("state %s exit %d signal %q, want %s %d %q (stderr %q)", o.State, o.ExitCode, o.Signal, tc.state, tc.exit, tc.signal, o.Stderr.Text)
			}
			if o.Stdout.Text != tc.stdout || o.Stderr.Text != tc.stderr {
				t.Errorf("stdout %q stderr %q, want %q %q", o.Stdout.Text, o.Stderr.Text, tc.stdout, tc.stderr)
			}
		})
	}
}

// TestUnprivileged runs the sandbox as a normal user does: wisp without
// privileges, so that namespaces need a user namespace of their own and
// processes are bounded by RLIMIT_NPROC in it. The test must run as root
// to become nobody.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("becoming another user needs root")
	}
	_, ok := sandbox.Available()
	needFeature(t, ok, "Landlock is unavailable here")
	const nobody = 65534
	// Everything nobody touches lies in folders it may enter.
	base, err := os.MkdirTemp("", "wisp-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	work, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	bin := filepath.Join(base, "proc.test")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{work, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("wisp-secret-unpriv"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{base, work, home, filepath.Join(home, ".ssh")} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := sandbox.Config{Enabled: true, Workdir: work, WispHome: filepath.Join(home, ".wisp"), TempDir: base}
	asNobody := func(t *testing.T, spec parentSpec) (runReport, *exec.Cmd) {
		t.Helper()
		enc, _ := json.Marshal(spec)
		cmd := exec.Command(bin)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), runEnv+"="+string(enc), "HOME="+home, "TMPDIR="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.Output()
		var rep runReport
		if jerr := json.Unmarshal(out, &rep); err != nil || jerr != nil {
			t.Fatalf("the run as nobody failed: %v\n%s", err, out)
		}
		return rep, cmd
	}

	t.Run("contained in a user namespace", func(t *testing.T) {
		tok := token()
		line := strings.ReplaceAll("setsid sleep TOK & ( (sleep TOK &) & ); set -m; sleep TOK & id -u; sleep 0.2", "TOK", tok)
		rep, _ := asNobody(t, parentSpec{Cfg: cfg, Line: line})
		needFeature(t, rep.Support.Containment == sandbox.ContainPidNamespace,
			"no unprivileged user namespace here: containment "+rep.Support.Containment+" ("+rep.Support.AutoRunWhy+")")
		if rep.State != Exited || rep.Exit != 0 || rep.Stdout != "65534\n" {
			t.Errorf("state %s exit %d stdout %q stderr %q; want uid 65534 inside", rep.State, rep.Exit, rep.Stdout, rep.Stderr)
		}
		if rep.Support.PidsMax != sandbox.DefaultPidsMax {
			t.Errorf("PidsMax = %d, want %d from RLIMIT_NPROC", rep.Support.PidsMax, sandbox.DefaultPidsMax)
		}
		noneWithin(t, tok, time.Second)
	})
	t.Run("auto-run hides secrets", func(t *testing.T) {
		c := cfg
		c.AutoRun = true
		rep, _ := asNobody(t, parentSpec{Cfg: c, Line: "cat ~/.ssh/id_rsa; cat /proc/*/environ"})
		needFeature(t, rep.Support.AutoRun, "no auto-run sandbox for a normal user here: "+rep.Support.AutoRunWhy)
		if strings.Contains(rep.Stdout, "wisp-secret-unpriv") || strings.Contains(rep.Stdout, runEnv) {
			t.Errorf("auto-run as nobody read a secret:\n%s", rep.Stdout)
		}
	})
	t.Run("auto-run refused without namespaces", func(t *testing.T) {
		// Started without a user namespace, an unprivileged helper
		// cannot make namespaces: it must refuse, not run the line with
		// less protection.
		c := cfg
		c.AutoRun = true
		enc, _ := json.Marshal(c)
		marker := filepath.Join(work, "ran")
		cmd := exec.Command(bin, sandbox.HelperArg, string(enc), "touch "+marker)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != sandbox.ExitSetup {
			t.Errorf("helper exit = %v, want status %d: %s", err, sandbox.ExitSetup, out)
		}
		if !strings.Contains(string(out), "wisp sandbox: the auto-run sandbox cannot be built") {
			t.Errorf("helper said %q", out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Error("the auto-run line ran without its sandbox")
		}
		// The control: the same helper runs an approved line, contained
		// by process group.
		c.AutoRun = false
		enc, _ = json.Marshal(c)
		cmd = exec.Command(bin, sandbox.HelperArg, string(enc), "touch "+marker)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("approved line: %v: %s", err, out)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Error("control: the approved line did not run")
		}
	})
	t.Run("processes bounded", func(t *testing.T) {
		c := cfg
		c.PidsMax = 32
		tok := token()
		line := "for i in $(seq 80); do sleep " + tok + " & done 2>/dev/null; wait"
		done := make(chan runReport, 1)
		go func() {
			rep, _ := asNobody(t, parentSpec{Cfg: c, Line: line, Timeout: 2 * time.Second})
			done <- rep
		}()
		peak := 0
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
				peak = max(peak, len(holders(tok)))
				time.Sleep(20 * time.Millisecond)
			}
		}
		if peak > c.PidsMax || peak < 5 {
			t.Errorf("peak of %d processes, want between 5 and the limit of %d", peak, c.PidsMax)
		}
		noneWithin(t, tok, time.Second)
	})
}
