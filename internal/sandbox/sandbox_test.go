package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listenEnv makes the test binary, started from inside a sandboxed shell,
// try to bind a classic TCP port after the sandbox applies; mptcpEnv makes
// it try to reach the address it holds over Multipath TCP.
// socketEnv makes it create a socket of a kind socketProbe knows.
const (
	listenEnv = "WISP_SANDBOX_TEST_LISTEN"
	mptcpEnv  = "WISP_SANDBOX_TEST_MPTCP"
	socketEnv = "WISP_SANDBOX_TEST_SOCKET"
	// netEnv makes it try one network path netProbe knows.
	netEnv = "WISP_SANDBOX_TEST_NET"
	// holdEnv makes it wait, standing for wisp, until it is killed.
	holdEnv = "WISP_SANDBOX_TEST_HOLD"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		os.Exit(Main(os.Args[2:]))
	}
	if os.Getenv(listenEnv) == "1" {
		os.Exit(listenOnce())
	}
	if addr := os.Getenv(mptcpEnv); addr != "" {
		os.Exit(dialMPTCP(addr))
	}
	if kind := os.Getenv(socketEnv); kind != "" {
		os.Exit(socketProbe(kind))
	}
	if os.Getenv(holdEnv) == "1" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if kind := os.Getenv(netEnv); kind != "" {
		os.Exit(netProbe(kind))
	}
	os.Exit(m.Run())
}

// listenOnce binds 127.0.0.1:0 over classic TCP (Go's listeners default
// to Multipath TCP, which Landlock does not see).
func listenOnce() int {
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln.Close()
	fmt.Println("bound")
	return 0
}

// dialMPTCP tries to reach addr over Multipath TCP twice: through Go's
// dialer, and with a raw socket whose protocol has high bits set that the
// kernel ignores. It exits 0 if either connects.
func dialMPTCP(addr string) int {
	var d net.Dialer
	d.SetMultipathTCP(true)
	code := 1
	if c, err := d.Dial("tcp4", addr); err != nil {
		fmt.Fprintln(os.Stderr, "dialer:", err)
	} else {
		fmt.Println("dialer connected")
		c.Close()
		code = 0
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 1<<32|262)
	if err != nil {
		fmt.Fprintln(os.Stderr, "raw socket:", err)
		return code
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()}); err != nil {
		fmt.Fprintln(os.Stderr, "raw connect:", err)
		return code
	}
	fmt.Println("raw socket connected")
	return 0
}

// world is a fake machine in temp dirs: a workspace, a scratch TMPDIR, a
// HOME, a wisp home inside a parent that the configuration makes
// writable, and an outside folder that no rule covers.
type world struct {
	cfg                                      Config
	ws, tmp, home, parent, wispHome, outside string
}

