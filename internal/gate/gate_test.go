package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/gate/gatetest"
	"github.com/wisp-agent/wisp/internal/policy"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
	"github.com/wisp-agent/wisp/internal/tool/builtin/bashtool"
)

func TestMain(m *testing.M) { gatetest.Main(m) }

// world is the shared test world, with this file's shorthand.
type world struct{ *gatetest.World }

func newWorld(t *testing.T, mod func(*gate.Options)) *world {
	return &world{gatetest.New(t, mod)}
}

func (w *world) run(t *testing.T, id string, tl tool.Tool, args string) tool.Result {
	return w.Run(t, id, tl, args)
}

func (w *world) lines(t *testing.T, call string) map[string][]audit.Line { return w.Kinds(t, call) }

func outcome(t *testing.T, l audit.Line) audit.CommandOutcome {
	t.Helper()
	d, err := l.Decode()
	if err != nil {
		t.Fatal(err)
	}
	return d.(audit.CommandOutcome)
}

func bashArgs(line string) string {
	b, _ := json.Marshal(map[string]string{"command": line})
	return string(b)
}

func requireLandlock(t *testing.T) {
	if _, ok := sandbox.Available(); !ok {
		t.Skip("Landlock is not available on this kernel")
	}
}

// TestSandboxEscapes really tries to get out and proves each attempt is
// refused, on the file system and in the audit.
func TestSandboxEscapes(t *testing.T) {
	requireLandlock(t)
	tests := []struct {
		name string
		line func(w *world) string
		// victim is the path that must not exist afterwards.
		victim func(w *world) string
	}{
		{
			name:   "write outside the workspace",
			line:   func(w *world) string { return "echo x > " + filepath.Join(w.Outside, "escaped.txt") },
			victim: func(w *world) string { return filepath.Join(w.Outside, "escaped.txt") },
		},
		{
			name:   "write under the wisp home",
			line:   func(w *world) string { return "echo '{}' > " + filepath.Join(w.WispHome, "approvals.json") },
			victim: func(w *world) string { return filepath.Join(w.WispHome, "approvals.json") },
		},
		{
			name: "write through a symlink that points out",
			line: func(w *world) string {
				return "ln -s " + w.Outside + " link && echo x > link/through.txt"
			},
			victim: func(w *world) string { return filepath.Join(w.Outside, "through.txt") },
		},
		{
			name: "create a protected file that does not exist yet, outside",
			line: func(w *world) string {
				return "mkdir -p " + filepath.Join(w.Home, ".ssh") + " && echo key > " + filepath.Join(w.Home, ".ssh", "id_ed25519")
			},
			victim: func(w *world) string { return filepath.Join(w.Home, ".ssh", "id_ed25519") },
		},
		{
			name:   "append to a shell profile",
			line:   func(w *world) string { return "echo 'export EVIL=1' >> " + filepath.Join(w.Home, ".bashrc") },
			victim: func(w *world) string { return filepath.Join(w.Home, ".bashrc") },
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, nil)
			id := fmt.Sprintf("c%d", i)
			res := w.run(t, id, bashtool.New(), bashArgs(tc.line(w)))
			if _, err := os.Lstat(tc.victim(w)); err == nil {
				t.Fatalf("%s exists: the sandbox let the write through\n%s", tc.victim(w), res.Content)
			}
			if !strings.Contains(res.Content, "sandbox refused writing") {
				t.Errorf("the model is not told the sandbox refused it:\n%s", res.Content)
			}
			got := w.lines(t, id)
			if len(got[audit.KindCommandOutcome]) != 1 {
				t.Fatalf("want one command.outcome line, got %d kinds:\n%s", len(got), res.Content)
			}
			o := outcome(t, got[audit.KindCommandOutcome][0])
			if !o.Sandboxed || o.ExitCode == 0 || o.SandboxRefusal == "" {
				t.Errorf("command.outcome = %+v, want sandboxed, failed, with the refused path", o)
			}
		})
	}
}

// With the network off, a connect to a loopback port is refused.
func TestSandboxNetworkOff(t *testing.T) {
	requireLandlock(t)
	if abi, _ := sandbox.Available(); abi < sandbox.NetworkABI {
		t.Skipf("Landlock ABI %d cannot deny the network", abi)
	}
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	var lc net.ListenConfig
	lc.SetMultipathTCP(false)
	ln, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
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
	line := fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected'", port)
	for _, allow := range []bool{false, true} {
		t.Run(fmt.Sprintf("allowNetwork=%v", allow), func(t *testing.T) {
			w := newWorld(t, func(o *gate.Options) { o.Sandbox.AllowNetwork = allow })
			res := w.run(t, "net", bashtool.New(), bashArgs(line))
			connected := strings.Contains(res.Content, "connected")
			if connected != allow {
				t.Fatalf("allowNetwork=%v but connected=%v:\n%s", allow, connected, res.Content)
			}
			o := outcome(t, w.lines(t, "net")[audit.KindCommandOutcome][0])
			if !o.Sandboxed || (o.ExitCode == 0) != allow {
				t.Errorf("command.outcome = %+v", o)
			}
		})
	}
}

