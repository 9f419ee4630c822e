package host

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host/bus"
	"github.com/wisp-agent/wisp/internal/host/runtemp"
	"github.com/wisp-agent/wisp/internal/keys"
	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
	"github.com/wisp-agent/wisp/internal/tool/builtin/bashtool"
	"github.com/wisp-agent/wisp/internal/transcript"
	"github.com/wisp-agent/wisp/internal/trust"
)

// Session is one conversation and everything wired to run it: the
// configuration, the project, the tools, the gate and its audit, the
// provider, the transcript and the agent. Frontends drive it (Prompt,
// Steer, FollowUp, Cancel, Approve) and watch it (Subscribe); none of
// them wires a run of its own.
type Session struct {
	opts Options
	sys  IO
	fe   Frontend
	cfg  *Config
	// conf is the configuration resolved once (config.Resolve); choice
	// is its provider part.
	conf    config.Resolved
	choice  config.Choice
	agent   *agent.Agent
	prov    provider.Provider // the agent's, also asked for summaries (compact.go)
	gate    *gate.Gate
	parts   *gateParts
	tools   *tool.Registry
	bash    *bashtool.Tool
	session *transcript.Writer
	bus     bus.Bus
	closers []func()
	endNote string
	// endBurst ends the collector's resume burst (gcburst.go) once the
	// first request is out; set before the agent starts, never after.
	endBurst func()
	project  *Project
	toolset  *ToolSet
	// mcp are the user's MCP servers (mcp.go); nil when none are
	// configured.
	mcp *mcp.Servers
	// temp is the run's private folder and its commands' temporary
	// folder (scratch.go).
	temp runtemp.Temp

	// resumedInput is the last request's input tokens of a resumed
	// session, so that it is compacted in time (compact.go).
	resumedInput int64
	// interrupted are the calls a resumed session found cut short.
	interrupted []interruptedCall

	// closeNote, when set, is why the session ended, written as the
	// transcript's closing record.
	closeNote string

	// transcriptErr is the first failed transcript write; once set,
	// nothing more is written and the run ends with exit code 1.
	transcriptErr error
	// overflowed says the provider refused the conversation as too long
	// for the model's context window.
	overflowed bool
	recordMu   sync.Mutex

	run     runState // the live run and its queues (queue.go)
	asks    asks     // approvals waiting for Approve (approve.go)
	closed  bool
	closeMu sync.Mutex
}

// Frontend says how the session talks to whoever drives it.
type Frontend struct {
	// Mode names the frontend in the audit: print, json, interactive,
	// rpc or sdk.
	Mode string
	// Interactive exposes every tool (each unsafe call is asked about);
	// other modes expose what Options ask for.
	Interactive bool
	// Approver answers the gate's questions. Nil with Options.Yes unset
	// means the questions go out as approval_request events and wait for
	// Approve (or approval.timeoutSeconds, then no) when Events is set,
	// and are refused otherwise.
	Approver gate.Approver
	// Events says a frontend answers approval_request events with Approve.
	Events bool
	// AskTrust puts the trust question of an undecided project to a
	// person; nil means nobody can answer, and the project stays
	// untrusted.
	AskTrust trust.Asker
}

// toolAliases maps the names custom-tools.md uses to the built-ins.
var toolAliases = map[string]string{"run_command": "bash", "read_file": "read", "edit_file": "edit"}

// allBuiltins builds one session's built-in tools, in the order the model
// sees them.
func allBuiltins(bash *bashtool.Tool, stderr io.Writer, insp builtin.InspectSource) []tool.Tool {
	return []tool.Tool{
		builtin.Read(), builtin.Grep(), builtin.Find(), builtin.Ls(),
		builtin.Write(), builtin.Edit(), bash,
		builtin.CurrentDate(), builtin.SystemInfo(), builtin.Inspect(insp), builtin.Notify(stderr),
	}
}

