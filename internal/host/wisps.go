package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host/wispsrun"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps"
	"github.com/wisp-agent/wisp/internal/wisps/execlog"
)

// SpawnWispsName is the tool the model runs wisps with.
const SpawnWispsName = wispsrun.Name

// addWisps registers spawn_wisps among the session's tools, unless
// tools.disabled names it. It runs once the MCP servers' tools are in,
// before exposure is decided. wisp mcp serve offers it too: `wisp tools`
// lists it (AddWispsCatalogue), and the served catalogue is that one.
func (s *Session) addWisps() {
	if slices.Contains(s.cfg.File.Tools.Disabled, SpawnWispsName) {
		return
	}
	h := s.newWispHost()
	for _, why := range h.Problems() {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: %s\n", why)
	}
	s.toolset.All.Add(h.Tool())
	s.toolset.Sources[SpawnWispsName] = wispsrun.Source
}

// newWispHost hands the session's parts to its wisps.
func (s *Session) newWispHost() *wispsrun.Host {
	return wispsrun.New(wispsrun.Parts{
		Tools: s.toolset.All,
		IsMCP: func(name string) bool { return s.toolset.Sources[name] == servedSource },
		Run: func(ctx context.Context, c gate.Call, t tool.Tool) (tool.Result, error) {
			return s.gate.Run(ctx, c, t, tool.Env{Workdir: s.sys.Workdir, TempDir: s.temp.Spill})
		},
		Provider:     auditedProvider{s},
		Model:        func() string { return s.choice.Model },
		Home:         s.cfg.Paths.Home,
		Settings:     s.cfg.Settings,
		SettingsFile: s.cfg.Paths.Pretty(s.cfg.Paths.SettingsFile()),
		Getenv:       s.sys.Getenv,
		Stderr:       s.sys.Stderr,
		SessionID:    s.sessionID,
	})
}

// wispHost is the session's, shared by spawn_wisps and RunWisps so that
// both see one working memory.
func (s *Session) wispHost() *wispsrun.Host {
	if h, ok := wispsrun.Find(s.toolset.All); ok {
		return h
	}
	return s.newWispHost()
}

// PrepareWisps checks definitions against the session's tools: a tool
// that does not resolve is a Structural *wisps.Error, found before
// anything runs.
func (s *Session) PrepareWisps(defs []wisps.Definition) ([]*wisps.Plan, error) {
	return s.wispHost().Prepare(defs)
}

// RunWisps runs prepared wisps as one batch and waits for all of them;
// observe (may be nil) is told as each step starts and ends.
func (s *Session) RunWisps(ctx context.Context, plans []*wisps.Plan, observe func(wisps.StepEvent)) (*wisps.Batch, error) {
	return s.wispHost().Run(ctx, plans, observe)
}

// WispLog is the session's execution log.
func (s *Session) WispLog() *execlog.Log { return s.wispHost().Log() }

// CallAnyTool runs one call of any tool of the session (built-in,
// extension, custom, MCP, or a wisp gateway tool) through the gate,
// exactly as CallTool runs a served one. A refusal or a failure of the
// tool is a Result; the error is for a call that could not be made.
func (s *Session) CallAnyTool(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	return s.wispHost().Call(ctx, name, args)
}

// AnalyzeWisps runs the failure-analysis pass over the execution log's
// last 14 days: one request to the session's model, without tools. It
// returns the analysis and the number of records read; with no records
// nothing is asked.
func (s *Session) AnalyzeWisps(ctx context.Context, now time.Time) (execlog.Analysis, int, error) {
	return s.wispHost().Analyze(ctx, now)
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
	ts.All.Add(wispsrun.Catalogue())
	ts.Sources[SpawnWispsName] = wispsrun.Source
}