// The file tools refuse protected paths and paths outside the workspace,
// even for paths that do not exist yet; the model reads a plain error.
func TestFileConfinement(t *testing.T) {
	w := newWorld(t, nil)
	if err := os.Symlink(w.Outside, filepath.Join(w.Work, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, args, want string }{
		{"new .env", `{"path":".env","content":"A=1"}`, "error: protected path: .env"},
		{"new pem in a new folder", `{"path":"certs/new.pem","content":"x"}`, "error: protected path: certs/new.pem"},
		{"git hook", `{"path":".git/hooks/pre-commit","content":"x"}`, "error: protected path"},
		{"through a symlink out", `{"path":"out/x.txt","content":"x"}`, "error: path outside the workspace: out/x.txt"},
		{"absolute outside", `{"path":"` + filepath.Join(w.Outside, "y") + `","content":"x"}`, "error: path outside the workspace"},
		{"wisp home", `{"path":"` + filepath.Join(w.WispHome, "config.json") + `","content":"{}"}`, "error: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := w.run(t, "f", builtin.Write(), tc.args)
			if !res.IsError || !strings.HasPrefix(res.Content, tc.want) {
				t.Errorf("got %q, want prefix %q", res.Content, tc.want)
			}
		})
	}
	entries, _ := os.ReadDir(w.Outside)
	if len(entries) != 0 {
		t.Errorf("files appeared outside the workspace: %v", entries)
	}
	res := w.run(t, "ok", builtin.Write(), `{"path":"fine.txt","content":"ok"}`)
	if res.IsError {
		t.Fatalf("a plain write failed: %s", res.Content)
	}
	fw := w.lines(t, "ok")[audit.KindFileWrite]
	if len(fw) != 1 {
		t.Fatalf("want a file.write audit line, got %v", fw)
	}
}

// countingApprover answers with a fixed answer and counts the questions.
type countingApprover struct {
	answer gate.Answer
	asked  []gate.Request
}

func (c *countingApprover) Approve(_ context.Context, r gate.Request) (gate.Answer, error) {
	c.asked = append(c.asked, r)
	return c.answer, nil
}

func TestApprovalScopes(t *testing.T) {
	t.Run("a remembered pattern is not asked again, another verb is", func(t *testing.T) {
		ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeSession}}
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
		w.run(t, "a", bashtool.New(), bashArgs("git init -q"))
		w.run(t, "b", bashtool.New(), bashArgs("git init -q again"))
		w.run(t, "c", bashtool.New(), bashArgs("git commit --allow-empty -qm x"))
		if len(ap.asked) != 2 || ap.asked[0].Pattern != "git init" || ap.asked[1].Pattern != "git commit" {
			t.Errorf("asked %+v, want git init then git commit", ap.asked)
		}
		if by := decidedBy(t, w, "b"); by != "remembered" {
			t.Errorf("second git init decided by %q, want remembered", by)
		}
	})
	t.Run("dangerous is never persisted", func(t *testing.T) {
		ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeAlways}}
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
		w.run(t, "d", bashtool.New(), bashArgs("x=true; $x"))
		if _, err := os.Stat(filepath.Join(w.WispHome, "approvals.json")); err == nil {
			data, _ := os.ReadFile(filepath.Join(w.WispHome, "approvals.json"))
			if strings.Contains(string(data), "pattern") {
				t.Errorf("a dangerous approval was persisted: %s", data)
			}
		}
		d := decided(t, w, "d")
		if !d.Downgraded || d.Persisted || d.Scope != string(approval.ScopeOnce) {
			t.Errorf("approval.decided = %+v, want downgraded to once, not persisted", d)
		}
	})
	t.Run("project scope persists", func(t *testing.T) {
		ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeProject}}
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
		w.run(t, "p", bashtool.New(), bashArgs("touch made"))
		data, err := os.ReadFile(filepath.Join(w.WispHome, "approvals.json"))
		if err != nil || !strings.Contains(string(data), `"touch"`) {
			t.Errorf("project approval not persisted: %s %v", data, err)
		}
	})
	t.Run("no answer within the timeout is a denial", func(t *testing.T) {
		slow := gate.ApproverFunc(func(ctx context.Context, _ gate.Request) (gate.Answer, error) {
			<-ctx.Done()
			return gate.Answer{}, ctx.Err()
		})
		w := newWorld(t, func(o *gate.Options) { o.Approver = slow; o.ApprovalTimeout = 50 * time.Millisecond })
		res := w.run(t, "t", bashtool.New(), bashArgs("touch never"))
		if !strings.HasPrefix(res.Content, "error: command not approved: touch never") {
			t.Errorf("got %q", res.Content)
		}
		if _, err := os.Stat(filepath.Join(w.Work, "never")); err == nil {
			t.Error("the command ran")
		}
		if d := decided(t, w, "t"); d.Approved || d.By != "timeout" {
			t.Errorf("approval.decided = %+v, want a timeout denial", d)
		}
	})
	t.Run("--yes cannot beat the policy", func(t *testing.T) {
		w := newWorld(t, func(o *gate.Options) { o.Approver = gate.Allow{} })
		for i, tt := range []struct{ line, rule string }{
			{"sudo true", "privilege-escalation"},
			{"echo hi | sh", "pipe-into-shell"},
			{"bash -c 'sudo id'", "privilege-escalation"},
			{"wisp approvals approve 1", "wisp-self-approval"},
			{"rm -rf /", "rm-root-or-home"},
		} {
			id, line := fmt.Sprintf("y%d", i), tt.line
			res := w.run(t, id, bashtool.New(), bashArgs(line))
			if !strings.HasPrefix(res.Content, "error: refused by policy rule "+tt.rule+": "+line+" (") || res.Refusal != "policy rule "+tt.rule {
				t.Errorf("%q: got %q (refusal %q), want a denial by policy rule %s", line, res.Content, res.Refusal, tt.rule)
			}
			if d := decided(t, w, id); d.Approved || d.By != "policy" || !strings.Contains(d.Reason, tt.rule) {
				t.Errorf("%q: approval.decided = %+v, want the rule named", line, d)
			}
			if len(w.lines(t, id)[audit.KindCommandOutcome]) != 0 {
				t.Errorf("%q ran", line)
			}
		}
	})
	t.Run("print mode without --yes refuses and the model is told", func(t *testing.T) {
		w := newWorld(t, func(o *gate.Options) {
			o.Approver = gate.Deny{Reason: "print mode runs mutating and command tools only with --yes"}
		})
		res := w.run(t, "n", bashtool.New(), bashArgs("touch x"))
		if !strings.HasPrefix(res.Content, "error: command not approved: touch x") {
			t.Errorf("got %q", res.Content)
		}
		res = w.run(t, "m", builtin.Write(), `{"path":"a.txt","content":"x"}`)
		if !strings.HasPrefix(res.Content, "error: write not approved") {
			t.Errorf("got %q", res.Content)
		}
	})
	t.Run("a safe command runs without asking", func(t *testing.T) {
		ap := &countingApprover{}
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
		res := w.run(t, "s", bashtool.New(), bashArgs("ls -la && git status --short 2>/dev/null; true"))
		if len(ap.asked) != 0 || res.IsError {
			t.Errorf("asked %v, result %q", ap.asked, res.Content)
		}
	})
	t.Run("a denial of any part refuses the line", func(t *testing.T) {
		ap := gate.ApproverFunc(func(_ context.Context, r gate.Request) (gate.Answer, error) {
			return gate.Answer{Allow: r.Pattern != "rm", Scope: approval.ScopeOnce}, nil
		})
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
		if err := os.WriteFile(filepath.Join(w.Work, "keep"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		res := w.run(t, "r", bashtool.New(), bashArgs("touch a && rm keep"))
		if !strings.HasPrefix(res.Content, "error: command not approved") {
			t.Errorf("got %q", res.Content)
		}
		for _, f := range []string{"a", "keep"} {
			_, err := os.Stat(filepath.Join(w.Work, f))
			if (f == "a") != errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: the line partly ran (%v)", f, err)
			}
		}
	})
}

