package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/keys"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// runtime is one wired-up run: provider, tools, gate, session, agent.
type runtime struct {
	opts     Options
	sys      IO
	cfg      *loaded
	choice   providerChoice
	agent    *agent.Agent
	gate     *gate.Gate
	parts    *gateParts
	tools    *tool.Registry
	bash     *builtin.BashTool
	session  *transcript.Writer
	frontend event.Sink
	approver gate.Approver
	closers  []func()
	endNote  string
	// endBurst ends the collector's resume burst (gcburst.go) once the
	// first request is out; set before the agent starts, never after.
	endBurst func()
	project  *project
	toolset  *toolSet
	// temp is the run's private folder and its commands' temporary
	// folder (scratch.go).
	temp runTemp
	// lines carries what the person types (interactive runs only).
	lines <-chan string

	// closeNote, when set, is why the session ended, written as the
	// transcript's closing record (signals.go).
	closeNote string

	// transcriptErr is the first failed transcript write; once set,
	// nothing more is written and the run ends with exit code 1.
	transcriptErr error
	// overflowed says the provider refused the conversation as too long
	// for the model's context window.
	overflowed bool
	recordMu   sync.Mutex
}

// toolAliases maps the names custom-tools.md uses to the built-ins.
var toolAliases = map[string]string{"run_command": "bash", "read_file": "read", "edit_file": "edit"}

// readLines delivers the lines a person types, until stdin closes.
func readLines(r io.Reader) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// allBuiltins builds one session's built-in tools, in the order the model
// sees them.
func allBuiltins(bash *builtin.BashTool, stderr io.Writer, insp builtin.InspectSource) []tool.Tool {
	return []tool.Tool{
		builtin.Read(), builtin.Grep(), builtin.Find(), builtin.Ls(),
		builtin.Write(), builtin.Edit(), bash,
		builtin.CurrentDate(), builtin.SystemInfo(), builtin.Inspect(insp), builtin.Notify(stderr),
	}
}

func newRuntime(ctx context.Context, o Options, sys IO, interactive bool) (*runtime, error) {
	cfg, err := loadConfig(sys.Getenv)
	if err != nil {
		return nil, err
	}
	rt := &runtime{opts: o, sys: sys, cfg: cfg}
	if interactive {
		rt.lines = readLines(sys.Stdin)
	}
	rt.project, err = loadProject(ctx, cfg, sys, rt.lines, sys.Stdout)
	if err != nil {
		return nil, err
	}
	cfg.settings = mergeProject(cfg.settings, rt.project.settings)
	rt.toolset, err = buildTools(cfg, rt.project, sys.Extensions, sys.Stderr, rt)
	if err != nil {
		return nil, err
	}
	for _, w := range append(append(cfg.warns, rt.project.warns...), rt.toolset.warns...) {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	rt.choice, err = chooseProvider(o, cfg.settings, sys.Getenv, cfg.paths.Pretty(cfg.paths.SettingsFile()))
	if err != nil {
		return nil, err
	}
	rt.bash = rt.toolset.bash
	rt.closers = append(rt.closers, rt.bash.Close)
	rt.tools, err = exposedTools(o, rt.toolset.all, interactive)
	if err != nil {
		rt.Close()
		return nil, err
	}

	// The session is opened before the provider so that a bad --resume is
	// a usage error, reported before anything starts.
	history, err := rt.openSession(o, sys)
	if err != nil {
		rt.Close()
		return nil, err
	}

	rt.temp = rt.openScratch(tempParents(sys.Getenv), commandTempRefused(cfg, sys.Workdir))
	rt.parts, err = buildGate(cfg, sys, rt.temp)
	if err != nil {
		rt.Close()
		return nil, err
	}
	rt.closers = append(rt.closers, func() { _ = rt.parts.log.Close() })

	prov, closeProv, err := openProvider(rt.choice, sys.Getenv, time.Duration(cfg.settings.IdleTimeoutSeconds)*time.Second)
	if err != nil {
		rt.Close()
		return nil, err
	}
	rt.closers = append(rt.closers, closeProv)

	switch {
	case interactive:
		// The interactive frontend installs its own approver.
	case o.Yes:
		rt.approver = gate.Allow{}
	default:
		rt.approver = gate.Deny{Reason: "print mode runs mutating and command tools only with --yes (alias --allow-unsafe-tool-execution)"}
	}

	sink := func(e event.Event) {
		rt.observe(e)
		if rt.session != nil {
			rt.record(e)
		}
		if rt.frontend != nil {
			rt.frontend(e)
		}
	}
	gopts := rt.parts.opts
	gopts.Approver = gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		if rt.approver == nil {
			return gate.Answer{Reason: "no approver"}, nil
		}
		return rt.approver.Approve(ctx, r)
	})
	gopts.Sink = sink
	gopts.Session = rt.sessionID()
	gopts.Secrets = keys.Secrets(sys.Getenv, rt.choice.APIKey, cfg.settings.APIKey, cfg.settings.AnthropicAPIKey, cfg.settings.OpenAIAPIKey)
	rt.gate = gate.New(gopts)

	mode := "print"
	if interactive {
		mode = "interactive"
	} else if o.Mode == "json" {
		mode = "json"
	}
	rt.gate.Audit(0, "", audit.SessionStart{Cwd: sys.Workdir, Provider: rt.choice.Name, Model: rt.choice.Model, Mode: mode, Sandbox: rt.parts.sandboxNote, Trusted: rt.project.decision.Trusted})

	rt.agent = agent.New(agent.Options{
		Provider:          prov,
		Model:             rt.choice.Model,
		MaxTokens:         cfg.settings.MaxTokens,
		System:            systemPrompt(sys, rt.tools, rt.project),
		Tools:             rt.tools,
		Gate:              rt.gate,
		Env:               tool.Env{Workdir: sys.Workdir, TempDir: rt.temp.spill, Interactive: interactive && sys.StderrTTY},
		MaxToolIterations: o.MaxToolIters,
		Sink:              sink,
		Session:           rt.sessionID(),
	}, history)
	return rt, nil
}