func newWorld(t *testing.T) world {
	t.Helper()
	if abi, ok := Available(); !ok {
		t.Skipf("Landlock is unavailable here (ABI %d)", abi)
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{
		ws:      filepath.Join(base, "ws"),
		tmp:     filepath.Join(base, "tmp"),
		home:    filepath.Join(base, "home"),
		parent:  filepath.Join(base, "parent"),
		outside: filepath.Join(base, "outside"),
	}
	w.wispHome = filepath.Join(w.parent, "wisp")
	for _, d := range []string{w.ws, w.tmp, w.home, w.wispHome, w.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(w.outside, "keep"), "original")
	writeFile(t, filepath.Join(w.wispHome, "config.json"), "{}")
	t.Setenv("HOME", w.home)
	// Only in the environment, as a user sets it: Command must carry it
	// to the helper, which does not see WISP_ variables.
	t.Setenv("WISP_HOME", w.wispHome)
	t.Setenv("TMPDIR", w.tmp)
	for _, k := range []string{"XDG_CACHE_HOME", "GOMODCACHE", "GOPATH", "GOCACHE", "CARGO_HOME", "npm_config_cache"} {
		t.Setenv(k, "")
	}
	w.cfg = Config{Enabled: true, Workdir: w.ws, WritablePaths: []string{w.parent}}
	return w
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

type result struct {
	stdout, stderr string
	code           int
	pid            int
}

// run runs line through the real helper (this test binary).
func run(t *testing.T, cfg Config, line string) result {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := Command(cfg, self, line, cfg.Workdir)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String(), pid: cmd.Process.Pid}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %q: %v", line, err)
	}
	if r.code == ExitSetup {
		t.Fatalf("run %q: sandbox setup failed: %s", line, r.stderr)
	}
	return r
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// fixtures adds the files the write cases act on.
func (w world) fixtures(t *testing.T) {
	t.Helper()
	writeFile(t, filepath.Join(w.ws, "mine"), "mine")
	if err := os.Mkdir(filepath.Join(w.outside, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"out-dir":   w.outside,
		"out-file":  filepath.Join(w.outside, "keep"),
		"wisp-link": w.wispHome,
	} {
		if err := os.Symlink(target, filepath.Join(w.ws, link)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWrites(t *testing.T) {
	w := newWorld(t)
	w.fixtures(t)
	roots, err := WritableRoots(w.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(roots.Refused) == 0 || !slices.ContainsFunc(roots.Refused, func(r RefusedRoot) bool { return r.Path == w.parent }) {
		t.Errorf("the wisp home's parent %s is not reported refused: %s", w.parent, roots)
	}

	tests := []struct {
		name    string
		line    string
		allowed bool
		// check inspects the file system afterwards.
		check func(t *testing.T)
		// refused, when set, is a path Refusal must name (or one beneath it).
		refused string
	}{
		{name: "write in workspace", line: "echo hi > new && mkdir -p a/b && echo x > a/b/c && cat new", allowed: true,
			check: func(t *testing.T) { mustExist(t, filepath.Join(w.ws, "a/b/c")) }},
		{name: "write to TMPDIR", line: `echo hi > "$TMPDIR/scratch" && mktemp`, allowed: true,
			check: func(t *testing.T) { mustExist(t, filepath.Join(w.tmp, "scratch")) }},
		{name: "devices", line: "echo hi > /dev/null && head -c 4 /dev/zero > zero && echo e > /dev/stderr", allowed: true},
		{name: "rename across workspace folders", line: "mkdir -p d1 d2 && echo x > d1/f && mv d1/f d2/f && ln d2/f d1/hard", allowed: true,
			check: func(t *testing.T) { mustExist(t, filepath.Join(w.ws, "d1/hard")) }},
		{name: "move from workspace to TMPDIR", line: `echo x > moved && mv moved "$TMPDIR/moved"`, allowed: true,
			check: func(t *testing.T) { mustExist(t, filepath.Join(w.tmp, "moved")) }},

		{name: "create outside", line: "echo hi > " + w.outside + "/new",
			check: mustNotExist(filepath.Join(w.outside, "new")), refused: w.outside},
		{name: "overwrite outside", line: "echo changed > " + w.outside + "/keep",
			check: unchanged(filepath.Join(w.outside, "keep"), "original"), refused: w.outside},
		{name: "truncate outside", line: ": > " + w.outside + "/keep",
			check: unchanged(filepath.Join(w.outside, "keep"), "original"), refused: w.outside},
		{name: "write in wisp home", line: "echo '{\"x\":1}' > " + w.wispHome + "/config.json",
			check: unchanged(filepath.Join(w.wispHome, "config.json"), "{}"), refused: w.wispHome},
		{name: "create in wisp home", line: "touch " + w.wispHome + "/trust.json",
			check: mustNotExist(filepath.Join(w.wispHome, "trust.json")), refused: w.wispHome},
		{name: "sibling of wisp home in writable parent", line: "touch " + w.parent + "/other",
			check: mustNotExist(filepath.Join(w.parent, "other")), refused: w.parent},
		{name: "write in HOME", line: `echo evil >> "$HOME/.bashrc"`,
			check: mustNotExist(filepath.Join(w.home, ".bashrc")), refused: w.home},
		{name: "write through symlinked folder", line: "echo hi > out-dir/new",
			check: mustNotExist(filepath.Join(w.outside, "new")), refused: filepath.Join(w.ws, "out-dir")},
		{name: "write through symlinked file", line: "echo changed > out-file",
			check: unchanged(filepath.Join(w.outside, "keep"), "original"), refused: filepath.Join(w.ws, "out-file")},
		{name: "write through symlink to wisp home", line: "echo x > wisp-link/config.json",
			check: unchanged(filepath.Join(w.wispHome, "config.json"), "{}"), refused: filepath.Join(w.ws, "wisp-link")},
		{name: "create in missing folder outside", line: "mkdir -p " + w.outside + "/not/yet",
			check: mustNotExist(filepath.Join(w.outside, "not")), refused: w.outside},
		{name: "create in missing folder of wisp home", line: "mkdir -p " + w.wispHome + "/logs/new",
			check: mustNotExist(filepath.Join(w.wispHome, "logs")), refused: w.wispHome},
		{name: "mkdir outside", line: "mkdir " + w.outside + "/d",
			check: mustNotExist(filepath.Join(w.outside, "d")), refused: w.outside},
		{name: "mv out of workspace", line: "mv mine " + w.outside + "/mine",
			check: func(t *testing.T) {
				mustExist(t, filepath.Join(w.ws, "mine"))
				mustNotExist(filepath.Join(w.outside, "mine"))(t)
			}, refused: w.outside},
		{name: "mv into workspace", line: "mv " + w.outside + "/keep stolen",
			check: unchanged(filepath.Join(w.outside, "keep"), "original"), refused: w.outside},
		{name: "symlink outside", line: "ln -s /etc/passwd " + w.outside + "/link",
			check: mustNotExist(filepath.Join(w.outside, "link")), refused: w.outside},
		{name: "hard link outside", line: "ln mine " + w.outside + "/hard",
			check: mustNotExist(filepath.Join(w.outside, "hard")), refused: w.outside},
		{name: "hard link of wisp home into workspace", line: "ln " + w.wispHome + "/config.json cfg && echo x > cfg",
			check: unchanged(filepath.Join(w.wispHome, "config.json"), "{}"), refused: w.wispHome},
		{name: "rm outside", line: "rm -f " + w.outside + "/keep",
			check: unchanged(filepath.Join(w.outside, "keep"), "original"), refused: w.outside},
		{name: "rmdir outside", line: "rmdir " + w.outside + "/empty",
			check: func(t *testing.T) { mustExist(t, filepath.Join(w.outside, "empty")) }, refused: w.outside},
		{name: "write to /proc", line: "echo renamed > /proc/self/comm"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, w.cfg, tc.line)
			if got := r.code == 0; got != tc.allowed {
				t.Fatalf("%q: exit %d, want allowed=%v\nstdout: %s\nstderr: %s", tc.line, r.code, tc.allowed, r.stdout, r.stderr)
			}
			if tc.check != nil {
				tc.check(t)
			}
			if tc.refused != "" {
				p, ok := Refusal(w.cfg, r.stderr)
				if !ok || !within(p, tc.refused) {
					t.Errorf("Refusal(%q) = %q, %v; want a path beneath %s", r.stderr, p, ok, tc.refused)
				}
			}
		})
	}
}

// TestWritesControl runs each refused line of TestWrites unconfined in a
// fresh world, to prove that the sandbox, and not the line, refused it.
func TestWritesControl(t *testing.T) {
	lines := map[string]string{
		"create outside":         "echo hi > OUT/new",
		"overwrite outside":      "echo changed > OUT/keep",
		"write in wisp home":     "echo x > WISP/config.json",
		"sibling of wisp home":   "touch PARENT/other",
		"write in HOME":          `echo evil >> "$HOME/.bashrc"`,
		"symlinked folder":       "echo hi > out-dir/new",
		"symlinked file":         "echo changed > out-file",
		"missing folder":         "mkdir -p OUT/not/yet",
		"mkdir outside":          "mkdir OUT/d",
		"mv out":                 "mv mine OUT/mine",
		"mv in":                  "mv OUT/keep stolen",
		"symlink outside":        "ln -s /etc/passwd OUT/link",
		"hard link outside":      "ln mine OUT/hard",
		"hard link of wisp home": "ln WISP/config.json cfg && echo x > cfg",
		"rm outside":             "rm -f OUT/keep",
		"rmdir outside":          "rmdir OUT/empty",
		"write to proc":          "echo renamed > /proc/self/comm",
	}
	for name, line := range lines {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			w.fixtures(t)
			w.cfg.Enabled = false
			line := strings.NewReplacer("OUT", w.outside, "WISP", w.wispHome, "PARENT", w.parent).Replace(line)
			if r := run(t, w.cfg, line); r.code != 0 {
				t.Errorf("unconfined %q failed (exit %d): %s", line, r.code, r.stderr)
			}
		})
	}
}

func mustExist(t *testing.T, path string) {
	t.Helper()
	if !exists(path) {
		t.Errorf("%s does not exist", path)
	}
}

func mustNotExist(path string) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if exists(path) {
			t.Errorf("%s exists; the sandbox let it be written", path)
		}
	}
}

