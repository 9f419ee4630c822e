package host

import (
	"context"
	"fmt"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/mcp"
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
	return mcp.Start(ctx, list, mcp.Options{Getenv: getenv, Home: cfg.Paths.UserHome, Version: Version}), nil
}

// startMCP starts the servers and adds the tools of the ready ones to
// the session's tools before exposure is decided; a server that failed
// or was skipped is a warning that names it and says why in words that
// carry none of its settings.
func (s *Session) startMCP(ctx context.Context) error {
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