func decided(t *testing.T, w *world, call string) audit.ApprovalDecided {
	t.Helper()
	ls := w.lines(t, call)[audit.KindApprovalDecided]
	if len(ls) == 0 {
		t.Fatalf("no approval.decided for %s", call)
	}
	d, err := ls[len(ls)-1].Decode()
	if err != nil {
		t.Fatal(err)
	}
	return d.(audit.ApprovalDecided)
}

func decidedBy(t *testing.T, w *world, call string) string { return decided(t, w, call).By }

// noop is a command tool that runs nothing, to measure the gate alone.
type noop struct{}

func (noop) Spec() tool.Spec {
	return tool.Spec{Name: "bash", Schema: json.RawMessage(`{}`), Class: tool.Command}
}
func (noop) CommandLine(json.RawMessage) (string, error) { return "git status --short", nil }
func (noop) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: "ok", Command: &tool.CommandOutcome{}}, nil
}

// BenchmarkGateSafeCommand measures the gate's own cost for a safe
// command (policy, cached classification, approval check, .git guard,
// audit lines), excluding the command and the sandbox exec. The baseline
// is the same call with the audit off, and the policy check alone.
// Beside them: a line the gate has never seen (no kept policy decision,
// no cached verdict), and a workspace that is a git repository, whose
// guarded files are read before and after every command.
func BenchmarkGateSafeCommand(b *testing.B) {
	dir := b.TempDir()
	log, err := audit.Open(filepath.Join(dir, "logs"), audit.Options{Version: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	const line = "git status --short"
	for _, tc := range []struct {
		name string
		log  *audit.Log
	}{{"audited", log}, {"no-audit", nil}} {
		b.Run(tc.name, func(b *testing.B) { benchGate(b, dir, tc.log, nil) })
	}
	b.Run("policy-only", func(b *testing.B) {
		p, _ := policy.Compile(nil, nil)
		for b.Loop() {
			p.Check(line)
		}
	})
	b.Run("audited-new-line", func(b *testing.B) {
		benchGate(b, dir, log, func(i int) string { return fmt.Sprintf("%s -- file%d.go", line, i) })
	})
	b.Run("policy-only-new-line", func(b *testing.B) {
		p, _ := policy.Compile(nil, nil)
		i := 0
		for b.Loop() {
			i++
			p.Check(fmt.Sprintf("%s -- file%d.go", line, i))
		}
	})
	b.Run("audited-repo", func(b *testing.B) {
		if _, err := exec.LookPath("git"); err != nil {
			b.Skip("needs git")
		}
		repo := b.TempDir()
		if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
			b.Fatalf("git init: %v %s", err, out)
		}
		benchGate(b, repo, log, nil)
	})
}

// benchGate runs safe command calls through a gate in workdir: the i-th
// with the line line(i), or git status --short every time when line is
// nil.
func benchGate(b *testing.B, workdir string, log *audit.Log, line func(int) string) {
	// The sandbox as on a machine with the auto-run profile, so that the
	// safe line takes its usual path: nobody is asked.
	g := gate.New(gate.Options{Approver: gate.Allow{}, Threshold: approval.ThresholdModerate, Audit: log,
		Sandbox: sandbox.Config{Enabled: true, Workdir: workdir}, Sandboxed: true,
		Support: &sandbox.Support{AutoRun: true, Containment: sandbox.ContainCgroup}})
	var t tool.Tool = noop{}
	c := gate.Call{ID: "c", Name: "bash", Args: json.RawMessage(`{"command":"git status --short"}`)}
	if line != nil {
		t = lineTool{}
	}
	i := 0
	for b.Loop() {
		i++
		if line != nil {
			c.Args = json.RawMessage(bashArgs(line(i)))
		}
		res, err := g.Run(context.Background(), c, t, tool.Env{Workdir: workdir})
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, res.Content)
		}
	}
}

