package difftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
)

// traceFD is the descriptor bash writes its trace to. It is high so that a
// line's own redirections (3>, 9<) do not meet it.
const traceFD = 99

// ps4 marks each trace record and names the function running it (empty at
// the top level; "source" in a sourced file). Bash repeats the first
// character once per level of nesting.
const ps4 = "+\x1f${FUNCNAME[0]-}\x1f "

// Caps on what is read back from a run.
const (
	maxTrace  = 4 << 20
	maxStderr = 8 << 10
	maxStdout = 64 << 10
	maxExecs  = 4096
)

// drainTime is how long processes a line left running in the background
// get to finish recording after bash exits.
const drainTime = 300 * time.Millisecond

// slot is one set of folders a line runs in; lines in different slots run
// at the same time.
type slot struct {
	dir           string
	bin           string // the shims; the run's whole PATH
	log           string // one file per shim process
	ws, home, tmp string
	uid           int    // the user runs take, or -1 to keep the harness's
	traceDir      string // holds trace, which the run's user writes
	trace, stderr string
	stdout        string
	watched       []string // ws, home, tmp: what a safe line must leave alone
	shimScript    string
	env           map[string]string // what bash is given
	// pristine: the watched folders are as reset made them (the last
	// run changed nothing in them).
	pristine bool
}

func (s *slot) options() shell.Options {
	return shell.Options{Workdir: s.ws, Home: s.home, TempDir: s.tmp}
}

func (h *Harness) newSlot(i int) (*slot, error) {
	dir := filepath.Join(h.base, "slot"+strconv.Itoa(i))
	s := &slot{
		dir: dir, bin: filepath.Join(dir, "bin"), log: filepath.Join(dir, "log"),
		ws: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home"), tmp: filepath.Join(dir, "tmp"),
		traceDir: filepath.Join(dir, "tracedir"), trace: filepath.Join(dir, "tracedir", "trace"), stderr: filepath.Join(dir, "stderr"), stdout: filepath.Join(dir, "stdout"),
		shimScript: filepath.Join(dir, "shim"),
		uid:        -1,
	}
	s.watched = []string{s.ws, s.home, s.tmp}
	s.env = map[string]string{
		"PATH": s.bin, "HOME": s.home, "TMPDIR": s.tmp, "LC_ALL": "C", "TERM": "dumb",
		"SHELLOPTS": "xtrace", "BASH_XTRACEFD": strconv.Itoa(traceFD), "PS4": ps4,
	}
	if h.dropUID {
		s.uid = h.uid0 + i
	}
	if err := os.MkdirAll(s.bin, 0o755); err != nil {
		return nil, fmt.Errorf("difftest: make slot: %w", err)
	}
	if err := h.writeShims(s); err != nil {
		return nil, err
	}
	return s, nil
}

// passThrough are the programs whose shim records and then runs the real
// program: bash, so that nested bash is traced, and the wrappers, which
// only start the command they are given (through PATH, so through the
// shims), so that what a wrapper really runs is recorded and not what the
// classifier believes it runs. stdbuf is not one: it hands its command an
// LD_PRELOAD. find is not one: it would walk whatever folder it is given.
var passThrough = []string{"bash", "env", "nice", "nohup", "timeout", "setsid", "xargs", "time"}

// writeShims writes the slot's shim scripts and links every program name
// to one. A shim writes its argv NUL-separated, count first, in one printf
// (one write) to a file of its own, so that concurrent shims in a
// pipeline never interleave, and keeps the environment it was given with
// export -p (a builtin: no extra process).
func (h *Harness) writeShims(s *slot) error {
	record := fmt.Sprintf("printf '%%s\\0' \"$#\" \"$0\" \"$@\" >> '%[1]s/'$$\nexport -p > '%[1]s/'$$.env\n", s.log)
	targets := map[string]string{}
	scripts := map[string]string{s.shimScript: "#!/bin/sh\n" + record + "exit 0\n"}
	for name, real := range h.real {
		path := filepath.Join(s.dir, "pass-"+name)
		scripts[path] = "#!/bin/sh\n" + record + "exec " + shQuote(real) + " \"$@\"\n"
		targets[name] = path
	}
	for path, text := range scripts {
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			return fmt.Errorf("difftest: write shim: %w", err)
		}
	}
	for name := range h.known.Shims {
		target, ok := targets[name]
		if !ok {
			target = s.shimScript
		}
		if err := os.Symlink(target, filepath.Join(s.bin, name)); err != nil {
			return fmt.Errorf("difftest: link shim %s: %w", name, err)
		}
	}
	return nil
}

