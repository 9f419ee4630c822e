// Package gate is the one supervised path every tool call takes: policy
// deny/allow patterns, the risk classifier, approval (remembered answers,
// then a person), the OS sandbox and its profile, the timeout and output
// bound, and the audit record. A tool never decides any of that itself.
// Approvers are interfaces handed in: the gate never imports a frontend.
// A check that cannot decide asks; it never allows. The gate never
// decodes a tool's arguments itself: a command tool states the line it
// will run (tool.CommandLiner), a file tool the files it will change and
// a preview (tool.Mutator), and a tool that cannot say is refused.
//
// Two sandbox profiles: a command line that runs because nobody needed to
// be asked (every part below approval.threshold) runs in the auto-run
// profile (no network, no reading of secret locations); a line a person
// approved (asked, remembered, or --yes) runs in the approved profile,
// with the network as sandbox.allowNetwork says. Where the auto-run
// profile cannot be built, nothing runs unasked.
//
// The gate fails closed: once an audit line cannot be written (or a
// caller reports another durability failure with FailClosed), every later
// command and mutating call is refused; read-only calls go on.
package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/keys"
	"github.com/wisp-agent/wisp/internal/policy"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Request is what an approver is asked: one simple command of a line (or
// one file change), shown with the whole line.
type Request struct {
	CallID string
	Tool   string
	Class  tool.Class
	// Subject is the whole shell line, or the tool and its arguments.
	Subject string
	// Part is the simple command asked about (empty for file tools).
	Part    string
	Level   shell.Level
	Reasons []string
	// Pattern is what a remembered answer will cover (`git push`).
	Pattern string
	// Preview shows what a file tool will write (the start of the new
	// content, or each edit as -old/+new lines), for the person to read.
	Preview string
}

// Answer is a person's decision.
type Answer struct {
	Allow  bool
	Scope  approval.Scope
	Reason string
	// Note is what the person said with a denial (`n use rg instead`);
	// the model is told it, so that it can do what was asked instead.
	Note string
	// By says who answered, for the audit: user, flag (--yes) or mode
	// (print mode without --yes); empty means user.
	By string
}

// Approver answers approval requests. A cancelled context is a denial.
type Approver interface {
	Approve(ctx context.Context, req Request) (Answer, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req Request) (Answer, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req Request) (Answer, error) { return f(ctx, req) }

// Deny refuses every request, with the reason the model is told.
type Deny struct{ Reason string }

// Approve refuses.
func (d Deny) Approve(context.Context, Request) (Answer, error) {
	return Answer{Allow: false, Reason: d.Reason, By: "mode"}, nil
}

// Allow approves every request once (print mode with --yes). It never
// beats a policy denial: policy is checked before anyone is asked.
type Allow struct{}

// Approve approves for this call.
func (Allow) Approve(context.Context, Request) (Answer, error) {
	return Answer{Allow: true, Scope: approval.ScopeOnce, Reason: "--yes", By: "flag"}, nil
}

// Options configure a gate.
type Options struct {
	Approver Approver
	// ApprovalTimeout bounds a question; no answer is a denial (0: 600 s).
	ApprovalTimeout time.Duration
	// Policy is the command policy (nil: the defaults).
	Policy *policy.Policy
	// Classifier caches verdicts for the session (nil: a new cache).
	Classifier *shell.Cache
	// ShellOptions tell the classifier where lines run.
	ShellOptions shell.Options
	Threshold    approval.Threshold
	// Approvals remembers answers (nil: nothing is remembered).
	Approvals *approval.Store
	// Sandbox confines commands; Self is the wisp binary the helper
	// re-executes. Sandboxed is false when the sandbox is off or Landlock
	// is missing: commands then run plainly and are audited so.
	Sandbox   sandbox.Config
	Self      string
	Sandboxed bool
	// NoCommands, when set, is why every command call is refused before
	// it is judged or anyone is asked: commands would need the sandbox
	// helper and none can start, and nothing runs unsandboxed in its
	// place. File and read tools go on.
	NoCommands string
	// CommandTimeout, OutputBytes and OutputLines are the limits every
	// command call runs under.
	CommandTimeout           time.Duration
	OutputBytes, OutputLines int
	// Support is what the sandbox can do here (nil: sandbox.Probe()).
	// The auto-run profile is used only when Sandboxed and Support.AutoRun
	// are both true.
	Support *sandbox.Support
	// Protected says which absolute paths no file tool may touch.
	Protected func(abs string) bool
	Audit     *audit.Log
	Sink      event.Sink
	Session   string

	// Secrets are the provider keys (keys.Secrets) taken out of every
	// tool result before the model, the transcript or the audit sees it.
	Secrets []string
}

// Gate runs tool calls.
type Gate struct {
	opts Options
	// support is set once, by sandboxSupport.
	support     sandbox.Support
	supportOnce sync.Once
	mu          sync.Mutex
	// session is set once the transcript exists.
	session string
	// failed is why command and mutating calls are refused; "" while
	// everything is written as it should be.
	failed string
	// links keeps the gitlinks of the workspace's index files between
	// commands (gitlinks.go).
	links gitlinkCache
	// tooLarge is why the workspace is beyond the auto-run profile's
	// walk, found once (workspaceTooLarge).
	tooLarge     string
	tooLargeOnce sync.Once
	// roots are the folders commands may write (writableRoots).
	roots     []string
	rootsOnce sync.Once
}

// writableRoots are the folders commands may write, found once; nil
// (anywhere) when commands run unsandboxed.
func (g *Gate) writableRoots() []string {
	g.rootsOnce.Do(func() {
		if !g.opts.Sandboxed || !g.opts.Sandbox.Enabled {
			return
		}
		if r, err := sandbox.WritableRoots(g.opts.Sandbox); err == nil {
			g.roots = append([]string{}, r.Writable...)
		}
	})
	return g.roots
}

// workspaceTooLarge says, once a session, why the auto-run profile
// cannot hide this workspace's protected files ("" when it can). A
// workspace that grows past the bounds later makes the profile itself
// refuse to start.
func (g *Gate) workspaceTooLarge() string {
	g.tooLargeOnce.Do(func() {
		if g.opts.Sandbox.Workdir != "" {
			g.tooLarge = sandbox.WorkspaceTooLarge(g.opts.Sandbox.Workdir)
		}
	})
	return g.tooLarge
}

// New builds a gate.
func New(opts Options) *Gate {
	if opts.Approver == nil {
		opts.Approver = Deny{Reason: "no approver is configured"}
	}
	if opts.ApprovalTimeout == 0 {
		opts.ApprovalTimeout = approval.DefaultTimeout
	}
	if opts.Policy == nil {
		opts.Policy, _ = policy.Compile(nil, nil)
	}
	if opts.Classifier == nil {
		opts.Classifier = shell.NewCache(shell.DefaultCacheSize)
	}
	g := &Gate{opts: opts, session: opts.Session}
	return g
}

// sandboxSupport is what the sandbox can do here. The probe runs a trial
// of the sandbox helper, so it is asked on first need (the first command,
// or inspect), never at start: a run that runs no command pays nothing.
// Without the sandbox its answer would change nothing, so it is not asked.
func (g *Gate) sandboxSupport() sandbox.Support {
	g.supportOnce.Do(func() {
		switch {
		case g.opts.Support != nil:
			g.support = *g.opts.Support
		case g.opts.Sandboxed:
			g.support = sandbox.Probe()
		}
	})
	return g.support
}

// FailClosed puts the gate in its refusing state: from now on every
// command and mutating call is refused with "error: REASON" and nothing
// runs; read-only calls go on. The first reason stays. The caller tells
// the person why; the gate only refuses.
func (g *Gate) FailClosed(reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failed == "" {
		g.failed = reason
	}
}

// Failed returns why the gate refuses command and mutating calls, or ""
// when it does not.
func (g *Gate) Failed() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failed
}

// auditFailed fails the gate closed because an audit line could not be
// written, and says so once, as an error event.
func (g *Gate) auditFailed(err error) {
	reason := "audit log unavailable: " + strings.TrimPrefix(err.Error(), "audit: ")
	g.mu.Lock()
	first := g.failed == ""
	if first {
		g.failed = reason
	}
	g.mu.Unlock()
	if first {
		g.emit(0, event.Error{Error: reason + "; command and file-changing tools are refused from now on"})
	}
}

// refused is the result of a command or mutating call while the gate is
// failed closed.
func (g *Gate) refused() (tool.Result, bool) {
	if why := g.Failed(); why != "" {
		return refusal(why, tool.Errorf("%s", why)), true
	}
	return tool.Result{}, false
}

// refusal marks res as a call the gate refused, for why.
func refusal(why string, res tool.Result) tool.Result {
	res.Refusal = why
	return res
}

// userDenied starts the reason of a denial the person explained; the
// model gets it as the whole error, the person's words last.
const userDenied = "the user denied this call: "

// notApproved is the result of a call whose approval was refused.
func notApproved(what, why string) tool.Result {
	if strings.HasPrefix(why, userDenied) {
		return refusal(why, tool.Errorf("%s", why))
	}
	return refusal("not approved: "+why, tool.Errorf("%s not approved: %s", what, why))
}

// policyRefusal is the result of a line the command policy denies: the
// rule's name, the line, and what the rule stops (with the command it
// matched, when that is not the whole line).
func policyRefusal(line string, d policy.Decision) tool.Result {
	about := d.About
	if d.Command != "" && d.Command != line {
		about += ": " + d.Command
	}
	return refusal("policy rule "+d.Name, tool.Errorf("refused by policy rule %s: %s (%s)", d.Name, line, about))
}

// SetSession names the session every audit line belongs to.
func (g *Gate) SetSession(id string) {
	g.mu.Lock()
	g.session = id
	g.mu.Unlock()
}

// Call is one tool call as the model asked for it.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
	Turn int
	// Origin names who made a call no model asked for, for the audit
	// (mcp: a client of wisp mcp serve); empty for the model's calls.
	Origin string
}