// observe writes the audit lines that belong to the run rather than to a
// tool call.
func (rt *runtime) observe(e event.Event) {
	if rt.endBurst != nil && (e.Type == event.MessageStart || e.Type == event.Error || e.Type == event.AgentEnd) {
		rt.endBurst()
	}
	switch e.Type {
	case event.AgentStart:
		if e.Message != nil {
			text := e.Message.TextOf()
			rt.gate.Audit(e.Turn, "", audit.Prompt{Text: text, Bytes: len(text)})
		}
	case event.MessageEnd:
		if e.Message != nil && e.Message.Role == chat.Assistant {
			d := audit.Response{Model: rt.choice.Model, StopReason: e.StopReason, ToolCalls: len(e.Message.ToolUses())}
			if u := e.Usage; u != nil {
				d.InputTokens, d.OutputTokens, d.CacheReadTokens, d.CacheWriteTokens = u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens
			}
			rt.gate.Audit(e.Turn, "", d)
		}
	case event.Error:
		rt.gate.Audit(e.Turn, "", audit.ErrorReport{Message: e.Error, Where: "agent"})
	}
}

// exposedTools decides which tools the model sees. Interactive runs get
// them all (each unsafe call is asked about); print mode gets none unless
// the flags ask.
func exposedTools(o Options, all *tool.Registry, interactive bool) (*tool.Registry, error) {
	var names []string
	for _, n := range o.AllowTools {
		canon := n
		if a, ok := toolAliases[n]; ok {
			canon = a
		}
		if _, ok := all.Get(canon); !ok {
			return nil, usagef("unknown tool %q for --allow-tool; known tools: %s", n, strings.Join(all.SortedNames(), ", "))
		}
		names = append(names, canon)
	}
	if interactive || o.AllowAllTools {
		return all, nil
	}
	if o.AllowReadTools {
		for _, s := range all.Specs() {
			if s.Class == tool.Read {
				names = append(names, s.Name)
			}
		}
	}
	return all.Subset(names), nil
}

func (rt *runtime) sessionID() string {
	if rt.session == nil {
		return ""
	}
	return rt.session.ID()
}

// sessionDir is where this run's transcripts live.
func sessionDir(o Options, cfg *loaded, getenv func(string) string) string {
	return first(o.SessionDir, getenv("WISP_SESSION_DIR"), expandHome(cfg.settings.SessionDir, cfg.paths.UserHome), cfg.paths.SessionDir())
}

// Close stops managed processes, the provider and the session, last
// started first, and writes the session's last audit line.
func (rt *runtime) Close() {
	if rt.gate != nil {
		u := chat.Usage{}
		if rt.agent != nil {
			u = rt.agent.Usage()
		}
		reason := rt.endNote
		if reason == "" {
			reason = "done"
		}
		rt.gate.Audit(0, "", audit.SessionEnd{Reason: reason, Usage: audit.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens}})
	}
	for i := len(rt.closers) - 1; i >= 0; i-- {
		rt.closers[i]()
	}
	rt.writeClosing()
	if rt.session != nil {
		if err := rt.session.Close(); err != nil {
			rt.transcriptFailed(err)
		}
	}
}

// terminalApprover asks the person at the terminal, one simple command at
// a time, with the remembered-answer scopes. settle runs first, so that
// the question starts on a fresh line with no style of the model's on.
func terminalApprover(lines <-chan string, out io.Writer, settle func()) gate.Approver {
	return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		settle()
		if r.Preview != "" {
			fmt.Fprintf(out, "\n%s\n", printable(r.Preview))
		}
		ans, err := approval.Prompt(ctx, lines, out, approval.Request{
			Tool: r.Tool, Line: r.Subject, Part: r.Part, Level: r.Level, Reasons: r.Reasons, Pattern: r.Pattern,
		})
		if err != nil {
			return gate.Answer{Reason: err.Error()}, nil
		}
		return gate.Answer{Allow: ans.Allow, Scope: ans.Scope, Reason: ans.Reason, Note: ans.Note}, nil
	})
}

// printable keeps text from a model harmless on a terminal: control
// characters other than newline and tab, and bidirectional overrides,
// are shown as escapes.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