// lineTool is a command tool that runs nothing: it reports its line and
// a clean exit.
type lineTool struct{ noop }

func (lineTool) CommandLine(args json.RawMessage) (string, error) {
	var a struct{ Command string }
	err := json.Unmarshal(args, &a)
	return a.Command, err
}

// A command may not plant what git would run outside the sandbox: hooks,
// and config keys that run programs. Ordinary git work stays.
func TestGitGuard(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	w := newWorld(t, nil)
	init := exec.Command("git", "init", "-q")
	init.Dir = w.Work
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	line := "printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && " +
		"git config core.fsmonitor 'touch pwned' && git config user.name wisp && git config alias.x '!touch pwned' && " +
		"echo ../elsewhere > .git/commondir"
	res := w.run(t, "g", bashtool.New(), bashArgs(line))
	if !strings.Contains(res.Content, "gate: restored") {
		t.Fatalf("the model is not told:\n%s", res.Content)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".git/commondir"} {
		if _, err := os.Stat(filepath.Join(w.Work, p)); err == nil {
			t.Errorf("%s survived", p)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(w.Work, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(cfg), "fsmonitor") || strings.Contains(string(cfg), "!touch") {
		t.Errorf("dangerous config survived:\n%s", cfg)
	}
	o := outcome(t, w.lines(t, "g")[audit.KindCommandOutcome][0])
	if !strings.Contains(o.SandboxRefusal, ".git/hooks/pre-commit") {
		t.Errorf("command.outcome = %+v, want the restore recorded", o)
	}

	// Ordinary git work is left alone.
	res = w.run(t, "ok", bashtool.New(), bashArgs("git config user.email a@b.c && git remote add origin https://example.com/r.git"))
	if strings.Contains(res.Content, "restored") {
		t.Errorf("ordinary config was reverted:\n%s", res.Content)
	}
	cfg, _ = os.ReadFile(filepath.Join(w.Work, ".git", "config"))
	if !strings.Contains(string(cfg), "a@b.c") || !strings.Contains(string(cfg), "[remote \"origin\"]") {
		t.Errorf("config lost ordinary changes:\n%s", cfg)
	}
}

// The model cannot raise the configured command timeout.
func TestCommandTimeoutIsALimit(t *testing.T) {
	w := newWorld(t, func(o *gate.Options) { o.CommandTimeout = 300 * time.Millisecond })
	res := w.run(t, "slow", bashtool.New(), `{"command":"sleep 5; echo finished","timeout":30}`)
	if strings.Contains(res.Content, "finished") || !strings.Contains(res.Content, "limited to") {
		t.Fatalf("the model's timeout beat the configured one:\n%s", res.Content)
	}
	if o := outcome(t, w.lines(t, "slow")[audit.KindCommandOutcome][0]); !o.TimedOut {
		t.Errorf("command.outcome = %+v, want timed out", o)
	}
}

// What the classifier judges is what runs: a line that is one safe echo
// to bash must not run a second command in the shell that executes it.
func TestJudgedDialectIsRunDialect(t *testing.T) {
	w := newWorld(t, func(o *gate.Options) { o.Approver = gate.Deny{Reason: "no"} })
	line := `echo $'\' ; touch pwned ; #'`
	res := w.run(t, "d", bashtool.New(), bashArgs(line))
	if _, err := os.Stat(filepath.Join(w.Work, "pwned")); err == nil {
		t.Fatalf("a second command ran:\n%s", res.Content)
	}
}

// shellSpy is a command tool that builds its process with the shell the
// gate hands it and records the sandbox configuration that process would
// get, without running anything.
type shellSpy struct {
	line string
	cfgs []sandbox.Config
}

func (s *shellSpy) Spec() tool.Spec {
	return tool.Spec{Name: "spy", Schema: json.RawMessage(`{}`), Class: tool.Command}
}
func (s *shellSpy) CommandLine(json.RawMessage) (string, error) { return s.line, nil }
func (s *shellSpy) Run(_ context.Context, env *tool.Env, _ json.RawMessage) (tool.Result, error) {
	cmd := env.Shell(s.line, env.Workdir)
	var cfg sandbox.Config // Enabled false: a plain shell
	if len(cmd.Args) > 2 && cmd.Args[1] == sandbox.HelperArg {
		if err := json.Unmarshal([]byte(cmd.Args[2]), &cfg); err != nil {
			return tool.Result{}, err
		}
	}
	s.cfgs = append(s.cfgs, cfg)
	return tool.Result{Content: "ok", Command: &tool.CommandOutcome{}}, nil
}

// TestProfiles: a line nobody was asked about runs in the auto-run
// profile; a line a person approved (asked, remembered or --yes) in the
// approved one; and where the auto-run profile cannot be built, a line
// that would have run unasked is asked instead.
func TestProfiles(t *testing.T) {
	autoRun := &sandbox.Support{AutoRun: true, Containment: sandbox.ContainCgroup, PidsMax: 512}
	noNS := &sandbox.Support{AutoRunWhy: "user namespaces are disabled"}
	yes := gate.Answer{Allow: true, Scope: approval.ScopeOnce}
	tests := []struct {
		name      string
		line      string
		support   *sandbox.Support
		sandboxed bool
		threshold approval.Threshold
		answer    gate.Answer
		remember  string // a pattern remembered for the session first
		asked     int
		ran       bool
		autoRun   bool
		profile   string
		refusal   string // a part of the refusal when it did not run
	}{
		{name: "safe line runs unasked in auto-run", line: "ls -la", support: autoRun, sandboxed: true,
			threshold: approval.ThresholdModerate, ran: true, autoRun: true, profile: audit.ProfileAutoRun},
		{name: "asked line runs approved", line: "touch x", support: autoRun, sandboxed: true,
			threshold: approval.ThresholdModerate, answer: yes, asked: 1, ran: true, profile: audit.ProfileApproved},
		{name: "remembered line runs approved", line: "touch x", support: autoRun, sandboxed: true,
			threshold: approval.ThresholdModerate, remember: "touch", ran: true, profile: audit.ProfileApproved},
		{name: "--yes runs approved", line: "git push", support: autoRun, sandboxed: true,
			threshold: approval.ThresholdModerate, answer: gate.Answer{Allow: true, Scope: approval.ScopeOnce, By: "flag"}, asked: 1, ran: true, profile: audit.ProfileApproved},
		{name: "threshold never runs everything in auto-run", line: "touch x", support: autoRun, sandboxed: true,
			threshold: approval.ThresholdNever, ran: true, autoRun: true, profile: audit.ProfileAutoRun},
		{name: "no auto-run: a safe line is asked", line: "ls -la", support: noNS, sandboxed: true,
			threshold: approval.ThresholdModerate, answer: yes, asked: 1, ran: true, profile: audit.ProfileApproved},
		{name: "no auto-run, print mode without --yes: refused naming why", line: "ls -la", support: noNS, sandboxed: true,
			threshold: approval.ThresholdModerate, answer: gate.Answer{Reason: "print mode runs command tools only with --yes", By: "mode"}, asked: 1,
			refusal: "user namespaces are disabled"},
		{name: "threshold never without auto-run still asks", line: "touch x", support: noNS, sandboxed: true,
			threshold: approval.ThresholdNever, answer: yes, asked: 1, ran: true, profile: audit.ProfileApproved},
		{name: "sandbox off: a safe line is asked and runs unsandboxed", line: "ls", support: autoRun, sandboxed: false,
			threshold: approval.ThresholdModerate, answer: yes, asked: 1, ran: true, profile: audit.ProfileUnsandboxed},
		{name: "sandbox off, refused", line: "ls", support: autoRun, sandboxed: false,
			threshold: approval.ThresholdModerate, answer: gate.Answer{Reason: "no"}, asked: 1, refusal: "Landlock is not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ap := &countingApprover{answer: tt.answer}
			w := newWorld(t, func(o *gate.Options) {
				o.Approver, o.Support, o.Sandboxed, o.Threshold = ap, tt.support, tt.sandboxed, tt.threshold
			})
			if tt.remember != "" {
				if _, err := w.Store.Remember(tt.remember, shell.Moderate, approval.ScopeSession); err != nil {
					t.Fatal(err)
				}
			}
			spy := &shellSpy{line: tt.line}
			res := w.run(t, "p", spy, `{}`)
			if len(ap.asked) != tt.asked {
				t.Errorf("asked %d times, want %d: %+v", len(ap.asked), tt.asked, ap.asked)
			}
			if ran := len(spy.cfgs) > 0; ran != tt.ran {
				t.Fatalf("ran = %v, want %v (%q)", ran, tt.ran, res.Content)
			}
			if !tt.ran {
				if !strings.HasPrefix(res.Content, "error: command not approved: "+tt.line) || !strings.Contains(res.Content, tt.refusal) {
					t.Errorf("refusal %q does not name %q", res.Content, tt.refusal)
				}
				return
			}
			cfg := spy.cfgs[0]
			if cfg.Enabled != tt.sandboxed || cfg.AutoRun != tt.autoRun {
				t.Errorf("sandbox config %+v, want enabled %v, auto-run %v", cfg, tt.sandboxed, tt.autoRun)
			}
			o := gatetest.Decode[audit.CommandOutcome](t, w.Lines(t, "p"), audit.KindCommandOutcome)
			wantContainment := ""
			if tt.sandboxed {
				wantContainment = tt.support.Containment
			}
			if o.Profile != tt.profile || o.Containment != wantContainment {
				t.Errorf("audited profile %q, containment %q; want %q, %q", o.Profile, o.Containment, tt.profile, wantContainment)
			}
		})
	}
}

// TestOnceApprovesOneCall: a once answer lets that call run and nothing
// else. A second, different call of the same pattern in the same turn is
// asked again (it used to run unasked).
func TestOnceApprovesOneCall(t *testing.T) {
	ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeOnce}}
	w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
	for _, c := range []struct{ id, line string }{
		{"a", "touch first"},
		{"b", "touch second && rm first"},
		{"c", "touch third"},
	} {
		if res := w.run(t, c.id, bashtool.New(), bashArgs(c.line)); res.IsError {
			t.Fatalf("%s: %s", c.line, res.Content)
		}
	}
	var got []string
	for _, r := range ap.asked {
		got = append(got, r.Part)
	}
	if want := []string{"touch first", "touch second", "rm first", "touch third"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("asked about %q, want %q", got, want)
	}
	for _, id := range []string{"b", "c"} {
		if by := decidedBy(t, w, id); by != "user" {
			t.Errorf("call %s decided by %q, want user", id, by)
		}
	}
	t.Run("within one call, the same pattern is asked once", func(t *testing.T) {
		ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeOnce}}
		w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
		w.run(t, "d", bashtool.New(), bashArgs("touch a; touch b"))
		if len(ap.asked) != 1 {
			t.Errorf("asked %d times, want once", len(ap.asked))
		}
	})
}