func unchanged(path, want string) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q unchanged", path, got, want)
		}
	}
}

func TestProcess(t *testing.T) {
	w := newWorld(t)
	r := run(t, w.cfg, `echo "$$ $(cut -d' ' -f5 /proc/$$/stat)"; grep NoNewPrivs /proc/self/status; tr '\0' ' ' < /proc/$$/cmdline; echo; env`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	ids := strings.Fields(lines[0])
	if len(ids) != 2 || ids[0] != ids[1] {
		t.Errorf("shell pid and process group = %q, want the shell leading its own group", lines[0])
	}
	if Probe().Containment != ContainProcessGroup && len(ids) == 2 && ids[0] == strconv.Itoa(r.pid) {
		t.Errorf("shell pid = helper pid %d: the shell is not in a PID namespace of its own", r.pid)
	}
	if got := strings.Join(strings.Fields(lines[1]), " "); got != "NoNewPrivs: 1" {
		t.Errorf("no_new_privs: got %q, want %q", got, "NoNewPrivs: 1")
	}
	wantArgv := strings.Join(shellArgv(""), " ")
	if !strings.HasPrefix(lines[2], wantArgv) || strings.Contains(lines[2], HelperArg) {
		t.Errorf("shell argv = %q, want %q LINE and nothing of the helper", lines[2], wantArgv)
	}
	// No capability is left, even when the test runs as root.
	caps := run(t, w.cfg, "grep ^Cap /proc/self/status")
	for line := range strings.Lines(caps.stdout) {
		if f := strings.Fields(line); len(f) != 2 || strings.Trim(f[1], "0") != "" {
			t.Errorf("the command holds capabilities: %q", strings.TrimSpace(line))
		}
	}
	if strings.Count(caps.stdout, "Cap") != 5 {
		t.Errorf("capability sets not found in %q", caps.stdout)
	}
	if strings.Contains(r.stdout, "writable_paths") || strings.Contains(r.stdout, HelperArg) {
		t.Errorf("the sandbox configuration leaked into the command's environment:\n%s", r.stdout)
	}
}

func TestNetwork(t *testing.T) {
	w := newWorld(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is needed to dial from a shell")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dial := fmt.Sprintf("%s -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected'", bash, port)
	listen := listenEnv + "=1 " + self
	mptcp := mptcpEnv + "=" + ln.Addr().String() + " " + self

	tests := []struct {
		name    string
		allow   bool
		line    string
		allowed bool
	}{
		{name: "connect denied", allow: false, line: dial, allowed: false},
		{name: "connect allowed", allow: true, line: dial, allowed: true},
		{name: "bind denied", allow: false, line: listen, allowed: false},
		{name: "bind allowed", allow: true, line: listen, allowed: true},
		{name: "multipath connect denied", allow: false, line: mptcp, allowed: false},
		{name: "multipath connect allowed", allow: true, line: mptcp, allowed: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := w.cfg
			cfg.AllowNetwork = tc.allow
			r := run(t, cfg, tc.line)
			if got := r.code == 0; got != tc.allowed {
				t.Fatalf("exit %d, want allowed=%v\nstdout: %s\nstderr: %s", r.code, tc.allowed, r.stdout, r.stderr)
			}
			if !tc.allowed && !strings.Contains(strings.ToLower(r.stderr), "permission denied") {
				t.Errorf("stderr %q does not say permission denied", r.stderr)
			}
		})
	}
}

func TestDisabled(t *testing.T) {
	dir := t.TempDir()
	cmd := Command(Config{Enabled: false}, "/nonexistent/wisp", "echo ok > f", dir)
	if want := shellArgv("echo ok > f"); cmd.Path != want[0] || !slices.Equal(cmd.Args, want) {
		t.Fatalf("unsandboxed command = %v %q, want %q", cmd.Path, cmd.Args, want)
	}
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		t.Fatal("unsandboxed command does not get its own process group")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	mustExist(t, filepath.Join(dir, "f"))
}

// TestDialect runs a line that bash reads as one echo and dash as an
// echo followed by touch: the gate judged it as bash, so it must run as
// bash, confined or not.
func TestDialect(t *testing.T) {
	const line = `echo $'\' ; touch escaped ; #'`
	if _, isBash := ShellPath(); !isBash {
		t.Skip("no bash here: lines run in /bin/sh and the caller parses them as POSIX shell")
	}
	w := newWorld(t)
	for _, enabled := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandboxed=%v", enabled), func(t *testing.T) {
			cfg := w.cfg
			cfg.Enabled = enabled
			r := run(t, cfg, line)
			if r.code != 0 || r.stdout != "' ; touch escaped ; #\n" {
				t.Errorf("exit %d, stdout %q, want the echo of one bash word\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			mustNotExist(filepath.Join(w.ws, "escaped"))(t)
		})
	}
	// The control: the same line under dash runs touch.
	t.Run("dash runs touch", func(t *testing.T) {
		dash, err := exec.LookPath("dash")
		if err != nil {
			t.Skip("no dash here")
		}
		dir := t.TempDir()
		cmd := exec.Command(dash, "-c", line)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		mustExist(t, filepath.Join(dir, "escaped"))
	})
}

