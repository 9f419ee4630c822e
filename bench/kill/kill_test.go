package kill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// shortTrials run under a plain `go test ./...`; WISP_KILL_TRIALS asks
// for more (at least 30 for a real measurement).
const shortTrials = 4

func trialCount(t *testing.T) int {
	if v := os.Getenv("WISP_KILL_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("WISP_KILL_TRIALS=%q: want a positive number", v)
		}
		return n
	}
	if testing.Short() {
		return 3
	}
	return shortTrials
}

// wispBinary builds cmd/wisp into the test's own folder (or takes WISP_BIN).
func wispBinary(t *testing.T) string {
	t.Helper()
	if b := os.Getenv("WISP_BIN"); b != "" {
		return b
	}
	bin := filepath.Join(t.TempDir(), "wisp")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/wisp-agent/wisp/cmd/wisp").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// The scripted task: two responses of tool calls with side effects (lines
// appended to side.log before and after a sleep, a file written, a managed
// process started), then a final answer. MARK is the trial's marker.
func taskScript(mark string) fake.Script {
	run := func(k int) fake.ToolCall {
		cmd := fmt.Sprintf("echo start-%d >> side.log; sleep 0.%s; echo end-%d >> side.log; echo result-%d", k, mark, k, k)
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return fake.ToolCall{Name: "bash", Input: in}
	}
	managed, _ := json.Marshal(map[string]any{"operation": "start", "command": "sleep 2" + mark})
	return fake.Script{Turns: []fake.Turn{
		{Text: "Working.", ToolCalls: []fake.ToolCall{{Name: "bash", Input: managed}, run(1), run(2)}},
		{ToolCalls: []fake.ToolCall{{Name: "write", Input: json.RawMessage(`{"path":"w.txt","content":"written\n"}`)}, run(3)}},
		{Text: "All done."},
	}}
}

// trial is one run killed and resumed.
type trial struct {
	n      int
	format string // anthropic or openai
	sig    syscall.Signal
	delay  time.Duration
	mark   string
	base   string
	home   string
	work   string
	tmp    string

	phase    string   // where the kill landed
	failures []string // "kind: detail"
}

func (tr *trial) fail(kind, format string, args ...any) {
	tr.failures = append(tr.failures, kind+": "+fmt.Sprintf(format, args...))
}

func (tr *trial) env(srv *fake.Server) []string {
	env := append(os.Environ(), "HOME="+tr.home, "WISP_HOME="+filepath.Join(tr.home, ".wisp"), "TMPDIR="+tr.tmp,
		"WISP_KILL_MARK="+tr.mark, "WISP_PROVIDER="+tr.format)
	if tr.format == "anthropic" {
		return append(env, "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL())
	}
	return append(env, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+srv.URL()+"/v1")
}

func TestKillHarness(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("the harness scans /proc for surviving processes")
	}
	bin := wispBinary(t)
	n := trialCount(t)
	signals := []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGHUP}
	formats := []string{"anthropic", "openai"}

	// A run left alone sets the window kill points fall in (per format in
	// a long run; the short one measures one and uses it for both).
	window := map[string]time.Duration{}
	for i, f := range formats {
		if i > 0 && n <= shortTrials {
			window[f] = window[formats[0]]
			continue
		}
		tr := newTrial(t, -1, f, 0, 0)
		d := tr.runToEnd(t, bin)
		// The first run of a binary pays for a cold page cache; kills
		// late in the window land after the end more often than not.
		window[f] = d * 9 / 10
		t.Logf("%s: an unkilled run takes %v", f, d.Round(time.Millisecond))
	}

	var trials []*trial
	for i := range n {
		f := formats[i%2]
		sig := signals[(i/2)%3]
		delay := time.Duration(rand.Int64N(int64(window[f])))
		tr := newTrial(t, i, f, sig, delay)
		tr.run(t, bin)
		trials = append(trials, tr)
		for _, fl := range tr.failures {
			t.Errorf("trial %d (%s, %v after %v, %s): %s", i, f, sig, delay.Round(time.Millisecond), tr.phase, fl)
		}
	}
	report(t, trials)
}

