package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps"
	"github.com/wisp-agent/wisp/internal/wisps/execlog"
	"github.com/wisp-agent/wisp/internal/wisps/gateway"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// SpawnWispsName is the tool the model runs wisps with.
const SpawnWispsName = "spawn_wisps"

// wispSource marks spawn_wisps among the session's tools.
const wispSource = "wisp"

// wispTokens bounds one reply of an LLM step: its output is a step's
// result, not a conversation.
const wispTokens = 4096

// wispHost is what a session's wisps run on: every tool of the session
// through its gate, the gateway tools the session lacks, the session's
// provider, one working memory, the shared volume and the execution log.
type wispHost struct {
	s     *Session
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

// addWisps registers spawn_wisps among the session's tools, unless
// tools.disabled names it. It runs once the MCP servers' tools are in,
// before exposure is decided. wisp mcp serve offers it too: `wisp tools`
// lists it (AddWispsCatalogue), and the served catalogue is that one.
func (s *Session) addWisps() {
	if slices.Contains(s.cfg.File.Tools.Disabled, SpawnWispsName) {
		return
	}
	h := s.newWispHost()
	for _, why := range h.problems {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: %s\n", why)
	}
	s.toolset.All.Add(&spawnTool{h: h})
	s.toolset.Sources[SpawnWispsName] = wispSource
}

func (s *Session) newWispHost() *wispHost {
	// The one folder of the wisp home the sandbox lets approved commands
	// write, so that a Script step can write its files there.
	vol := wisps.Volume{Root: filepath.Join(s.cfg.Paths.Home, sandbox.SharedDirName)}
	h := &wispHost{s: s, mem: memory.New(nil), vol: vol, log: &execlog.Log{Path: execlog.File(s.cfg.Paths.Home)}, problems: map[string]string{}}
	h.extra = tool.NewRegistry(append(gateway.Scripts(""), h.networkTools()...)...)
	return h
}

// networkTools are the gateway tools that reach the network: web_browse
// always, web_search and invoke_agent when settings.json configures them.
// A malformed setting leaves its tool out, and the problem (file and key)
// is kept for the Structural error of a step that names the tool.
func (h *wispHost) networkTools() []tool.Tool {
	st, shown := h.s.cfg.Settings, h.s.cfg.Paths.Pretty(h.s.cfg.Paths.SettingsFile())
	out := []tool.Tool{&gateway.Browse{}}
	if ws, err := st.WebSearchBackend(); err != nil {
		h.problems[wisps.WebSearch] = shown + ": " + err.Error()
	} else if ws != nil {
		out = append(out, &gateway.Search{Backend: *ws, Getenv: h.s.sys.Getenv})
	}
	if agents, err := st.A2AAgentList(); err != nil {
		h.problems[wisps.InvokeAgent] = shown + ": " + err.Error()
	} else if len(agents) > 0 {
		h.agents = &gateway.Agent{Agents: agents, Getenv: h.s.sys.Getenv}
		out = append(out, h.agents)
	}
	return out
}

// Unavailable says why a gateway tool's setting could not be used.
func (h *wispHost) Unavailable(name string) string { return h.problems[name] }

// HasAgent reports whether settings.json names an A2A agent.
func (h *wispHost) HasAgent(name string) bool { return h.agents != nil && h.agents.HasAgent(name) }

// wispHost is the session's, shared by spawn_wisps and RunWisps so that
// both see one working memory.
func (s *Session) wispHost() *wispHost {
	if t, ok := s.toolset.All.Get(SpawnWispsName); ok {
		if st, ok := t.(*spawnTool); ok {
			return st.h
		}
	}
	return s.newWispHost()
}

// PrepareWisps checks definitions against the session's tools: a tool
// that does not resolve is a Structural *wisps.Error, found before
// anything runs.
func (s *Session) PrepareWisps(defs []wisps.Definition) ([]*wisps.Plan, error) {
	h := s.wispHost()
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

// RunWisps runs prepared wisps as one batch and waits for all of them;
// observe (may be nil) is told as each step starts and ends.
func (s *Session) RunWisps(ctx context.Context, plans []*wisps.Plan, observe func(wisps.StepEvent)) (*wisps.Batch, error) {
	h := s.wispHost()
	if err := os.MkdirAll(h.vol.Root, 0o700); err != nil {
		return nil, fmt.Errorf("shared volume: %w", err)
	}
	h.poolOnce.Do(func() {
		x := wisps.NewExecutor(wisps.Options{Tools: h, Provider: auditedProvider{s}, Model: s.choice.Model, MaxTokens: wispTokens,
			Memory: h.mem, Volume: h.vol})
		h.pool = wisps.NewPool(x, 0)
	})
	b, err := wisps.RunBatch(ctx, plans, wisps.BatchOptions{Engine: h.pool, Memory: h.mem, Log: h.log, Session: s.sessionID(), Observe: observe})
	if err != nil {
		return nil, err
	}
	if b.LogErr != nil {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: %v\n", b.LogErr)
	}
	return b, nil
}

// WispLog is the session's execution log.
func (s *Session) WispLog() *execlog.Log { return s.wispHost().log }

// CallAnyTool runs one call of any tool of the session (built-in,
// extension, custom, MCP, or a wisp gateway tool) through the gate,
// exactly as CallTool runs a served one. A refusal or a failure of the
// tool is a Result; the error is for a call that could not be made.
func (s *Session) CallAnyTool(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	return s.wispHost().Call(ctx, name, args)
}

// Call is the wisps' Caller.
func (h *wispHost) Call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	t, ok := h.tool(name)
	if !ok {
		return tool.Result{}, fmt.Errorf("unknown tool %q", name)
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return tool.Errorf("malformed arguments for %s: not valid JSON", name), nil
	}
	id, err := callID()
	if err != nil {
		return tool.Result{}, err
	}
	s := h.s
	env := tool.Env{Workdir: s.sys.Workdir, TempDir: s.temp.spill}
	res, err := s.gate.Run(ctx, gate.Call{ID: "wisp" + strings.TrimPrefix(id, "mcp"), Name: name, Args: args}, t, env)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("cancelled: %v", err), nil
		}
		return tool.Errorf("%s failed: %v", name, err), nil
	}
	return res, nil
}