// TestDangerousNeverRemembered: whatever scope is answered, a dangerous
// line is asked about every time: no remembered answer covers it, not
// even one given for a moderate part of the same pattern, or for another
// part of the line.
func TestDangerousNeverRemembered(t *testing.T) {
	for _, scope := range []approval.Scope{approval.ScopeSession, approval.ScopeProject, approval.ScopeAlways} {
		t.Run(string(scope), func(t *testing.T) {
			ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: scope}}
			w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
			spy := &shellSpy{}
			for i, line := range []string{
				"git push --force", "git push --force", // dangerous, twice
				"git push", "git push --force", // moderate remembered, then dangerous of that pattern
				"curl http://x", "curl http://x; git push -f", // a remembered part in a dangerous line
			} {
				spy.line = line
				w.run(t, fmt.Sprintf("d%d", i), spy, `{}`)
			}
			var got []string
			for _, r := range ap.asked {
				got = append(got, r.Part)
			}
			want := []string{"git push --force", "git push --force", "git push", "git push --force", "curl http://x", "curl http://x", "git push -f"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("asked about %q\nwant %q", got, want)
			}
			for _, r := range ap.asked {
				if strings.HasPrefix(r.Part, "git push -") && r.Level != shell.Dangerous {
					t.Fatalf("%q asked as %v; the test needs it dangerous", r.Part, r.Level)
				}
			}
			d := decided(t, w, "d0")
			if d.Scope != string(approval.ScopeOnce) || !d.Downgraded || d.Persisted {
				t.Errorf("approval.decided %+v, want once and downgraded", d)
			}
		})
	}
}

