// Package difftest checks the shell classifier against real bash: it runs
// a line the classifier rated safe in bash, confined and with every program
// replaced by a recording stand-in, and reports whatever bash ran or wrote
// that the verdict's parts did not name.
//
// The classifier reads a line with mvdan.cc/sh's parser; bash reads it with
// its own. Wherever the two disagree (a comment that bash ends where the
// parser continues it, a string bash evaluates at run time, a name bash
// resolves to something else), a line that looks harmless to the parser can
// run anything. This package does not trust the parser: it asks bash.
//
// A run sees an empty workspace, a HOME holding only planted credential
// files (whose content, seen anywhere in the output, shows a secret read)
// and an empty TMPDIR, a PATH holding only shims (one script linked under
// the name of every executable on the system, which records its argv and
// environment and exits 0; those for bash and for the wrappers (env, nice,
// nohup, timeout, setsid, xargs, time) record and then run the real
// program, so that nested bash is traced and a wrapper's command goes
// through the shims too), and bash's xtrace written to a
// file of its own, with a PS4 that names the function running each
// command. It runs inside wisp's sandbox helper (Landlock: writes only to
// the run's folders, no network): the helper runs a fixed wrapper script
// that opens the trace and replaces itself with "bash --noprofile --norc
// -c LINE", exactly as the sandbox runs every line. When the harness runs
// as root, each slot's runs take a user of their own, which makes bash
// read PS4 from the environment (it ignores it for root) and lets the
// harness end whatever a run left behind. Afterwards the harness compares
// what the shims and the trace recorded, and what changed on disk, with
// the verdict (see [Compare]).
//
// What it cannot see: what a real program would have done (a shim runs
// nothing, so find -exec, git's pager or sed's e command are the
// classifier's tables' business, not this package's), and a background
// job the sandbox ended with the shell before it started.
//
// The package never decides whether a line is safe; it only checks a
// verdict it is given. It must never run a line outside a fresh, empty set
// of folders, and never with the real PATH.
package difftest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
)

// Classifier judges a line as shell.ClassifyWith does. The harness takes it
// as a value so that a test can feed it a classifier known to be wrong.
type Classifier func(line string, opts shell.Options) shell.Verdict

// Config says how the harness runs lines.
type Config struct {
	// Helper is the executable that acts as wisp's sandbox helper when
	// started with sandbox.HelperArg (the wisp binary, or a test binary
	// whose TestMain calls sandbox.Main).
	Helper string
	// Slots is how many lines may run at once (at least 1).
	Slots int
	// Timeout bounds one run; the run's process group is killed after it.
	Timeout time.Duration
	// ProgramDirs are searched for the names that get a shim; empty
	// means the usual system folders.
	ProgramDirs []string
}

// DefaultProgramDirs are the folders whose executables get a shim.
var DefaultProgramDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// When the harness runs as root, each slot's runs take a user of their
// own: bash ignores PS4 from the environment when its user is root; a run
// that is not root cannot write the system's files even where Landlock
// would allow it; and a user of its own per slot lets the harness find and
// end every process a run left behind, however it detached (setsid, set
// -m, double forks), and bounds its processes. The users are picked at
// random from a range no system gives out, so that harnesses in other
// test processes (go test ./... runs packages at once) never share one
// and end each other's runs.
const (
	uidFloor = 1 << 30 // far above any user a system gives out
	uidRange = 1 << 24
)

// slotUIDs returns the first of n consecutive users for a harness: at
// random above uidFloor, or, in a user namespace that maps fewer users,
// at random in the top half of the largest range it maps (short of its
// last two users, nobody and the overflow user).
func slotUIDs(n int) int {
	lo, hi := uidFloor, uidFloor+uidRange
	if b, err := os.ReadFile("/proc/self/uid_map"); err == nil {
		lo, hi = mappedUIDs(string(b), lo, hi)
	}
	if hi-lo <= n {
		return lo
	}
	return lo + rand.IntN(hi-lo-n)
}