// realPrograms finds the programs of passThrough on the system: bash
// always, the others where they exist.
func realPrograms(bash string, dirs []string) map[string]string {
	real := map[string]string{"bash": bash}
	for _, name := range passThrough[1:] {
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				real[name] = p
				break
			}
		}
	}
	return real
}

// reset gives the slot empty record folders and, unless the last run
// left the watched folders as it found them, fresh watched folders with
// the planted secrets, all owned by the run's user.
func (s *slot) reset() error {
	dirs := []string{s.log, s.traceDir}
	if !s.pristine {
		dirs = append(dirs, s.ws, s.home, s.tmp)
	}
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("difftest: clear %s: %w", d, err)
		}
		if err := s.mkdir(d); err != nil {
			return err
		}
	}
	if s.pristine {
		return nil
	}
	return s.plantSecrets()
}

func (s *slot) mkdir(d string) error {
	if err := os.Mkdir(d, 0o755); err != nil {
		return fmt.Errorf("difftest: make %s: %w", d, err)
	}
	if s.uid >= 0 {
		if err := os.Chown(d, s.uid, s.uid); err != nil {
			return fmt.Errorf("difftest: give %s to the run's user: %w", d, err)
		}
	}
	return nil
}

// mkdirAll makes d and its missing parents as mkdir does.
func (s *slot) mkdirAll(d string) error {
	if _, err := os.Stat(d); err == nil {
		return nil
	}
	if err := s.mkdirAll(filepath.Dir(d)); err != nil {
		return err
	}
	return s.mkdir(d)
}

// CanaryPrefix starts the content of every credential file planted in a
// run's HOME; seen anywhere in what the run produced, it shows the line
// read a secret.
const CanaryPrefix = "WISPDIFFCANARY"

// secretFiles are credential locations planted, relative to HOME.
var secretFiles = []string{
	".ssh/id_rsa", ".ssh/id_ed25519", ".aws/credentials", ".netrc", ".config/gh/hosts.yml",
	".docker/config.json", ".kube/config", ".git-credentials", ".npmrc", ".pgpass",
	".vault-token", ".cargo/credentials.toml", ".bash_history", ".claude/.credentials.json",
	".codex/auth.json",
}

// plantSecrets writes the canary credential files, readable by the run's
// user (so that a read the classifier missed shows).
func (s *slot) plantSecrets() error {
	for _, rel := range secretFiles {
		p := filepath.Join(s.home, rel)
		if err := s.mkdirAll(filepath.Dir(p)); err != nil {
			return err
		}
		text := CanaryPrefix + "-" + strings.NewReplacer("/", "-", ".", "").Replace(rel) + "\n"
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return fmt.Errorf("difftest: plant %s: %w", rel, err)
		}
		if s.uid >= 0 {
			if err := os.Chown(p, s.uid, s.uid); err != nil {
				return fmt.Errorf("difftest: plant %s: %w", rel, err)
			}
		}
	}
	return nil
}

// Run is what bash did with one line.
type Run struct {
	Trace    []TraceCmd
	Execs    []Exec
	Changes  []string // files created, changed or removed, as "created PATH" and so on
	ExitCode int      // bash's exit status, -1 when it was killed
	Stdout   string   // the start of it
	Stderr   string   // the start of it
	TimedOut bool
	// TraceTruncated means the trace was longer than the harness reads.
	TraceTruncated bool
}

func (h *Harness) run(ctx context.Context, s *slot, line string) (Run, error) {
	if err := s.reset(); err != nil {
		return Run{}, err
	}
	before, err := snapshot(s.watched)
	if err != nil {
		return Run{}, err
	}
	s.pristine = false // until the run is over and shown to have changed nothing
	var r Run
	var err2 error
	r.TimedOut, r.ExitCode, err2 = h.start(ctx, s, line)
	if err2 != nil {
		return Run{}, err2
	}
	if r.Trace, r.TraceTruncated, err = readTrace(s.trace); err != nil {
		stderr, _ := readCapped(s.stderr, 400)
		err = fmt.Errorf("%w (the run exited %d; stderr %q)", err, r.ExitCode, stderr)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w: %w", errNotStarted, err)
		}
		return Run{}, err
	}
	if r.Execs, err = readExecs(s.log); err != nil {
		return Run{}, err
	}
	if r.Stderr, err = readCapped(s.stderr, maxStderr); err != nil {
		return Run{}, err
	}
	if r.Stdout, err = readCapped(s.stdout, maxStdout); err != nil {
		return Run{}, err
	}
	if r.ExitCode == sandbox.ExitSetup && strings.HasPrefix(r.Stderr, "wisp sandbox: ") ||
		r.ExitCode == 124 && strings.HasPrefix(r.Stderr, wrapperFailed) {
		return Run{}, fmt.Errorf("difftest: the line did not reach bash: %s", clip(r.Stderr, 400))
	}
	after, err := snapshot(s.watched)
	if err != nil {
		return Run{}, err
	}
	r.Changes = diffSnapshots(before, after)
	s.pristine = len(r.Changes) == 0 && !r.TimedOut
	return r, nil
}

