package host

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/tool"
)

// StartMCP starts the MCP servers of the user's settings (never a
// project's) in parallel; nil when none are configured. The caller
// closes what it returns.
func StartMCP(ctx context.Context, cfg *Config, getenv func(string) string) (*mcp.Servers, error) {
	list, err := cfg.Settings.MCPServerList()
	if err != nil {
		return nil, &config.MalformedError{File: cfg.Paths.Pretty(cfg.Paths.SettingsFile()), What: err.Error()}
	}
	if len(list) == 0 {
		return nil, nil
	}
	for i := range list {
		if list[i].Problem != "" {
			// The entry's problem names its key; the file goes first.
			list[i].Problem = cfg.Paths.Pretty(cfg.Paths.SettingsFile()) + ": " + list[i].Problem
		}
	}
	return mcp.Start(ctx, list, mcp.Options{Getenv: getenv, Home: cfg.Paths.UserHome, Version: Version}), nil
}

// startMCP starts the servers and adds the tools of the ready ones to
// the session's tools before exposure is decided (never for wisp mcp
// serve, which serves wisp's own tools only); a server that failed
// or was skipped is a warning that names it and says why in words that
// carry none of its settings.
func (s *Session) startMCP(ctx context.Context) error {
	if s.fe.Mode == ServeMode {
		// wisp mcp serve offers wisp's own tools; relaying another
		// server's would hand its client tools wisp does not answer for.
		return nil
	}
	servers, err := StartMCP(ctx, s.cfg, s.sys.Getenv)
	if err != nil || servers == nil {
		return err
	}
	s.mcp = servers
	s.closers = append(s.closers, servers.Close)
	tools := servers.Tools(ctx, func(name string) bool {
		_, ok := s.toolset.All.Get(name)
		return ok
	})
	s.toolset.AddMCP(tools)
	for _, why := range mcpProblems(servers) {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: %s\n", why)
	}
	return nil
}

// deferMCP keeps the first request within mcp.schema_budget_bytes: the
// exposed MCP tools past the budget leave the requests, listed by name
// in tool_search, which joins the exposed tools and offers each in full
// once a search finds it. It returns the agent's Offered: nil when every
// tool fits.
func (s *Session) deferMCP() func(name string) bool {
	if s.mcp == nil {
		return nil
	}
	budget := s.cfg.Settings.MCP.SchemaBudgetBytes
	if budget == 0 {
		budget = mcp.DefaultSchemaBudget
	}
	fixed := len(systemPrompt(s.sys, s.tools, s.project)) + mcp.RequestOverhead
	var remote []tool.Spec
	for _, spec := range s.tools.Specs() {
		if s.toolset.Sources[spec.Name] == servedSource {
			remote = append(remote, spec)
		} else {
			fixed += mcp.SpecBytes(spec)
		}
	}
	search := mcp.Plan(budget, fixed, remote)
	if search == nil {
		return nil
	}
	if _, taken := s.tools.Get(mcp.SearchName); taken {
		fmt.Fprintf(s.sys.Stderr, "wisp: warning: another tool is named %s, so every MCP tool is offered in full (past mcp.schema_budget_bytes)\n", mcp.SearchName)
		return nil
	}
	s.tools.Add(search)
	s.toolset.Sources[mcp.SearchName] = servedSource
	return search.Offered
}

// mcpProblems words each server that failed or was skipped, sanitised
// as its status is.
func mcpProblems(servers *mcp.Servers) []string {
	var out []string
	for _, st := range servers.Status() {
		if st.State == mcp.StateFailed || st.State == mcp.StateSkipped {
			out = append(out, fmt.Sprintf("MCP server %s %s: %s", st.Name, st.State, st.Error))
		}
	}
	return out
}

// auditMCP writes an error line for each server that failed or was
// skipped at start, once the audit is open.
func (s *Session) auditMCP() {
	if s.mcp == nil {
		return
	}
	for _, why := range mcpProblems(s.mcp) {
		s.gate.Audit(0, "", audit.ErrorReport{Message: why, Where: "mcp"})
	}
}

// MCPStatus is the runtime snapshot of the session's MCP servers, for
// /mcp and get_mcp_status; it never reconnects. Empty when none are
// configured.
func (s *Session) MCPStatus() []mcp.Status {
	if s.mcp == nil {
		return []mcp.Status{}
	}
	return s.mcp.Status()
}