// mappedUIDs narrows [lo, hi) to what a uid_map text maps: unchanged when
// a mapped range holds it, else the top half of the largest range.
func mappedUIDs(uidMap string, lo, hi int) (int, int) {
	bestLo, bestHi := 0, 0
	for ln := range strings.SplitSeq(strings.TrimSpace(uidMap), "\n") {
		f := strings.Fields(ln)
		if len(f) != 3 {
			continue
		}
		start, err1 := strconv.Atoi(f[0])
		size, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			continue
		}
		if start <= lo && hi <= start+size {
			return lo, hi
		}
		if size > bestHi-bestLo {
			// The last two are kept for nobody and the overflow user.
			bestLo, bestHi = start+size/2, start+size-2
		}
	}
	return bestLo, bestHi
}

// Harness runs lines in bash and compares them with verdicts. It is safe
// for concurrent use; at most Config.Slots lines run at once.
type Harness struct {
	cfg     Config
	base    string            // everything the harness made, removed by Close
	helper  string            // the helper binary, readable by the run's user
	bash    string            // the real bash
	env     string            // the real env, which the wrapper starts bash with
	real    map[string]string // the real programs of passThrough, by name
	known   Baseline          // shims, builtins and canary; each slot adds its environment
	dropUID bool              // runs take a user of their own (the harness is root)
	uid0    int               // the first slot's user, when dropUID
	nproc   uint64            // RLIMIT_NPROC for a run
	slots   chan *slot
}

// New prepares the shims, the slots and a copy of the helper. The caller
// must Close the harness.
func New(cfg Config) (*Harness, error) {
	if cfg.Helper == "" {
		return nil, errors.New("difftest: no sandbox helper given")
	}
	if cfg.Slots < 1 {
		cfg.Slots = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 3 * time.Second
	}
	if len(cfg.ProgramDirs) == 0 {
		cfg.ProgramDirs = DefaultProgramDirs
	}
	bash, isBash := sandbox.ShellPath()
	if !isBash {
		return nil, fmt.Errorf("difftest: no bash on this system (the sandbox would run %s)", bash)
	}
	h := &Harness{cfg: cfg, bash: bash, dropUID: os.Geteuid() == 0}
	if err := h.setup(); err != nil {
		h.Close()
		return nil, err
	}
	return h, nil
}

func (h *Harness) setup() error {
	// Always under /tmp: the wisp home the runs protect lies here, which
	// makes the sandbox refuse /tmp as a whole, so that every folder a
	// run may write is one the harness made and inspects.
	base, err := os.MkdirTemp("/tmp", "wisp-difftest-")
	if err != nil {
		return fmt.Errorf("difftest: make base folder: %w", err)
	}
	h.base = base
	if err := os.Chmod(base, 0o755); err != nil {
		return fmt.Errorf("difftest: open base folder: %w", err)
	}
	if err := os.Mkdir(filepath.Join(base, "wisphome"), 0o700); err != nil {
		return fmt.Errorf("difftest: make wisp home: %w", err)
	}
	if h.helper, err = copyExecutable(h.cfg.Helper, filepath.Join(base, "helper")); err != nil {
		return err
	}
	if h.env, err = exec.LookPath("env"); err != nil {
		return fmt.Errorf("difftest: find env: %w", err)
	}
	if h.known.Shims, err = programNames(h.cfg.ProgramDirs); err != nil {
		return err
	}
	if h.known.Builtins, err = bashBuiltins(h.bash); err != nil {
		return err
	}
	h.known.Canary = CanaryPrefix
	h.real = realPrograms(h.bash, h.cfg.ProgramDirs)
	h.nproc = runProcessLimit(h.dropUID)
	h.uid0 = slotUIDs(h.cfg.Slots)
	h.slots = make(chan *slot, h.cfg.Slots)
	for i := range h.cfg.Slots {
		s, err := h.newSlot(i)
		if err != nil {
			return err
		}
		h.slots <- s
	}
	return nil
}

// Close removes everything the harness made.
func (h *Harness) Close() error {
	if h.base == "" {
		return nil
	}
	err := os.RemoveAll(h.base)
	h.base = ""
	return err
}

// Report is what one line did in bash, and how it differs from its verdict.
type Report struct {
	Line     string
	Verdict  shell.Verdict
	Run      Run
	Findings []Finding
}