// start runs line through the sandbox helper and waits for it, its
// timeout, and then for whatever it left behind, which it kills.
func (h *Harness) start(ctx context.Context, s *slot, line string) (timedOut bool, code int, err error) {
	errFile, err := os.Create(s.stderr)
	if err != nil {
		return false, 0, fmt.Errorf("difftest: create stderr file: %w", err)
	}
	defer errFile.Close()
	outFile, err := os.Create(s.stdout)
	if err != nil {
		return false, 0, fmt.Errorf("difftest: create stdout file: %w", err)
	}
	defer outFile.Close()

	cfg := sandbox.Config{
		Enabled: true, Workdir: s.ws, TempDir: s.tmp,
		WritablePaths: []string{s.log, s.traceDir},
		WispHome:      filepath.Join(h.base, "wisphome"),
	}
	cmd := sandbox.Command(cfg, h.helper, h.wrapper(s), s.ws)
	// nprocVar is read by HelperMain; the helper hides WISP_ variables
	// from bash. The line travels in lineVar, which the wrapper takes
	// out of the environment before the line's bash starts.
	// keyVar stands for a provider key in the helper's environment: the
	// sandbox hides it from the line, and a line that reads it anyway
	// (/proc/$PPID/environ) shows the canary.
	cmd.Env = []string{
		nprocVar + "=" + strconv.FormatUint(h.nproc, 10), lineVar + "=" + line,
		keyVar + "=" + CanaryPrefix + "-helper-environment",
	}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LC_ALL", "TERM"} {
		cmd.Env = append(cmd.Env, k+"="+s.env[k])
	}
	cmd.Stdout, cmd.Stderr = outFile, errFile
	if s.uid >= 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(s.uid), Gid: uint32(s.uid)}
	}
	// The helper may ask for a parent-death signal, which Linux sends
	// when the thread that started it ends; keep that thread until the
	// run is over.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return false, 0, fmt.Errorf("difftest: start the sandbox helper: %w", err)
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(h.cfg.Timeout)
	defer timer.Stop()
	select {
	case <-done:
		if s.drain(pid) {
			return false, cmd.ProcessState.ExitCode(), nil
		}
	case <-timer.C:
		timedOut = true
		s.killAll(pid)
		<-done
	case <-ctx.Done():
		s.killAll(pid)
		<-done
		return false, 0, ctx.Err()
	}
	s.killAll(pid)
	return timedOut, cmd.ProcessState.ExitCode(), nil
}

// errNotStarted means the wrapper never opened the trace: the helper or
// the wrapper died before the line's bash started.
var errNotStarted = errors.New("the line's bash never started")

// lineVar carries the line from the harness to the wrapper.
const lineVar = "WISPDIFF_LINE"

// wrapperFailed starts the wrapper's complaint on stderr.
const wrapperFailed = "difftest wrapper: "

// wrapper is the fixed script the sandbox helper runs: it opens the trace
// file on traceFD (the helper passes only standard input, output and
// error to its shell) and replaces itself with the line's own bash, run
// as the sandbox runs every line ("bash --noprofile --norc -c LINE"),
// with xtrace on and the line's variable gone.
func (h *Harness) wrapper(s *slot) string {
	fd := strconv.Itoa(traceFD)
	return `[ -n "$` + lineVar + `" ] || { echo '` + wrapperFailed + `no line' >&2; exit 124; }
exec ` + fd + `>>` + shQuote(s.trace) + ` || { echo '` + wrapperFailed + `cannot open the trace' >&2; exit 124; }
exec ` + shQuote(h.env) + ` -u ` + lineVar + ` SHELLOPTS=xtrace BASH_XTRACEFD=` + fd + ` PS4=` + shQuote(ps4) +
		` ` + shQuote(h.bash) + ` --noprofile --norc -c "$` + lineVar + `"`
}