// Run executes a call of t through the gate. Refusals come back as tool
// errors the model can read; the returned error is only for harness
// failures.
func (g *Gate) Run(ctx context.Context, c Call, t tool.Tool, env tool.Env) (tool.Result, error) {
	spec := t.Spec()
	start := time.Now()
	cl := g.callLog(c)
	cl.add(audit.ToolCall{Tool: spec.Name, Class: string(spec.Class), Args: string(c.Args), Origin: c.Origin})
	g.limit(&env)

	var res tool.Result
	var err error
	remote, isRemote := t.(tool.Remote)
	switch {
	case isRemote:
		res, err = g.runRemote(ctx, cl, t, remote, env)
	case spec.Class == tool.Read:
		// A read changes nothing, so it goes on when the audit fails.
		cl.flush()
		res, err = t.Run(ctx, &env, c.Args)
	case spec.Class == tool.Mutating:
		res, err = g.runFileTool(ctx, cl, t, env)
	default:
		res, err = g.runCommand(ctx, cl, t, env)
	}
	if err != nil {
		cl.add(audit.ErrorReport{Message: err.Error(), Where: spec.Name})
	}
	res.Content = keys.Redact(res.Content, g.opts.Secrets)
	cl.add(audit.ToolResult{Tool: spec.Name, IsError: res.IsError || res.Failed || err != nil, Bytes: len(res.Content), DurationMS: time.Since(start).Milliseconds(), Preview: res.Content})
	cl.flush()
	return res, err
}

