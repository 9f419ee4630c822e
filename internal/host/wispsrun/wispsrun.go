// Package wispsrun runs a session's wisps: the spawn_wisps tool, the
// Caller over the session's tools (each call through the session's gate),
// the gateway tools the session lacks, LLM steps over the session's
// provider, one working memory, the shared volume and the execution log.
//
// It gets all it needs from the session as Parts and never builds a
// session, a gate or a provider of its own; it never imports host or a
// frontend.
package wispsrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps"
	"github.com/wisp-agent/wisp/internal/wisps/execlog"
	"github.com/wisp-agent/wisp/internal/wisps/gateway"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// Name is the tool the model runs wisps with.
const Name = "spawn_wisps"

// Source marks spawn_wisps among the session's tools.
const Source = "wisp"

// maxTokens bounds one reply of an LLM step: its output is a step's
// result, not a conversation.
const maxTokens = 4096

// Parts are what a session hands its wisps.
type Parts struct {
	// Tools are the session's tools, spawn_wisps among them once added.
	Tools *tool.Registry
	// IsMCP reports whether a tool of Tools is an MCP server's.
	IsMCP func(name string) bool
	// Run runs one call of t through the session's gate.
	Run func(ctx context.Context, c gate.Call, t tool.Tool) (tool.Result, error)
	// Provider answers LLM steps and the failure analysis (audited by
	// the session); Model names the model asked, read at each use.
	Provider provider.Provider
	Model    func() string
	// Home is the wisp home: the shared volume and the log live there.
	Home string
	// Settings are settings.json's, shown as SettingsFile in problems.
	Settings     config.Settings
	SettingsFile string
	Getenv       func(string) string
	// Stderr takes warnings; SessionID names the session in the log.
	Stderr    io.Writer
	SessionID func() string
}

// Host is what a session's wisps run on.
type Host struct {
	p     Parts
	extra *tool.Registry
	mem   *memory.Store
	vol   wisps.Volume
	log   *execlog.Log
	// problems maps a gateway tool left out to why (a malformed
	// setting, named by file and key); agents is invoke_agent, if any.
	problems map[string]string
	agents   *gateway.Agent

	// pool runs every batch of the session, so that at most
	// MaxConcurrentWisps wisps run at once however many batches overlap.
	poolOnce sync.Once
	pool     *wisps.Pool

	once    sync.Once
	typed   map[string]wisps.MCPRef // typed (server__tool) and full names
	pairs   map[[2]string]wisps.MCPRef
	servers map[string][]string
}

// New makes the wisps' host over a session's parts.
func New(p Parts) *Host {
	// The one folder of the wisp home the sandbox lets approved commands
	// write, so that a Script step can write its files there.
	vol := wisps.Volume{Root: filepath.Join(p.Home, sandbox.SharedDirName)}
	h := &Host{p: p, mem: memory.New(nil), vol: vol, log: &execlog.Log{Path: execlog.File(p.Home)}, problems: map[string]string{}}
	h.extra = tool.NewRegistry(append(gateway.Scripts(""), h.networkTools()...)...)
	return h
}

// Find is the host of the spawn_wisps among tools, if it is a session's.
func Find(tools *tool.Registry) (*Host, bool) {
	if t, ok := tools.Get(Name); ok {
		if st, ok := t.(*spawnTool); ok && st.h != nil {
			return st.h, true
		}
	}
	return nil, false
}

// Tool is the session's spawn_wisps, which runs wisps on h.
func (h *Host) Tool() tool.Tool { return &spawnTool{h: h} }

// Catalogue is a spawn_wisps that describes the tool for a catalogue
// built without a session; it runs nothing.
func Catalogue() tool.Tool { return &spawnTool{} }

// Problems says, one line per gateway tool left out, why its setting
// could not be used.
func (h *Host) Problems() []string {
	names := make([]string, 0, len(h.problems))
	for n := range h.problems {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, h.problems[n])
	}
	return out
}

// networkTools are the gateway tools that reach the network: web_browse
// always, web_search and invoke_agent when settings.json configures them.
// A malformed setting leaves its tool out, and the problem (file and key)
// is kept for the Structural error of a step that names the tool.
func (h *Host) networkTools() []tool.Tool {
	st, shown := h.p.Settings, h.p.SettingsFile
	out := []tool.Tool{&gateway.Browse{}}
	if ws, err := st.WebSearchBackend(); err != nil {
		h.problems[wisps.WebSearch] = shown + ": " + err.Error()
	} else if ws != nil {
		out = append(out, &gateway.Search{Backend: *ws, Getenv: h.p.Getenv})
	}
	if agents, err := st.A2AAgentList(); err != nil {
		h.problems[wisps.InvokeAgent] = shown + ": " + err.Error()
	} else if len(agents) > 0 {
		h.agents = &gateway.Agent{Agents: agents, Getenv: h.p.Getenv}
		out = append(out, h.agents)
	}
	return out
}

// Unavailable says why a gateway tool's setting could not be used.
func (h *Host) Unavailable(name string) string { return h.problems[name] }

// HasAgent reports whether settings.json names an A2A agent.
func (h *Host) HasAgent(name string) bool { return h.agents != nil && h.agents.HasAgent(name) }