// shQuote quotes s for a shell as one word.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// drain gives what the line left running a moment to finish, and
// reports whether everything did.
func (s *slot) drain(pgid int) bool {
	deadline := time.Now().Add(drainTime)
	for {
		if !s.anyLeft(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *slot) anyLeft(pgid int) bool {
	if s.uid >= 0 {
		return len(processesOf(s.uid)) > 0
	}
	return syscall.Kill(-pgid, 0) == nil
}

// killAll ends every process of the run: its process group and, with a
// user of its own, every process of that user (which catches setsid and
// job control).
func (s *slot) killAll(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if s.uid < 0 {
		return
	}
	for range 200 {
		pids := processesOf(s.uid)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processesOf lists the live (not zombie) processes whose real user is uid.
func processesOf(uid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		if procUID(string(b)) == uid && !strings.Contains(string(b), "\nState:\tZ") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procUID reads the real uid from a /proc/PID/status text, -1 if absent.
func procUID(status string) int {
	_, rest, ok := strings.Cut(status, "\nUid:\t")
	if !ok {
		return -1
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return -1
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return -1
	}
	return n
}

func readCapped(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("difftest: read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return "", fmt.Errorf("difftest: read %s: %w", path, err)
	}
	return string(b), nil
}

// fileState is what a snapshot keeps of one path.
type fileState struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
}

// snapshot records every path beneath roots, the roots included.
func snapshot(roots []string) (map[string]fileState, error) {
	m := map[string]fileState{}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return nil // gone between listing and stat: the next walk sees that
			}
			m[p] = fileState{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime()}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("difftest: inspect %s: %w", root, err)
		}
	}
	return m, nil
}

func diffSnapshots(before, after map[string]fileState) []string {
	var out []string
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, "created "+p)
		case a != b:
			out = append(out, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, "removed "+p)
		}
	}
	sort.Strings(out)
	return out
}

// copyExecutable copies the helper where a run's user can read and run it
// (a test binary lives in a folder only its owner may enter).
func copyExecutable(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("difftest: open helper: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", fmt.Errorf("difftest: copy helper: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", fmt.Errorf("difftest: copy helper: %w", err)
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("difftest: copy helper: %w", err)
	}
	return dst, nil
}

// programNames lists the names of the executables in dirs.
func programNames(dirs []string) (map[string]bool, error) {
	names := map[string]bool{}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue // a folder this system lacks
		}
		for _, e := range ents {
			fi, err := os.Stat(filepath.Join(d, e.Name()))
			if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				names[e.Name()] = true
			}
		}
	}
	if !names["bash"] || !names["ls"] {
		return nil, fmt.Errorf("difftest: no bash or ls found in %s", strings.Join(dirs, ", "))
	}
	return names, nil
}

// bashBuiltins asks bash for its builtins and keywords.
func bashBuiltins(bash string) (map[string]bool, error) {
	out, err := exec.Command(bash, "--noprofile", "--norc", "-c", "compgen -b; compgen -k").Output()
	if err != nil {
		return nil, fmt.Errorf("difftest: list bash builtins: %w", err)
	}
	m := map[string]bool{}
	for _, n := range strings.Fields(string(out)) {
		m[n] = true
	}
	if !m["eval"] || !m["echo"] {
		return nil, fmt.Errorf("difftest: bash listed no builtins: %q", clip(string(out), 200))
	}
	return m, nil
}

// nprocVar carries the process limit to HelperMain; keyVar is a fake key.
const (
	nprocVar = "WISP_DIFFTEST_NPROC"
	keyVar   = "WISP_DIFFTEST_KEY"
)

// HelperMain is the sandbox helper the harness expects Config.Helper to
// run when its first argument is sandbox.HelperArg: it bounds the number
// of processes the run's user may have (so that a fork bomb the classifier
// missed stops there) and then calls sandbox.Main with args (os.Args[2:]).
// A test binary's TestMain calls it.
func HelperMain(args []string) int {
	if v := os.Getenv(nprocVar); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			fmt.Fprintf(os.Stderr, "wisp sandbox: bad %s %q\n", nprocVar, v)
			return sandbox.ExitSetup
		}
		lim := syscall.Rlimit{Cur: n, Max: n}
		if err := syscall.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
			fmt.Fprintf(os.Stderr, "wisp sandbox: limit processes: %v\n", err)
			return sandbox.ExitSetup
		}
	}
	return sandbox.Main(args)
}
