package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"
)

// cmdMCP runs `wisp mcp status [--json]`: it starts the user's MCP
// servers itself (a separate process has no session's snapshot to
// read), waits for each to be ready or to fail, and shows one line per
// server: name, state, tool count and the sanitised failure.
func cmdMCP(ctx context.Context, args []string, sys IO) error {
	const usage = "usage: wisp mcp status [--json]"
	if len(args) == 0 || args[0] != "status" {
		return usagef("wisp mcp: %s", usage)
	}
	asJSON := false
	for _, a := range args[1:] {
		if a != "--json" {
			return usagef("wisp mcp status: unknown argument %s (%s)", a, usage)
		}
		asJSON = true
	}
	cfg, err := host.LoadConfig(sys.Getenv)
	if err != nil {
		return err
	}
	servers, err := host.StartMCP(ctx, cfg, sys.Getenv)
	if err != nil {
		return err
	}
	status := []mcp.Status{}
	if servers != nil {
		defer servers.Close()
		servers.Tools(ctx, nil)
		status = servers.Status()
	}
	if asJSON {
		enc := json.NewEncoder(sys.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(status)
	}
	if len(status) == 0 {
		fmt.Fprintf(sys.Stdout, "no MCP servers are configured (mcp_servers in %s)\n", cfg.Paths.Pretty(cfg.Paths.SettingsFile()))
		return nil
	}
	w := tabwriter.NewWriter(sys.Stdout, 0, 4, 2, ' ', 0)
	for _, st := range status {
		line := fmt.Sprintf("%s\t%s\t%d tools", st.Name, st.State, st.Tools)
		if st.Error != "" {
			line += "\t" + st.Error
		}
		fmt.Fprintln(w, line)
	}
	return w.Flush()
}