// Prepare checks definitions against the session's tools: a tool that
// does not resolve is a Structural *wisps.Error, found before anything
// runs.
func (h *Host) Prepare(defs []wisps.Definition) ([]*wisps.Plan, error) {
	plans := make([]*wisps.Plan, 0, len(defs))
	for i, d := range defs {
		p, err := wisps.Prepare(d, h)
		if err != nil {
			if e, ok := err.(*wisps.Error); ok && len(defs) > 1 {
				e.Definition = i + 1
			}
			return nil, err
		}
		plans = append(plans, p)
	}
	return plans, nil
}

// Run runs prepared wisps as one batch and waits for all of them;
// observe (may be nil) is told as each step starts and ends.
func (h *Host) Run(ctx context.Context, plans []*wisps.Plan, observe func(wisps.StepEvent)) (*wisps.Batch, error) {
	if err := os.MkdirAll(h.vol.Root, 0o700); err != nil {
		return nil, fmt.Errorf("shared volume: %w", err)
	}
	h.poolOnce.Do(func() {
		x := wisps.NewExecutor(wisps.Options{Tools: h, Provider: h.p.Provider, Model: h.p.Model(), MaxTokens: maxTokens,
			Memory: h.mem, Volume: h.vol})
		h.pool = wisps.NewPool(x, 0)
	})
	b, err := wisps.RunBatch(ctx, plans, wisps.BatchOptions{Engine: h.pool, Memory: h.mem, Log: h.log, Session: h.p.SessionID(), Observe: observe})
	if err != nil {
		return nil, err
	}
	if b.LogErr != nil {
		fmt.Fprintf(h.p.Stderr, "wisp: warning: %v\n", b.LogErr)
	}
	return b, nil
}

// Log is the session's execution log.
func (h *Host) Log() *execlog.Log { return h.log }

// Call is the wisps' Caller: one call of any tool of the session or a
// gateway tool, through the gate. A refusal or a failure of the tool is
// a Result; the error is for a call that could not be made.
func (h *Host) Call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	t, ok := h.tool(name)
	if !ok {
		return tool.Result{}, fmt.Errorf("unknown tool %q", name)
	}
	return gate.RunDirect(ctx, "wisp_", gate.Call{Name: name, Args: args}, func(ctx context.Context, c gate.Call) (tool.Result, error) {
		return h.p.Run(ctx, c, t)
	})
}

// tool finds a tool a wisp may call: never spawn_wisps itself, so that a
// wisp cannot start wisps.
func (h *Host) tool(name string) (tool.Tool, bool) {
	if name == Name {
		return nil, false
	}
	if t, ok := h.extra.Get(name); ok {
		return t, true
	}
	return h.p.Tools.Get(name)
}

// Spec is the wisps' Directory.
func (h *Host) Spec(name string) (tool.Spec, bool) {
	t, ok := h.tool(name)
	if !ok {
		return tool.Spec{}, false
	}
	return t.Spec(), true
}

// MCPTool resolves an Mcp step's tool by lookup in the session's MCP
// tools, never by parsing a name.
func (h *Host) MCPTool(server, name string) (wisps.MCPRef, bool) {
	h.index()
	if server == "" {
		r, ok := h.typed[name]
		return r, ok
	}
	r, ok := h.pairs[[2]string{server, name}]
	return r, ok
}

// ServerTools lists an MCP server's tools.
func (h *Host) ServerTools(server string) []string {
	h.index()
	return h.servers[server]
}

// index learns the MCP tools' servers and names once: they are fixed
// once the session has started.
func (h *Host) index() {
	h.once.Do(func() {
		h.typed, h.pairs, h.servers = map[string]wisps.MCPRef{}, map[[2]string]wisps.MCPRef{}, map[string][]string{}
		all := h.p.Tools
		for _, name := range all.Names() {
			if !h.p.IsMCP(name) {
				continue
			}
			t, _ := all.Get(name)
			r, ok := t.(tool.Remote)
			if !ok {
				continue
			}
			inv, err := r.Invocation(json.RawMessage("{}"))
			if err != nil {
				continue
			}
			ref := wisps.MCPRef{Name: name, Server: inv.Server, Tool: inv.Tool}
			h.pairs[[2]string{inv.Server, inv.Tool}] = ref
			h.typed[strings.TrimPrefix(name, "mcp__")] = ref
			h.typed[name] = ref
			h.servers[inv.Server] = append(h.servers[inv.Server], name)
		}
	})
}

// Analyze runs the failure-analysis pass over the execution log's last
// 14 days: one request to the session's model, without tools. It returns
// the analysis and the number of records read; with no records nothing
// is asked.
func (h *Host) Analyze(ctx context.Context, now time.Time) (execlog.Analysis, int, error) {
	recs, err := h.log.Read()
	if err != nil {
		return execlog.Analysis{}, 0, err
	}
	groups := execlog.GroupRecords(recs, now.Add(-execlog.AnalysisWindow))
	n := 0
	for _, g := range groups {
		n += g.Runs
	}
	if n == 0 {
		return execlog.Analysis{}, 0, nil
	}
	system, user := execlog.AnalysisRequest(groups)
	resp, err := h.p.Provider.Stream(ctx, provider.Request{Model: h.p.Model(), System: system,
		Messages: []chat.Message{chat.UserText(user)}, MaxTokens: maxTokens}, provider.Callbacks{})
	if err != nil {
		return execlog.Analysis{}, n, fmt.Errorf("wisp failure analysis: %w", err)
	}
	a, err := execlog.ParseAnalysis(resp.Message.TextOf())
	return a, n, err
}