// tool finds a tool a wisp may call: never spawn_wisps itself, so that a
// wisp cannot start wisps.
func (h *wispHost) tool(name string) (tool.Tool, bool) {
	if name == SpawnWispsName {
		return nil, false
	}
	if t, ok := h.extra.Get(name); ok {
		return t, true
	}
	return h.s.toolset.All.Get(name)
}

// Spec is the wisps' Directory.
func (h *wispHost) Spec(name string) (tool.Spec, bool) {
	t, ok := h.tool(name)
	if !ok {
		return tool.Spec{}, false
	}
	return t.Spec(), true
}

// MCPTool resolves an Mcp step's tool by lookup in the session's MCP
// tools, never by parsing a name.
func (h *wispHost) MCPTool(server, name string) (wisps.MCPRef, bool) {
	h.index()
	if server == "" {
		r, ok := h.typed[name]
		return r, ok
	}
	r, ok := h.pairs[[2]string{server, name}]
	return r, ok
}

// ServerTools lists an MCP server's tools.
func (h *wispHost) ServerTools(server string) []string {
	h.index()
	return h.servers[server]
}

// index learns the MCP tools' servers and names once: they are fixed
// once the session has started.
func (h *wispHost) index() {
	h.once.Do(func() {
		h.typed, h.pairs, h.servers = map[string]wisps.MCPRef{}, map[[2]string]wisps.MCPRef{}, map[string][]string{}
		all := h.s.toolset.All
		for _, name := range all.Names() {
			if h.s.toolset.Sources[name] != servedSource {
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

// auditedProvider asks the session's provider for LLM steps and audits
// each reply's tokens as the agent's are.
type auditedProvider struct{ s *Session }

func (a auditedProvider) Stream(ctx context.Context, req provider.Request, cb provider.Callbacks) (provider.Response, error) {
	if a.s.prov == nil {
		return provider.Response{}, fmt.Errorf("no model provider is configured")
	}
	resp, err := a.s.prov.Stream(ctx, req, cb)
	if err != nil {
		return resp, err
	}
	u := resp.Usage
	a.s.gate.Audit(0, "", audit.Response{Model: req.Model, StopReason: resp.StopReason, ToolCalls: len(resp.Message.ToolUses()),
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens})
	return resp, nil
}

// AddWispsCatalogue adds spawn_wisps to a tool set built without a
// session (`wisp tools`), unless tools.disabled names it, so that the
// catalogue lists what a session gets. The entry describes the tool;
// only a session's own spawn_wisps can run wisps.
func (ts *ToolSet) AddWispsCatalogue(cfg *Config) {
	if slices.Contains(cfg.File.Tools.Disabled, SpawnWispsName) {
		return
	}
	ts.All.Add(&spawnTool{})
	ts.Sources[SpawnWispsName] = wispSource
}

// spawnTool is spawn_wisps: it runs no step itself; each step's call
// goes through the gate on its own, so the tool is of class read. h is
// nil in a catalogue built without a session.
type spawnTool struct{ h *wispHost }

// Describe gives the catalogue the tool's limits.
func (t *spawnTool) Describe() ([]string, string) {
	return []string{
			fmt.Sprintf("at most %d wisps run at once; each wisp's steps run in order", wisps.MaxConcurrentWisps),
			"every step's tool call goes through the gate on its own (policy, approval, sandbox, audit)",
			"web_browse, web_search and invoke_agent calls are always asked about",
			"answers when every wisp has ended; failed wisps are reported, not an error result",
		},
		`{"definitions":[{"description":"count lines","steps":[{"id":"count","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"wc -l < README.md"}}]}]}`
}

func (t *spawnTool) Spec() tool.Spec {
	return tool.Spec{Name: SpawnWispsName, Description: wisps.SpawnDescription(), Class: tool.Read,
		Schema: json.RawMessage(`{"type":"object","properties":{"definitions":{"type":"array","items":{"anyOf":[{"type":"object"},{"type":"string"}]}}},"required":["definitions"]}`)}
}

// Run answers with the batch's summary text, never an error result for
// wisps that failed, so that the model does not re-run the ones that
// worked. A definition that is wrong is an error result: nothing ran.
func (t *spawnTool) Run(ctx context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	if t.h == nil {
		return tool.Errorf("spawn_wisps runs only in a wisp session (nothing was run)"), nil
	}
	defs, err := wisps.ParseBatch(args)
	if err != nil {
		return tool.Errorf("spawn_wisps: %v (nothing was run)", err), nil
	}
	plans, err := t.h.s.PrepareWisps(defs)
	if err != nil {
		return tool.Errorf("spawn_wisps: %v (nothing was run)", err), nil
	}
	b, err := t.h.s.RunWisps(ctx, plans, nil)
	if err != nil {
		return tool.Result{}, err
	}
	// Failed wisps or writes mark the call failed in the audit only.
	return tool.Result{Content: b.Text(), Failed: b.Failed()}, nil
}

// AnalyzeWisps runs the failure-analysis pass over the execution log's
// last 14 days: one request to the session's model, without tools. It
// returns the analysis and the number of records read; with no records
// nothing is asked.
func (s *Session) AnalyzeWisps(ctx context.Context, now time.Time) (execlog.Analysis, int, error) {
	recs, err := s.WispLog().Read()
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
	resp, err := auditedProvider{s}.Stream(ctx, provider.Request{Model: s.choice.Model, System: system,
		Messages: []chat.Message{chat.UserText(user)}, MaxTokens: wispTokens}, provider.Callbacks{})
	if err != nil {
		return execlog.Analysis{}, n, fmt.Errorf("wisp failure analysis: %w", err)
	}
	a, err := execlog.ParseAnalysis(resp.Message.TextOf())
	return a, n, err
}