// Failed reports whether bash did anything the verdict did not name.
func (r Report) Failed() bool { return len(r.Findings) > 0 }

// String describes the report for a test failure: the line, each finding,
// the parts the classifier named, and what ran.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "line %q rated %s\n", r.Line, r.Verdict.Level)
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  differs: %s\n", f)
	}
	fmt.Fprintf(&b, "  classifier's parts:")
	if len(r.Verdict.Parts) == 0 {
		b.WriteString(" none")
	}
	for _, p := range r.Verdict.Parts {
		fmt.Fprintf(&b, " [program %q command %q]", p.Program, p.Command)
	}
	b.WriteString("\n  bash ran:")
	for _, c := range r.Run.Trace {
		fmt.Fprintf(&b, "\n    trace %s", c)
	}
	for _, e := range r.Run.Execs {
		fmt.Fprintf(&b, "\n    exec  %q", e.Argv)
	}
	if r.Run.TimedOut {
		b.WriteString("\n  (timed out; the process group was killed)")
	}
	if s := strings.TrimSpace(r.Run.Stderr); s != "" {
		fmt.Fprintf(&b, "\n  stderr: %s", clip(s, 600))
	}
	return b.String()
}

// Check runs line in bash and compares what happened with v. It fails only
// when the run itself could not be set up; what the line did is in the
// report.
func (h *Harness) Check(ctx context.Context, line string, v shell.Verdict) (Report, error) {
	s, err := h.acquire(ctx)
	if err != nil {
		return Report{}, err
	}
	defer h.release(s)
	return h.check(ctx, s, line, v)
}

func (h *Harness) acquire(ctx context.Context) (*slot, error) {
	select {
	case s := <-h.slots:
		return s, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *Harness) release(s *slot) { h.slots <- s }

func (h *Harness) check(ctx context.Context, s *slot, line string, v shell.Verdict) (Report, error) {
	run, err := h.run(ctx, s, line)
	if errors.Is(err, errNotStarted) {
		// Once more: a helper can die before it starts the shell on a
		// machine short of processes or memory; a second failure is
		// reported.
		run, err = h.run(ctx, s, line)
	}
	if err != nil {
		return Report{}, err
	}
	r := Report{Line: line, Verdict: v, Run: run}
	known := h.known
	known.Env = s.env
	known.Home = s.home
	r.Findings = Compare(line, v, run, known)
	return r, nil
}

// maxRunLine is the longest line run: the line travels in an environment
// variable, which Linux bounds at 128 KiB.
const maxRunLine = 100 << 10

// Classify rates line with c, using the folders of the slot it will run
// in as the workspace, HOME and TMPDIR, and checks it when it is safe. ran
// is false when the line was not safe and so not run, and when it is
// blank, longer than maxRunLine or holds a NUL byte, which no process can
// be given as an argument (so neither bash nor wisp can run it).
func (h *Harness) Classify(ctx context.Context, c Classifier, line string) (r Report, ran bool, err error) {
	if strings.ContainsRune(line, 0) || strings.TrimSpace(line) == "" || len(line) > maxRunLine {
		return Report{Line: line}, false, nil
	}
	s, err := h.acquire(ctx)
	if err != nil {
		return Report{}, false, err
	}
	defer h.release(s)
	v := c(line, s.options())
	if v.Level != shell.Safe {
		return Report{Line: line, Verdict: v}, false, nil
	}
	r, err = h.check(ctx, s, line, v)
	return r, err == nil, err
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// runProcessLimit is the most processes a run's user may have, so that a
// fork bomb the classifier missed stops there. With a user per slot the
// count is the run's own; otherwise it is the harness user's, so the limit
// sits above what that user already runs.
func runProcessLimit(dropUID bool) uint64 {
	const perRuns = 512
	if dropUID {
		return perRuns
	}
	return uint64(countProcesses(os.Getuid())) + perRuns
}

// countProcesses counts the processes uid owns.
func countProcesses(uid int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 4096 // cannot count: a limit this high still ends a fork bomb
	}
	n := 0
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", e.Name()), &st) == nil && int(st.Uid) == uid {
			n++
		}
	}
	return n
}