func TestShellPath(t *testing.T) {
	path, isBash := ShellPath()
	bash := ""
	for _, p := range bashPaths {
		if _, err := os.Stat(p); err == nil {
			bash = p
			break
		}
	}
	switch {
	case bash != "" && (path != bash || !isBash):
		t.Errorf("ShellPath() = %s, %v; want %s, true", path, isBash, bash)
	case bash == "" && (path != fallbackShell || isBash):
		t.Errorf("ShellPath() = %s, %v; want %s, false", path, isBash, fallbackShell)
	}
	argv := shellArgv("true")
	if isBash && !slices.Equal(argv, []string{path, "--noprofile", "--norc", "-c", "true"}) ||
		!isBash && !slices.Equal(argv, []string{path, "-c", "true"}) {
		t.Errorf("shellArgv = %q", argv)
	}
}

func TestCommandEnv(t *testing.T) {
	in := []string{
		"PATH=/usr/bin", "HOME=/home/u", "ANTHROPIC_API_KEY=a", "OPENAI_API_KEY=o",
		"WISP_API_KEY=w", "WISP_HOME=/h", "WISP_TRUST=1", "WISP_=x", "BASH_ENV=/evil",
		"ENV=/evil", "BASH_ENV", "WISPY=keep", "MY_WISP_X=keep", "OPENAI_BASE_URL=keep",
		"ENVIRONMENT=keep", "LANG=C.UTF-8", "EMPTY=",
	}
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "WISPY=keep", "MY_WISP_X=keep",
		"OPENAI_BASE_URL=keep", "ENVIRONMENT=keep", "LANG=C.UTF-8", "EMPTY="}
	before := slices.Clone(in)
	if got := CommandEnv(in); !slices.Equal(got, want) {
		t.Errorf("CommandEnv =\n%q\nwant\n%q", got, want)
	}
	if !slices.Equal(in, before) {
		t.Error("CommandEnv changed its argument")
	}
}