// New wires a session: it reads the configuration and the project,
// builds the tools, opens (or resumes, or forks) the transcript, the
// audit and the provider. A bad request is a UsageError; a malformed
// file a config.MalformedError naming the file and the key.
func New(ctx context.Context, o Options, sys IO, fe Frontend) (*Session, error) {
	interactive := fe.Interactive
	cfg, err := LoadConfig(sys.Getenv)
	if err != nil {
		return nil, err
	}
	s := &Session{opts: o, sys: sys, fe: fe, cfg: cfg}
	s.asks.init()
	s.project, err = LoadProject(ctx, cfg, sys, fe.AskTrust)
	if err != nil {
		return nil, err
	}
	s.toolset, err = BuildTools(cfg, s.project, sys.Extensions, sys.Stderr, s)
	if err != nil {
		return nil, err
	}
	for _, w := range append(append(cfg.Warns, s.project.Warns...), s.toolset.Warns...) {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	s.conf, err = config.Resolve(flagsOf(o), sys.Getenv, cfg, s.project.Settings, cfg.Paths.Pretty(config.ProjectFile(s.project.Root)))
	if err != nil {
		return nil, err
	}
	s.choice = s.conf.Provider
	s.bash = s.toolset.Bash
	s.closers = append(s.closers, s.bash.Close)
	if err := s.startMCP(ctx); err != nil {
		s.Close()
		return nil, err
	}
	s.addWisps() // spawn_wisps (wisps.go)
	s.tools, err = exposedTools(o, s.toolset.All, interactive)
	if err != nil {
		s.Close()
		return nil, err
	}
	offered := s.deferMCP()

	// The session is opened before the provider so that a bad --resume is
	// a usage error, reported before anything starts.
	history, err := s.openSession(o, sys)
	if err != nil {
		s.Close()
		return nil, err
	}

	var removeTemp func()
	s.temp, removeTemp = runtemp.Open(runtemp.Parents(sys.Getenv), runtemp.Refused(cfg.Paths.Home, sys.Workdir), sys.Stderr)
	// Closers run last first: the folder goes after every other closer,
	// so no managed process still writes to it.
	s.closers = append([]func(){removeTemp}, s.closers...)
	s.parts, err = buildGate(cfg, sys, s.temp)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, func() { _ = s.parts.log.Close() })

	prov, closeProv, err := openProvider(s.choice, sys.Getenv, s.conf.Idle)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.closers = append(s.closers, closeProv)
	s.prov = prov

	sink := func(e event.Event) {
		e = s.asks.number(e)
		s.auditRun(e)
		if s.session != nil {
			s.record(e)
		}
		s.watchAsks(e)
		s.bus.Publish(e)
	}
	gopts := s.parts.opts
	gopts.Approver = s.approver()
	gopts.Sink = sink
	gopts.Session = s.sessionID()
	gopts.Secrets = keys.Secrets(sys.Getenv, s.choice.APIKey, cfg.Settings.APIKey, cfg.Settings.AnthropicAPIKey, cfg.Settings.OpenAIAPIKey)
	s.gate = gate.New(gopts)

	s.gate.Audit(0, "", audit.SessionStart{Cwd: sys.Workdir, Provider: s.choice.Name, Model: s.choice.Model, Mode: fe.Mode, Sandbox: s.parts.sandboxNote, Trusted: s.project.Decision.Trusted})
	s.auditMCP()
	s.auditInterrupted()

	s.agent = agent.New(agent.Options{
		Provider:          prov,
		Model:             s.choice.Model,
		MaxTokens:         s.conf.MaxTokens,
		System:            systemPrompt(sys, s.tools, s.project),
		Tools:             s.tools,
		Gate:              s.gate,
		Env:               tool.Env{Workdir: sys.Workdir, TempDir: s.temp.Spill, Interactive: interactive && sys.StderrTTY},
		MaxToolIterations: o.MaxToolIters,
		Sink:              sink,
		Session:           s.sessionID(),
		Steer:             s.takeSteers,
		Compact:           s.compact,
		CompactAt:         compactAt(s.contextWindow()),
		LastInput:         s.resumedInput,
		Offered:           offered,
	}, history)
	return s, nil
}

// auditRun writes the audit lines that belong to the run rather than to
// a tool call.
func (s *Session) auditRun(e event.Event) {
	switch e.(type) {
	case event.MessageStart, event.Error, event.AgentEnd:
		if s.endBurst != nil {
			s.endBurst()
		}
	}
	switch e := e.(type) {
	case event.AgentStart:
		text := e.Message.TextOf()
		s.gate.Audit(e.Turn, "", audit.Prompt{Text: text, Bytes: len(text)})
	case event.MessageEnd:
		if e.Message != nil && e.Message.Role == chat.Assistant {
			d := audit.Response{Model: s.choice.Model, StopReason: e.StopReason, ToolCalls: len(e.Message.ToolUses())}
			if u := e.Usage; u != nil {
				d.InputTokens, d.OutputTokens, d.CacheReadTokens, d.CacheWriteTokens = u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens
			}
			s.gate.Audit(e.Turn, "", d)
		}
	case event.Error:
		s.gate.Audit(e.Turn, "", audit.ErrorReport{Message: e.Error, Where: "agent"})
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

func (s *Session) sessionID() string {
	if s.session == nil {
		return ""
	}
	return s.session.ID()
}

// sessionDir is where this run's transcripts live.
func sessionDir(o Options, cfg *Config, getenv func(string) string) string {
	return SessionDir(o, cfg.Paths, cfg.Settings, getenv)
}

// SessionDir is where the transcripts of sessions started with o live
// (config.SessionDirOf decides).
func SessionDir(o Options, paths config.Paths, s config.Settings, getenv func(string) string) string {
	return config.SessionDirOf(flagsOf(o), getenv, paths, s).Value
}

// Close stops managed processes, the provider and the session, last
// started first, and writes the session's last audit line.
func (s *Session) Close() {
	if s.gate != nil {
		u := chat.Usage{}
		if s.agent != nil {
			u = s.agent.Usage()
		}
		reason := s.endNote
		if reason == "" {
			reason = "done"
		}
		s.gate.Audit(0, "", audit.SessionEnd{Reason: reason, Usage: audit.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens}})
	}
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.writeClosing()
	if s.session != nil {
		if err := s.session.Close(); err != nil {
			s.transcriptFailed(err)
		}
	}
}