// TestSensitiveWritesAreDangerous: a file tool writing where programs run
// outside the sandbox is asked about every time and never remembered;
// a link does not hide the target.
func TestSensitiveWritesAreDangerous(t *testing.T) {
	ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeAlways}}
	w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
	if err := os.MkdirAll(filepath.Join(w.Work, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(w.Work, ".github"), filepath.Join(w.Work, "docs")); err != nil {
		t.Fatal(err)
	}
	calls := []struct{ path string }{
		{".envrc"}, {".envrc"}, {".github/workflows/ci.yml"}, {"docs/workflows/x.yml"}, {"sub/../.husky/pre-commit"},
	}
	for i, c := range calls {
		w.run(t, fmt.Sprintf("s%d", i), builtin.Write(), fmt.Sprintf(`{"path":%q,"content":"x"}`, c.path))
	}
	if len(ap.asked) != len(calls) {
		t.Fatalf("asked %d times, want %d (every time)", len(ap.asked), len(calls))
	}
	for i, r := range ap.asked {
		if r.Level != shell.Dangerous || r.Pattern != "" {
			t.Errorf("%s asked as %v with pattern %q, want dangerous and nothing to remember", calls[i].path, r.Level, r.Pattern)
		}
	}
	// An ordinary file is moderate and remembered by its pattern.
	w.run(t, "o1", builtin.Write(), `{"path":"a.txt","content":"x"}`)
	w.run(t, "o2", builtin.Write(), `{"path":"b.txt","content":"x"}`)
	if len(ap.asked) != len(calls)+1 {
		t.Errorf("ordinary writes asked %d times, want once", len(ap.asked)-len(calls))
	}
	if data, _ := os.ReadFile(filepath.Join(w.WispHome, "approvals.json")); strings.Contains(string(data), `"pattern": ""`) {
		t.Errorf("an empty pattern was remembered: %s", data)
	}
}