// TestEnvironment sets wisp's secrets and the shells' startup files in
// the parent and checks that no command sees them, confined or not.
func TestEnvironment(t *testing.T) {
	w := newWorld(t)
	startup := filepath.Join(w.tmp, "startup.sh")
	writeFile(t, startup, "touch "+filepath.Join(w.ws, "sourced")+"\n")
	secrets := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-secret", "OPENAI_API_KEY": "sk-secret",
		"WISP_API_KEY": "wk-secret", "WISP_TRUST": "trust-everything",
		"BASH_ENV": startup, "ENV": startup,
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("WISP_OTHER_SETTING", "hidden")
	t.Setenv("PLAIN_SETTING", "kept")
	for _, enabled := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandboxed=%v", enabled), func(t *testing.T) {
			cfg := w.cfg
			cfg.Enabled = enabled
			r := run(t, cfg, "env")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			// By exact name: other variables may end in ENV
			// (TOX_TESTENV_PASSENV) or hold a value that contains a
			// name.
			seen := map[string]string{}
			for line := range strings.Lines(r.stdout) {
				if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "="); ok {
					seen[k] = v
				}
			}
			for k, v := range secrets {
				if got, ok := seen[k]; ok {
					t.Errorf("the command sees %s=%s", k, got)
				}
				for name, got := range seen {
					if got == v {
						t.Errorf("the command sees %s's value in %s", k, name)
					}
				}
			}
			for name := range seen {
				if strings.HasPrefix(name, "WISP_") {
					t.Errorf("the command sees the WISP_ variable %s", name)
				}
			}
			if !strings.Contains(r.stdout, "PLAIN_SETTING=kept\n") {
				t.Errorf("the command lost an ordinary variable:\n%s", r.stdout)
			}
			if r := run(t, cfg, "printenv ANTHROPIC_API_KEY"); r.stdout != "" || r.code == 0 {
				t.Errorf("printenv ANTHROPIC_API_KEY printed %q (exit %d), want nothing", r.stdout, r.code)
			}
			mustNotExist(filepath.Join(w.ws, "sourced"))(t)
		})
	}
	// The control: bash sources BASH_ENV when it is left in.
	t.Run("bash sources BASH_ENV", func(t *testing.T) {
		path, isBash := ShellPath()
		if !isBash {
			t.Skip("no bash here")
		}
		if out, err := exec.Command(path, "--noprofile", "--norc", "-c", "true").CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		mustExist(t, filepath.Join(w.ws, "sourced"))
	})
}