func newTrial(t *testing.T, n int, format string, sig syscall.Signal, delay time.Duration) *trial {
	base := t.TempDir()
	tr := &trial{n: n, format: format, sig: sig, delay: delay, base: base,
		home: filepath.Join(base, "home"), work: filepath.Join(base, "work"), tmp: filepath.Join(base, "tmp"),
		mark: strconv.Itoa(300000 + rand.IntN(400000))}
	for _, d := range []string{tr.home, tr.work, tr.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

var taskArgs = []string{"--allow-tool", "bash", "--allow-tool", "write", "--yes"}

// runToEnd runs the task without a kill and returns how long it took.
func (tr *trial) runToEnd(t *testing.T, bin string) time.Duration {
	srv, err := fake.Start(taskScript(tr.mark))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cmd := exec.Command(bin, append([]string{"-p", "do the task"}, taskArgs...)...)
	cmd.Dir, cmd.Env = tr.work, tr.env(srv)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the unkilled %s run failed: %v\n%s", tr.format, err, out)
	}
	reapSurvivors(tr.mark)
	return time.Since(start)
}

// run is one trial: start, kill, look, resume, check.
func (tr *trial) run(t *testing.T, bin string) {
	srv, err := fake.Start(taskScript(tr.mark))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cmd := exec.Command(bin, append([]string{"-p", "do the task"}, taskArgs...)...)
	cmd.Dir, cmd.Env = tr.work, tr.env(srv)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
		tr.phase = "after the run ended"
	case <-time.After(tr.delay):
		tr.phase = tr.killPoint()
		_ = cmd.Process.Signal(tr.sig)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			tr.fail("no exit", "wisp did not exit within 20 s of %v", tr.sig)
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	// A parent-death signal or a dying namespace takes a moment.
	time.Sleep(300 * time.Millisecond)
	if left := reapSurvivors(tr.mark); len(left) > 0 {
		tr.fail("survivor", "%d processes outlived wisp: %s", len(left), strings.Join(left, "; "))
	}
	tr.resume(t, bin)
}

// killPoint names where in the task the run is, from the transcript.
func (tr *trial) killPoint() string {
	recs, _ := readTranscript(tr.home)
	if recs == nil {
		return "before the session file"
	}
	assistants, results := 0, 0
	for _, r := range recs {
		if r.Type == "message" && r.Message != nil {
			switch {
			case r.Message.Role == "assistant":
				assistants++
			case hasToolResult(r.Message.Content):
				results += countToolResults(r.Message.Content)
			}
		}
	}
	switch {
	case assistants == 0:
		return "before the first response"
	case assistants == 1:
		return fmt.Sprintf("response 1, %d of 3 results", results)
	case assistants == 2:
		return fmt.Sprintf("response 2, %d of 2 results", results-3)
	}
	return "after the final answer"
}

// resume runs --continue against a fresh fake and checks its request.
func (tr *trial) resume(t *testing.T, bin string) {
	recs, _ := readTranscript(tr.home)
	recorded := recordedResults(recs)
	srv, err := fake.Start(fake.Script{Turns: []fake.Turn{{Text: "Resumed."}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cmd := exec.Command(bin, append([]string{"--continue", "-p", "what happened?"}, taskArgs...)...)
	cmd.Dir, cmd.Env = tr.work, tr.env(srv)
	out, err := cmd.CombinedOutput()
	if err != nil {
		tr.fail("resume failed", "%v: %s", err, firstLine(string(out)))
		return
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		tr.fail("resume failed", "no request reached the provider")
		return
	}
	validate := validateAnthropic
	if tr.format == "openai" {
		validate = validateOpenAI
	}
	calls, err := validate(reqs[0].Body)
	if err != nil {
		tr.fail("invalid request", "%v", err)
		return
	}
	tr.checkResults(calls, recorded)
	tr.checkAudit()
	if left, _ := filepath.Glob(filepath.Join(tr.tmp, "wisp-run-*")); len(left) > 0 {
		tr.fail("leftover", "scratch folders after the resumed run: %q", left)
	}
	reapSurvivors(tr.mark)
}

// checkResults compares what the resumed request says of each call with
// what happened: a call whose result was recorded must be sent with that
// result; a call whose side effect is on disk must not be "not run".
func (tr *trial) checkResults(calls []call, recorded map[string]string) {
	side, _ := os.ReadFile(filepath.Join(tr.work, "side.log"))
	_, wErr := os.Stat(filepath.Join(tr.work, "w.txt"))
	for _, c := range calls {
		started := false
		switch {
		case c.name == "write":
			started = wErr == nil
		case strings.Contains(c.input, "start-"):
			k := c.input[strings.Index(c.input, "start-")+6]
			started = bytes.Contains(side, []byte("start-"+string(k)+"\n"))
		}
		notRun := strings.Contains(c.result, "not run")
		if want, ok := recorded[c.id]; ok {
			if c.result != want {
				tr.fail("result lost", "call %s (%s) ran and its result %q is recorded, but the model was sent %q", c.id, c.name, firstLine(want), firstLine(c.result))
			}
			continue
		}
		if started && notRun {
			tr.fail("ran but reported not run", "call %s (%s) has its side effect on disk, but the model was told %q", c.id, c.name, firstLine(c.result))
		}
		if started && !strings.Contains(c.result, "interrupted") {
			tr.fail("unexpected result", "call %s (%s) started and has no recorded result; the model was told %q", c.id, c.name, firstLine(c.result))
		}
	}
}

// reapSurvivors finds the processes whose command line or environment
// carries mark, kills them (so one trial cannot spoil the next) and
// describes them.
func reapSurvivors(mark string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if !bytes.Contains(cmdline, []byte(mark)) && !bytes.Contains(environ, []byte("WISP_KILL_MARK="+mark)) {
			continue
		}
		if stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); bytes.Contains(stat, []byte(") Z ")) {
			continue // a zombie has ended; its parent has not reaped it yet
		}
		out = append(out, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// report logs the figures: trials, kill points, failures by kind.
func report(t *testing.T, trials []*trial) {
	phases := map[string]int{}
	kinds := map[string]int{}
	bySig := map[string]int{}
	failed := 0
	for _, tr := range trials {
		phases[tr.phase]++
		bySig[fmt.Sprintf("%s/%v", tr.format, tr.sig)]++
		if len(tr.failures) > 0 {
			failed++
		}
		seen := map[string]bool{}
		for _, f := range tr.failures {
			kind, _, _ := strings.Cut(f, ":")
			if !seen[kind] {
				kinds[kind]++
				seen[kind] = true
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "kill harness: %d trials, %d with failures\n", len(trials), failed)
	for _, m := range []struct {
		name string
		m    map[string]int
	}{{"trials by format/signal", bySig}, {"kill points", phases}, {"trials failing, by kind", kinds}} {
		fmt.Fprintf(&b, "  %s:\n", m.name)
		keys := make([]string, 0, len(m.m))
		for k := range m.m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "    %-40s %d\n", k, m.m[k])
		}
	}
	t.Log(b.String())
	if path := os.Getenv("WISP_KILL_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// checkAudit: after the resume, every call the audit saw come to the
// gate (tool.call) has its tool.result, also the one the kill cut short.
func (tr *trial) checkAudit() {
	data, err := os.ReadFile(filepath.Join(tr.home, ".wisp", "logs", "audit.jsonl"))
	if err != nil {
		tr.fail("audit", "read the audit log: %v", err)
		return
	}
	called, ended := map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct{ Call, Kind string }
		if json.Unmarshal([]byte(line), &e) != nil || e.Call == "" {
			continue
		}
		switch e.Kind {
		case "tool.call":
			called[e.Call] = true
		case "tool.result":
			ended[e.Call] = true
		}
	}
	for id := range called {
		if !ended[id] {
			tr.fail("audit", "call %s has a tool.call and no tool.result after the resume", id)
		}
	}
}