// limit hands the tool the session's limits, and the strictest shell
// until approval decides which profile a command gets.
func (g *Gate) limit(env *tool.Env) {
	env.CommandTimeout = g.opts.CommandTimeout
	env.OutputBytes, env.OutputLines = g.opts.OutputBytes, g.opts.OutputLines
	env.Protected = g.opts.Protected
	env.Shell = g.shellFor(audit.ProfileAutoRun)
}

// runFileTool asks before a file-changing tool runs, and runs it.
func (g *Gate) runFileTool(ctx context.Context, cl *callLog, t tool.Tool, env tool.Env) (tool.Result, error) {
	if res, no := g.refused(); no {
		return res, nil
	}
	subject, res, ok := mutation(t, cl.c.Args)
	if !ok {
		return res, nil
	}
	if refusal, ok := g.approveTool(ctx, cl, t.Spec(), subject, env.Workdir); !ok {
		return refusal, nil
	}
	return g.runMutating(ctx, cl, t, env, subject)
}

// mutation asks a file-changing tool what a call changes. A tool that
// cannot say, or names no file, is refused: a change nobody can name
// cannot be judged. Arguments the tool rejects come back to the model as
// the tool words it, and nothing is asked.
func mutation(t tool.Tool, args json.RawMessage) (tool.Subject, tool.Result, bool) {
	name := t.Spec().Name
	m, ok := t.(tool.Mutator)
	if !ok {
		why := fmt.Sprintf("tool %s does not declare the files it changes; refused", name)
		return tool.Subject{}, refusal(why, tool.Errorf("%s", why)), false
	}
	subject, err := m.Subject(args)
	if err != nil {
		return tool.Subject{}, tool.Errorf("%v", err), false
	}
	if len(subject.Paths) == 0 || slices.Contains(subject.Paths, "") {
		why := fmt.Sprintf("tool %s does not name the files this call changes; refused", name)
		return tool.Subject{}, refusal(why, tool.Errorf("%s", why)), false
	}
	return subject, tool.Result{}, true
}