// TestAuditFailureFailsClosed: when an audit line cannot be written,
// command and mutating calls are refused with the exact error and
// nothing runs; reads go on; one error event says why.
func TestAuditFailureFailsClosed(t *testing.T) {
	var mu sync.Mutex
	var errs []string
	sink := func(e event.Event) {
		if e, ok := e.(event.Error); ok {
			mu.Lock()
			errs = append(errs, e.Error)
			mu.Unlock()
		}
	}
	w := newWorld(t, func(o *gate.Options) { o.Approver = gate.Allow{}; o.Sink = sink })
	w.BreakAudit(t)
	if res := w.run(t, "c1", bashtool.New(), bashArgs("touch ran1")); !strings.HasPrefix(res.Content, "error: audit log unavailable: ") {
		t.Errorf("first command after the failure: %q", res.Content)
	}
	tests := []struct {
		name, id string
		tl       tool.Tool
		args     string
		victim   string
	}{
		{"safe command", "c2", bashtool.New(), bashArgs("ls > ran2"), "ran2"},
		{"approved command", "c3", bashtool.New(), bashArgs("touch ran3"), "ran3"},
		{"write", "c4", builtin.Write(), `{"path":"ran4","content":"x"}`, "ran4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := w.run(t, tt.id, tt.tl, tt.args)
			if !res.IsError || !strings.HasPrefix(res.Content, "error: audit log unavailable: ") {
				t.Errorf("got %q, want error: audit log unavailable: …", res.Content)
			}
			if _, err := os.Stat(filepath.Join(w.Work, tt.victim)); err == nil {
				t.Error("it ran")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(w.Work, "ran1")); err == nil {
		t.Error("the first command ran")
	}
	if err := os.WriteFile(filepath.Join(w.Work, "r.txt"), []byte("readable"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := w.run(t, "r", builtin.Read(), `{"path":"r.txt"}`); res.IsError || !strings.Contains(res.Content, "readable") {
		t.Errorf("a read was refused: %q", res.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "audit log unavailable: ") {
		t.Errorf("error events %q, want one that says why", errs)
	}
	if !strings.Contains(w.Gate.SandboxStatus(), "audit log unavailable") {
		t.Errorf("status does not say the gate refuses:\n%s", w.Gate.SandboxStatus())
	}
}

// TestFailClosed: another part (the transcript writer) can put the gate
// in the same refusing state with its own reason.
func TestFailClosed(t *testing.T) {
	w := newWorld(t, func(o *gate.Options) { o.Approver = gate.Allow{} })
	w.Gate.FailClosed("transcript unavailable: no space left on device")
	w.Gate.FailClosed("a later reason")
	for _, c := range []struct {
		tl   tool.Tool
		args string
	}{
		{bashtool.New(), bashArgs("touch x")},
		{bashtool.New(), bashArgs("ls")},
		{builtin.Edit(), `{"path":"x","old_text":"a","new_text":"b"}`},
	} {
		res := w.run(t, "f", c.tl, c.args)
		if res.Content != "error: transcript unavailable: no space left on device" {
			t.Errorf("%s: got %q", c.tl.Spec().Name, res.Content)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Work, "x")); err == nil {
		t.Error("a command ran")
	}
	if got := w.Gate.Failed(); got != "transcript unavailable: no space left on device" {
		t.Errorf("Failed() = %q", got)
	}
	// The refusals are still audited: the log itself works.
	if res := gatetest.Decode[audit.ToolResult](t, w.Lines(t, "f"), audit.KindToolResult); !res.IsError {
		t.Errorf("tool.result %+v, want an error", res)
	}
}

// requireAutoRun skips a test that needs the auto-run profile where the
// machine cannot build it; under CI it fails instead, so that a green CI
// means the profile was exercised.
func requireAutoRun(t *testing.T) sandbox.Support {
	t.Helper()
	requireLandlock(t)
	s := sandbox.Probe()
	if !s.AutoRun {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI: the auto-run profile is unavailable: %s", s.AutoRunWhy)
		}
		t.Skipf("the auto-run profile is unavailable: %s", s.AutoRunWhy)
	}
	return s
}

// TestAutoRunForReal runs a safe line and an approved one through the
// real sandbox: the safe one unasked in the auto-run profile, without the
// network, the approved one in the approved profile; the audit and the
// status say which, and under what containment.
func TestAutoRunForReal(t *testing.T) {
	s := requireAutoRun(t)
	ap := &countingApprover{answer: gate.Answer{Allow: true, Scope: approval.ScopeOnce}}
	w := newWorld(t, func(o *gate.Options) { o.Approver = ap })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
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
			_ = c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// bash's /dev/tcp connects without any other program.
	probe := fmt.Sprintf("(exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo CONNECTED || echo REFUSED", port)
	res := w.run(t, "auto", bashtool.New(), bashArgs("ls"))
	if res.IsError || len(ap.asked) != 0 {
		t.Fatalf("safe line: asked %d, result %q", len(ap.asked), res.Content)
	}
	o := gatetest.Decode[audit.CommandOutcome](t, w.Lines(t, "auto"), audit.KindCommandOutcome)
	if o.Profile != audit.ProfileAutoRun || o.Containment != s.Containment || o.ExitCode != 0 {
		t.Errorf("safe line audited as %+v, want auto-run under %s", o, s.Containment)
	}
	res = w.run(t, "net", bashtool.New(), bashArgs(probe))
	if len(ap.asked) == 0 || !strings.Contains(res.Content, "CONNECTED") {
		t.Errorf("approved network line: asked %d, result %q", len(ap.asked), res.Content)
	}
	if o := gatetest.Decode[audit.CommandOutcome](t, w.Lines(t, "net"), audit.KindCommandOutcome); o.Profile != audit.ProfileApproved {
		t.Errorf("approved line audited as %q", o.Profile)
	}
	status := w.Gate.SandboxStatus()
	if !strings.Contains(status, "auto-run profile: on") || !strings.Contains(status, "containment: "+s.Containment) {
		t.Errorf("status:\n%s", status)
	}
	// With approval.threshold never, the same line runs unasked, and so
	// in the auto-run profile: no network.
	never := newWorld(t, func(o *gate.Options) { o.Approver = ap; o.Threshold = approval.ThresholdNever })
	asked := len(ap.asked)
	res = never.run(t, "never", bashtool.New(), bashArgs(probe))
	if len(ap.asked) != asked || !strings.Contains(res.Content, "REFUSED") {
		t.Errorf("unasked network line: asked %d, result %q", len(ap.asked)-asked, res.Content)
	}
	if o := gatetest.Decode[audit.CommandOutcome](t, never.Lines(t, "never"), audit.KindCommandOutcome); o.Profile != audit.ProfileAutoRun {
		t.Errorf("unasked line audited as %q", o.Profile)
	}
}

// TestAuditFailureBeforeTheRun: when nobody is asked, the lines written
// just before a call runs are the first to fail; the call is refused.
func TestAuditFailureBeforeTheRun(t *testing.T) {
	for _, c := range []struct {
		name, victim string
		tl           tool.Tool
		args         string
	}{
		{"write", "w.txt", builtin.Write(), `{"path":"w.txt","content":"x"}`},
		{"command", "c.txt", bashtool.New(), bashArgs("touch c.txt")},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, func(o *gate.Options) {
				o.Threshold = approval.ThresholdNever
				o.Support = &sandbox.Support{AutoRun: true}
			})
			w.BreakAudit(t)
			res := w.run(t, "x", c.tl, c.args)
			if !strings.HasPrefix(res.Content, "error: audit log unavailable: ") {
				t.Errorf("got %q", res.Content)
			}
			if _, err := os.Stat(filepath.Join(w.Work, c.victim)); err == nil {
				t.Error("it ran")
			}
		})
	}
}

// TestDenialWithANote: what the person says with a no reaches the model
// as the whole error and the audit as the reason; a plain no keeps the
// usual refusal.
func TestDenialWithANote(t *testing.T) {
	tests := []struct {
		name    string
		tl      tool.Tool
		args    string
		answer  gate.Answer
		want    string
		refusal string
	}{
		{"command with a note", bashtool.New(), bashArgs("touch x"), gate.Answer{Reason: "denied", Note: " use rg instead "},
			"error: the user denied this call: use rg instead", "the user denied this call: use rg instead"},
		{"file change with a note", builtin.Write(), `{"path":"a.txt","content":"x"}`, gate.Answer{Reason: "denied", Note: "write b.txt"},
			"error: the user denied this call: write b.txt", "the user denied this call: write b.txt"},
		{"a plain no", bashtool.New(), bashArgs("touch x"), gate.Answer{Reason: "denied"},
			"error: command not approved: touch x (denied", "not approved: denied"},
		{"a note with a yes is no denial", bashtool.New(), bashArgs("touch x"), gate.Answer{Allow: true, Scope: approval.ScopeOnce, Note: "ok"},
			"exit_code: 0", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, func(o *gate.Options) { o.Approver = &countingApprover{answer: tt.answer} })
			id := fmt.Sprintf("n%d", i)
			res := w.run(t, id, tt.tl, tt.args)
			if !strings.HasPrefix(res.Content, tt.want) || res.Refusal != tt.refusal {
				t.Errorf("got %q (refusal %q), want %q (refusal %q)", res.Content, res.Refusal, tt.want, tt.refusal)
			}
			if tt.answer.Allow {
				return
			}
			if d := decided(t, w, id); d.Approved || d.By != "user" || !strings.Contains(d.Reason, strings.TrimSpace(tt.answer.Note)) {
				t.Errorf("approval.decided = %+v, want the user's denial with the note", d)
			}
		})
	}
}