// TestCaches checks that only the build caches in ~/.cache are writable,
// not the folder itself nor other programs' folders in it.
func TestCaches(t *testing.T) {
	w := newWorld(t)
	cache := filepath.Join(w.home, ".cache")
	gocache := filepath.Join(w.tmp, "gocache-elsewhere")
	for _, d := range []string{"pre-commit", "go-build", "pip", "pnpm", "yarn", "other"} {
		if err := os.MkdirAll(filepath.Join(cache, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(w.home, ".npm"), filepath.Join(w.home, ".cargo", "registry"), filepath.Join(w.home, ".cargo", "bin"), filepath.Join(w.home, "go", "pkg", "mod"), gocache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		path    string
		gocache string
		allowed bool
	}{
		{name: "go build cache", path: filepath.Join(cache, "go-build", "x"), allowed: true},
		{name: "pip cache", path: filepath.Join(cache, "pip", "x"), allowed: true},
		{name: "pnpm cache", path: filepath.Join(cache, "pnpm", "x"), allowed: true},
		{name: "yarn cache", path: filepath.Join(cache, "yarn", "x"), allowed: true},
		{name: "npm cache", path: filepath.Join(w.home, ".npm", "x"), allowed: true},
		{name: "cargo registry", path: filepath.Join(w.home, ".cargo", "registry", "x"), allowed: true},
		{name: "go module cache", path: filepath.Join(w.home, "go", "pkg", "mod", "x"), allowed: true},
		{name: "GOCACHE replaces go-build", path: filepath.Join(gocache, "x"), gocache: gocache, allowed: true},
		{name: "go-build refused when GOCACHE is elsewhere", path: filepath.Join(cache, "go-build", "y"), gocache: gocache},
		{name: "pre-commit environments", path: filepath.Join(cache, "pre-commit", "x")},
		{name: "another program's cache", path: filepath.Join(cache, "other", "x")},
		{name: "the cache folder itself", path: filepath.Join(cache, "x")},
		{name: "cargo bin", path: filepath.Join(w.home, ".cargo", "bin", "x")},
		{name: "cargo home itself", path: filepath.Join(w.home, ".cargo", "config.toml")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gocache != "" {
				t.Setenv("GOCACHE", tc.gocache)
			}
			r := run(t, w.cfg, "touch "+tc.path)
			if got := r.code == 0; got != tc.allowed {
				t.Fatalf("exit %d, want allowed=%v\nstderr: %s", r.code, tc.allowed, r.stderr)
			}
			if exists(tc.path) != tc.allowed {
				t.Errorf("%s exists = %v, want %v", tc.path, exists(tc.path), tc.allowed)
			}
			if !tc.allowed {
				if p, ok := Refusal(w.cfg, r.stderr); !ok || p != tc.path {
					t.Errorf("Refusal(%q) = %q, %v; want %s", r.stderr, p, ok, tc.path)
				}
				// The control: unconfined, the same write succeeds.
				cfg := w.cfg
				cfg.Enabled = false
				if r := run(t, cfg, "touch "+tc.path); r.code != 0 || !exists(tc.path) {
					t.Errorf("unconfined touch %s failed (exit %d): %s", tc.path, r.code, r.stderr)
				}
			}
		})
	}
}

func TestHelperSetupErrors(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "no arguments", args: nil, want: "got 0 arguments"},
		{name: "no line", args: []string{"{}"}, want: "got 1 arguments"},
		{name: "bad configuration", args: []string{"{", "true"}, want: "decode configuration"},
		{name: "no wisp home", args: []string{`{"enabled":true,"workdir":"/"}`, "true"}, want: "locate the wisp home"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := Available(); !ok && tc.name == "no wisp home" {
				t.Skip("without Landlock the helper runs the command instead")
			}
			t.Setenv("HOME", "")
			t.Setenv("WISP_HOME", "")
			cmd := exec.Command(self, append([]string{HelperArg}, tc.args...)...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != ExitSetup {
				t.Fatalf("helper exit = %v, want status %d; output: %s", err, ExitSetup, out)
			}
			if !strings.HasPrefix(string(out), "wisp sandbox: ") || !strings.Contains(string(out), tc.want) {
				t.Errorf("helper said %q, want \"wisp sandbox: ...%s...\"", out, tc.want)
			}
		})
	}
}

func TestWritableRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	wispHome := filepath.Join(base, "parent", "wisp")
	ws := filepath.Join(base, "ws")
	file := filepath.Join(base, "notes.txt")
	cache := filepath.Join(home, ".cache")
	for _, d := range []string{home, wispHome, ws, filepath.Join(home, "proj"), filepath.Join(cache, "go-build"), filepath.Join(cache, "pre-commit"), filepath.Join(home, ".cargo", "git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, file, "")
	if err := os.Symlink(ws, filepath.Join(base, "ws-link")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("WISP_HOME", "")
	t.Setenv("TMPDIR", "")
	for _, k := range []string{"XDG_CACHE_HOME", "GOMODCACHE", "GOPATH", "GOCACHE", "CARGO_HOME", "npm_config_cache"} {
		t.Setenv(k, "")
	}

	tests := []struct {
		name         string
		cfg          Config
		writable     []string
		notWritable  []string
		refused      []string
		refusedWhy   string
		wispHomeWant string
	}{
		{name: "workspace and extras", cfg: Config{Workdir: ws, WispHome: wispHome, WritablePaths: []string{file, filepath.Join(base, "missing")}},
			writable: []string{ws, file}, notWritable: []string{filepath.Join(base, "missing")}, wispHomeWant: wispHome},
		{name: "symlinked workspace is resolved", cfg: Config{Workdir: filepath.Join(base, "ws-link"), WispHome: wispHome},
			writable: []string{ws}, notWritable: []string{filepath.Join(base, "ws-link")}},
		{name: "parent of wisp home refused", cfg: Config{Workdir: ws, WispHome: wispHome, WritablePaths: []string{filepath.Join(base, "parent")}},
			writable: []string{ws}, refused: []string{filepath.Join(base, "parent")}, refusedWhy: "contains the wisp home"},
		{name: "inside wisp home refused", cfg: Config{Workdir: wispHome, WispHome: wispHome},
			refused: []string{wispHome}, refusedWhy: "wisp home"},
		{name: "HOME as workspace refused", cfg: Config{Workdir: home, WispHome: wispHome},
			refused: []string{home}, refusedWhy: "contains the home folder"},
		{name: "default wisp home under HOME", cfg: Config{Workdir: filepath.Join(home, "proj")},
			writable: []string{filepath.Join(home, "proj")}, wispHomeWant: filepath.Join(home, ".wisp")},
		{name: "build caches, not the user cache folder", cfg: Config{Workdir: ws, WispHome: wispHome},
			writable:    []string{filepath.Join(cache, "go-build"), filepath.Join(home, ".cargo", "git")},
			notWritable: []string{cache, filepath.Join(cache, "pre-commit"), filepath.Join(home, ".cargo")}},
		{name: "relative extra path is joined to the workspace", cfg: Config{Workdir: base, WispHome: wispHome, WritablePaths: []string{"ws"}},
			refused: []string{base}, writable: []string{ws}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := WritableRoots(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tc.writable {
				if !slices.Contains(r.Writable, p) {
					t.Errorf("%s not writable; roots: %s", p, r)
				}
			}
			for _, p := range tc.notWritable {
				if slices.Contains(r.Writable, p) {
					t.Errorf("%s writable; roots: %s", p, r)
				}
			}
			for _, p := range tc.refused {
				found := false
				for _, f := range r.Refused {
					if f.Path == p && strings.Contains(f.Reason, tc.refusedWhy) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s not refused for %q; roots: %s", p, tc.refusedWhy, r)
				}
			}
			if tc.wispHomeWant != "" && r.WispHome != tc.wispHomeWant {
				t.Errorf("wisp home = %s, want %s", r.WispHome, tc.wispHomeWant)
			}
		})
	}

	t.Run("no wisp home", func(t *testing.T) {
		t.Setenv("HOME", "")
		if _, err := WritableRoots(Config{Workdir: ws}); err == nil {
			t.Error("WritableRoots succeeded without a wisp home to protect")
		}
	})
}

// The per-command cost of each profile, side by side with plain bash
// (bench/sandbox.sh adds the sandbox of an earlier revision).
func BenchmarkSandboxedTrue(b *testing.B) { benchHelper(b, false) }

func BenchmarkAutoRunTrue(b *testing.B) { benchHelper(b, true) }

func benchHelper(b *testing.B, autoRun bool) {
	if _, ok := Available(); !ok {
		b.Skip("Landlock is unavailable here")
	}
	if s := Probe(); autoRun && !s.AutoRun {
		b.Skip("no auto-run sandbox here: " + s.AutoRunWhy)
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	dir, wispHome := b.TempDir(), b.TempDir()
	cfg := Config{Enabled: true, Workdir: dir, WispHome: wispHome, AutoRun: autoRun}
	for b.Loop() {
		if err := Command(cfg, self, "true", dir).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlainTrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if err := Command(Config{}, "", "true", dir).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestAutoRunEnv(t *testing.T) {
	in := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=C.UTF-8", "AWS_SECRET_ACCESS_KEY=s",
		"GITHUB_TOKEN=t", "PAGER=sh x", "LESSOPEN=|x %s", "GIT_DIR=/x", "WISP_API_KEY=k", "TERM=xterm"}
	got := strings.Join(AutoRunEnv(in), " ")
	want := "PATH=/bin HOME=/h LC_ALL=C LANG=C.UTF-8 TERM=xterm"
	if got != want {
		t.Fatalf("AutoRunEnv = %q, want %q", got, want)
	}
}