// runCommand judges a command tool's line, picks its sandbox profile and
// runs it, putting back what it changed in .git.
func (g *Gate) runCommand(ctx context.Context, cl *callLog, t tool.Tool, env tool.Env) (tool.Result, error) {
	if res, no := g.refused(); no {
		return res, nil
	}
	if why := g.opts.NoCommands; why != "" {
		return refusal(why, tool.Errorf("%s", why)), nil
	}
	line, err := commandLine(t, cl.c.Args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	// A call without a line (polling a started process) starts nothing;
	// should it try, it gets the strictest profile.
	profile := audit.ProfileAutoRun
	if line != "" {
		refusal, p, ok := g.approveLine(ctx, cl, t.Spec(), line)
		if !ok {
			return refusal, nil
		}
		profile = p
	}
	env.Shell = g.shellFor(profile)
	// What was decided is on disk before the command starts, or it does
	// not start.
	if !cl.flush() {
		res, _ := g.refused()
		return res, nil
	}
	guard := snapshotGit(env.Workdir, &g.links, g.writableRoots())
	res, err := t.Run(ctx, &env, cl.c.Args)
	restored := guard.restore(env.Workdir)
	if len(restored) > 0 {
		res.Content += fmt.Sprintf("gate: restored %s: git runs hooks and parts of its config outside the sandbox, so commands may not change them\n", strings.Join(restored, ", "))
	}
	if err == nil && line != "" {
		g.commandOutcome(cl, line, &res, restored, profile)
	}
	return res, err
}

// shellFor builds a command's processes for one call in one profile:
// inside the sandbox helper when the sandbox is on (in the auto-run
// profile: no network, no reading of secret locations), else a plain
// shell in its own process group.
func (g *Gate) shellFor(profile string) func(line, dir string) *exec.Cmd {
	return func(line, dir string) *exec.Cmd {
		cfg := g.opts.Sandbox
		cfg.Enabled = g.opts.Sandboxed
		cfg.AutoRun = profile == audit.ProfileAutoRun
		return sandbox.Command(cfg, g.opts.Self, line, dir)
	}
}

// profileOf names the profile of a line that runs asked or unasked.
func (g *Gate) profileOf(asked bool) string {
	switch {
	case !g.opts.Sandboxed:
		return audit.ProfileUnsandboxed
	case asked:
		return audit.ProfileApproved
	}
	return audit.ProfileAutoRun
}

// autoRunBlocked says why no command may run unasked here, "" when the
// auto-run profile is available.
func (g *Gate) autoRunBlocked() string {
	switch {
	case !g.opts.Sandbox.Enabled:
		return "the sandbox is disabled (sandbox.enabled: false)"
	case !g.opts.Sandboxed:
		return "Landlock is not available on this system"
	case !g.sandboxSupport().AutoRun:
		why := g.sandboxSupport().AutoRunWhy
		if why == "" {
			why = "the sandbox cannot build it here"
		}
		return "the auto-run sandbox is unavailable: " + why
	case g.workspaceTooLarge() != "":
		return "the auto-run sandbox cannot hide this workspace's protected files: " + g.workspaceTooLarge()
	}
	return ""
}

// SandboxStatus describes the profiles commands run under and what
// contains them, for the inspect tool's status.
func (g *Gate) SandboxStatus() string {
	var b strings.Builder
	if why := g.autoRunBlocked(); why != "" {
		fmt.Fprintf(&b, "auto-run profile: off (%s); every command is asked about before it runs\n", why)
	} else {
		b.WriteString("auto-run profile: on; a command nobody had to be asked about runs with no network and no reading of secret locations\n")
	}
	switch {
	case !g.opts.Sandboxed:
		b.WriteString("approved profile: unsandboxed\n")
	case g.opts.Sandbox.AllowNetwork:
		b.WriteString("approved profile: sandboxed, with the network (sandbox.allowNetwork: true)\n")
	default:
		b.WriteString("approved profile: sandboxed, without the network (sandbox.allowNetwork: false)\n")
	}
	if g.opts.Sandboxed {
		containment := g.sandboxSupport().Containment
		if containment == "" {
			containment = "unknown"
		}
		fmt.Fprintf(&b, "containment: %s", containment)
		if g.sandboxSupport().PidsMax > 0 {
			fmt.Fprintf(&b, ", at most %d processes per command", g.sandboxSupport().PidsMax)
		}
		b.WriteByte('\n')
	}
	if why := g.Failed(); why != "" {
		fmt.Fprintf(&b, "refusing command and file-changing tools: %s\n", why)
	}
	return b.String()
}

func commandLine(t tool.Tool, args json.RawMessage) (string, error) {
	cl, ok := t.(tool.CommandLiner)
	if !ok {
		// A command tool that cannot say what it runs cannot be judged.
		return "", fmt.Errorf("tool %s does not declare its command line; refused", t.Spec().Name)
	}
	return cl.CommandLine(args)
}

// approveLine runs the policy, the classifier and approval over a shell
// line, and returns the sandbox profile it runs in. The strictest part
// decides; a denial of any part refuses the line. A part below the
// threshold is asked about too when the auto-run profile is unavailable,
// since nothing may run unasked without it. A remembered answer never
// covers a part of a line that is dangerous as a whole, and a once answer
// covers only the same pattern, below dangerous, within this call.
func (g *Gate) approveLine(ctx context.Context, cl *callLog, spec tool.Spec, line string) (tool.Result, string, bool) {
	c := cl.c
	d := g.opts.Policy.Check(line)
	cl.add(audit.PolicyDecision{Line: line, Allowed: d.Allowed, Rule: d.Rule, Command: d.Command})
	if !d.Allowed {
		g.decided(cl, spec, line, false, fmt.Sprintf("refused by policy rule %s (%s)", d.Name, d.Rule))
		return policyRefusal(line, d), "", false
	}
	v := g.opts.Classifier.ClassifyWith(line, g.opts.ShellOptions)
	v = dialectCheck(line, v)
	cl.add(verdictDetails(line, v))
	blocked := g.autoRunBlocked()
	asked := false
	once := map[string]shell.Level{}
	for _, p := range partsToAsk(line, v) {
		needed := g.opts.Threshold.Asks(p.Level)
		if !needed && blocked == "" {
			continue
		}
		asked = true
		req := Request{
			CallID: c.ID, Tool: spec.Name, Class: spec.Class, Subject: line, Part: p.Command,
			Level: p.Level, Reasons: p.Reasons, Pattern: approval.Pattern(p.Program, p.Verb),
		}
		if !needed {
			req.Reasons = append(slices.Clone(p.Reasons), "asked because nothing may run unasked here: "+blocked)
		}
		if lvl, ok := once[req.Pattern]; ok && req.Pattern != "" && p.Level <= lvl && p.Level < shell.Dangerous {
			continue
		}
		ok, why := g.ask(ctx, cl, req, v.Level < shell.Dangerous)
		if !ok {
			if res, no := g.refused(); no {
				return res, "", false
			}
			if strings.HasPrefix(why, userDenied) {
				return notApproved("", why), "", false
			}
			if !needed {
				why += "; it had to be asked because nothing may run unasked here: " + blocked
			}
			return refusal("not approved: "+why, tool.Errorf("command not approved: %s (%s)", line, why)), "", false
		}
		once[req.Pattern] = max(once[req.Pattern], p.Level)
	}
	return tool.Result{}, g.profileOf(asked), true
}

// partsToAsk returns the simple commands to ask about. When the line as a
// whole is judged stricter than every part (it does not parse, say), the
// whole line is asked about as one part, with no pattern to remember.
func partsToAsk(line string, v shell.Verdict) []shell.Part {
	parts := v.Parts
	max := shell.Level(-1)
	for _, p := range parts {
		if p.Level > max {
			max = p.Level
		}
	}
	if len(parts) == 0 || v.Level > max {
		parts = append(parts, shell.Part{Command: line, Level: v.Level, Reasons: v.Reasons})
	}
	return parts
}

// approveTool asks before a file-changing tool runs. A write to a file
// that runs outside the sandbox (a git hook, .envrc, a CI workflow: see
// sensitiveWrite) is dangerous: asked every time, never remembered.
func (g *Gate) approveTool(ctx context.Context, cl *callLog, spec tool.Spec, subject tool.Subject, workdir string) (tool.Result, bool) {
	c := cl.c
	level, reasons, pattern := shell.Moderate, []string{"changes files in the workspace"}, approval.ToolPattern(spec.Name)
	if why, ok := sensitiveTarget(subject.Paths, workdir); ok {
		level, reasons, pattern = shell.Dangerous, []string{why}, ""
	}
	if !g.opts.Threshold.Asks(level) {
		return tool.Result{}, true
	}
	req := Request{CallID: c.ID, Tool: spec.Name, Class: spec.Class, Subject: fileSubject(spec.Name, subject), Level: level,
		Reasons: reasons, Pattern: pattern, Preview: boundPreview(subject.Preview)}
	if ok, why := g.ask(ctx, cl, req, level < shell.Dangerous); !ok {
		if res, no := g.refused(); no {
			return res, false
		}
		return notApproved(spec.Name, why), false
	}
	return tool.Result{}, true
}

// sensitiveTarget reports whether any of the paths a file tool writes
// names, as written or through the symlinks it resolves by, a file that
// runs outside the sandbox, and why.
func sensitiveTarget(paths []string, workdir string) (string, bool) {
	for _, p := range paths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(workdir, abs)
		}
		names := []string{p}
		if rel, err := filepath.Rel(workdir, abs); err == nil {
			names = append(names, rel)
		}
		if rel, ok := resolvedRel(workdir, abs); ok {
			names = append(names, rel)
		}
		for _, n := range names {
			if why, ok := sensitiveWrite(n); ok {
				return why, true
			}
		}
	}
	return "", false
}

// resolvedRel is abs relative to workdir once the symlinks of its longest
// existing ancestor are resolved, so that a link named docs that points at
// .git is judged as .git.
func resolvedRel(workdir, abs string) (string, bool) {
	root, err := filepath.EvalSymlinks(workdir)
	if err != nil {
		return "", false
	}
	dir, rest := filepath.Clean(abs), ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			rel, err := filepath.Rel(root, filepath.Join(r, rest))
			return rel, err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// ask settles one request: a remembered answer (when remembered allows
// one), else the approver, within the approval timeout. A yes may be
// remembered by its pattern. When the question cannot be audited first,
// nobody is asked and the answer is no (the gate is then failed closed).
func (g *Gate) ask(ctx context.Context, cl *callLog, req Request, remembered bool) (bool, string) {
	c := cl.c
	store := g.opts.Approvals
	if remembered && store != nil && req.Pattern != "" {
		if e, ok := store.Lookup(req.Pattern, req.Level); ok {
			cl.add(audit.ApprovalDecided{Tool: req.Tool, Subject: req.Subject, Approved: true, Scope: string(e.Scope), By: "remembered", Reason: "approved before for " + e.Pattern})
			return true, ""
		}
	}
	cl.add(audit.ApprovalRequested{Tool: req.Tool, Subject: req.Subject, Level: req.Level.String(), Pattern: req.Pattern})
	// The question is on disk before anyone answers it.
	if !cl.flush() {
		return false, g.Failed()
	}
	g.emit(c.Turn, event.ApprovalRequest{CallID: c.ID, Tool: req.Tool, Class: string(req.Class), Subject: req.Subject, Part: part(req), Level: req.Level.String(), Reason: strings.Join(req.Reasons, "; ")})

	actx, cancel := context.WithTimeout(ctx, g.opts.ApprovalTimeout)
	ans, err := g.opts.Approver.Approve(actx, req)
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	by := ans.By
	if by == "" {
		by = "user"
	}
	switch {
	case timedOut:
		ans = Answer{Allow: false, Reason: "no answer within the approval timeout"}
		by = "timeout"
	case err != nil:
		ans = Answer{Allow: false, Reason: err.Error()}
	case ctx.Err() != nil:
		ans = Answer{Allow: false, Reason: "cancelled"}
	}
	reason := ans.Reason
	switch note := strings.TrimSpace(ans.Note); {
	case !ans.Allow && note != "":
		reason = userDenied + note
	case reason == "":
		reason = map[bool]string{true: "approved", false: "denied by the user"}[ans.Allow]
	}
	details := audit.ApprovalDecided{Tool: req.Tool, Subject: req.Subject, Approved: ans.Allow, Scope: string(ans.Scope), By: by, Reason: reason}
	if ans.Allow && store != nil && req.Pattern != "" && ans.Scope != "" {
		dec, err := store.Remember(req.Pattern, req.Level, ans.Scope)
		details.Scope, details.Persisted, details.Downgraded = string(dec.Scope), dec.Persisted, dec.Downgraded
		if err != nil {
			cl.add(audit.ErrorReport{Message: err.Error(), Where: "approvals"})
		}
	}
	cl.add(details)
	approved := ans.Allow
	g.emit(c.Turn, event.ApprovalDecision{CallID: c.ID, Tool: req.Tool, Class: string(req.Class), Subject: req.Subject, Approved: approved, Reason: reason})
	return ans.Allow, reason
}

// part is the simple command a question is about, when it is not the
// whole line.
func part(req Request) string {
	if req.Part == req.Subject {
		return ""
	}
	return req.Part
}

// decided reports a refusal that needed nobody's answer (policy).
func (g *Gate) decided(cl *callLog, spec tool.Spec, subject string, ok bool, reason string) {
	c := cl.c
	cl.add(audit.ApprovalDecided{Tool: spec.Name, Subject: subject, Approved: ok, By: "policy", Reason: reason})
	g.emit(c.Turn, event.ApprovalDecision{CallID: c.ID, Tool: spec.Name, Class: string(spec.Class), Subject: subject, Approved: ok, Reason: reason})
}

// commandOutcome audits how a command ended, in which profile and
// containment, and tells the model when the sandbox refused a write,
// naming the path.
func (g *Gate) commandOutcome(cl *callLog, line string, res *tool.Result, restored []string, profile string) {
	o := res.Command
	if o == nil {
		return
	}
	refusal := ""
	if len(restored) > 0 {
		refusal = "restored " + strings.Join(restored, ", ")
	}
	if g.opts.Sandboxed && o.ExitCode != 0 {
		cfg := g.opts.Sandbox
		cfg.Enabled = true
		if p, ok := sandbox.Refusal(cfg, o.StderrTail); ok {
			refusal = strings.TrimPrefix(refusal+"; "+p, "; ")
			res.Content += fmt.Sprintf("sandbox: the sandbox refused writing %s: commands may write only inside the workspace, $TMPDIR and the configured writable paths\n", p)
		}
	}
	containment := ""
	if g.opts.Sandboxed {
		containment = g.sandboxSupport().Containment
	}
	cl.add(audit.CommandOutcome{
		Line: line, ExitCode: o.ExitCode, Signal: o.Signal, TimedOut: o.TimedOut, Truncated: o.Truncated,
		DurationMS: o.Duration.Milliseconds(), Sandboxed: g.opts.Sandboxed, SandboxRefusal: refusal,
		Profile: profile, Containment: containment,
	})
}

func verdictDetails(line string, v shell.Verdict) audit.ClassifierVerdict {
	d := audit.ClassifierVerdict{Line: line, Level: v.Level.String(), Reasons: v.Reasons}
	for _, p := range v.Parts {
		d.Parts = append(d.Parts, audit.VerdictPart{Command: p.Command, Program: p.Program, Level: p.Level.String(), Reasons: p.Reasons})
	}
	return d
}

// fileSubject says what a file tool will change, paths first, so that no
// argument can push a path out of the question.
func fileSubject(name string, s tool.Subject) string {
	var b strings.Builder
	b.WriteString(name)
	for _, p := range s.Paths {
		fmt.Fprintf(&b, " %q", p)
	}
	if s.Summary != "" {
		fmt.Fprintf(&b, " (%s)", s.Summary)
	}
	return b.String()
}

// previewLines bounds a file change's preview.
const previewLines = 20

// boundPreview keeps the first previewLines lines of what a file tool
// will write, and says how many more there are.
func boundPreview(preview string) string {
	if preview == "" {
		return ""
	}
	lines := strings.Split(preview, "\n")
	if len(lines) > previewLines {
		lines = append(lines[:previewLines], fmt.Sprintf("… (%d more lines)", len(lines)-previewLines))
	}
	return strings.Join(lines, "\n")
}

// Audit writes one line for the current session; events that are not a
// call's (prompt, response, session start and end) use it too. A line
// that cannot be written fails the gate closed.
func (g *Gate) Audit(turn int, call string, d audit.Details) {
	g.mu.Lock()
	session := g.session
	g.mu.Unlock()
	if err := g.opts.Audit.Write(audit.Entry{Session: session, Turn: turn, Call: call, Details: d}); err != nil {
		g.auditFailed(err)
	}
}

// callLog gathers one call's audit lines and writes them in bursts: before
// a question, before the tool runs, and at the end.
type callLog struct {
	g       *Gate
	c       Call
	pending []audit.Entry
}

func (g *Gate) callLog(c Call) *callLog { return &callLog{g: g, c: c} }

func (cl *callLog) add(d audit.Details) {
	cl.g.mu.Lock()
	session := cl.g.session
	cl.g.mu.Unlock()
	cl.pending = append(cl.pending, audit.Entry{Session: session, Turn: cl.c.Turn, Call: cl.c.ID, Details: d})
}

// flush writes the lines gathered so far and reports whether they were
// written; when they were not, the gate is failed closed.
func (cl *callLog) flush() bool {
	if len(cl.pending) == 0 {
		return true
	}
	err := cl.g.opts.Audit.WriteAll(cl.pending...)
	cl.pending = cl.pending[:0]
	if err != nil {
		cl.g.auditFailed(err)
		return false
	}
	return true
}

// emit stamps e with the time, the session and the call's turn.
func (g *Gate) emit(turn int, e event.Event) {
	if g.opts.Sink == nil {
		return
	}
	g.mu.Lock()
	session := g.session
	g.mu.Unlock()
	g.opts.Sink(event.Stamp(e, event.Header{Time: time.Now(), Session: session, Turn: turn}))
}
