package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/frontend/mcpserve"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"
)

// cmdMCP runs `wisp mcp serve` (cmdMCPServe) or `wisp mcp status
// [--json]`, which starts the user's MCP servers itself (a separate
// process has no session's snapshot to read), waits for each to be ready
// or to fail, and shows one line per server: name, state, tool count and
// the sanitised failure.
func cmdMCP(ctx context.Context, args []string, sys IO) error {
	const usage = "usage: wisp mcp status [--json] | wisp mcp serve [--yes] [--allow-tool NAME]... [--all-tools] [--allow-read-tools]"
	if len(args) > 0 && args[0] == "serve" {
		return cmdMCPServe(ctx, args[1:], sys)
	}
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
	return mcp.WriteStatus(sys.Stdout, status)
}

// noApproval is why wisp mcp serve without --yes refuses a call the
// gate would ask about when the client cannot ask its user (no MCP
// elicitation).
const noApproval = "wisp mcp serve runs mutating and command tools only when started with --yes; restart it with --yes to allow them (the policy's deny rules still apply)"

// cmdMCPServe runs `wisp mcp serve`: one session whose tools are served
// over MCP on stdin and stdout, every call through the session's gate,
// until the end of stdin (exit 0) or an end signal (exit 128+n).
// Without exposure flags every tool is served, as in interactive mode,
// since each call is gated.
func cmdMCPServe(ctx context.Context, args []string, sys IO) error {
	o, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	exposing := o.AllowAllTools || o.AllowReadTools || len(o.AllowTools) > 0
	fe := host.Frontend{Mode: host.ServeMode, Interactive: !exposing, Approver: mcpserve.Approver(gate.Deny{Reason: noApproval})}
	s, err := host.New(ctx, o, sys, fe)
	if err != nil {
		return err
	}
	defer s.Close()
	note := "calls that would ask for approval are asked through the client, or refused"
	if o.Yes {
		note = "--yes: calls that would ask for approval are approved"
	}
	fmt.Fprintf(sys.Stderr, "wisp: serving %d tools over MCP on stdio (%s)\n", len(s.ServedTools()), note)
	ctx, ended := frontend.OnEndSignal(ctx)
	defer ended()
	err = mcpserve.Serve(ctx, s, sys.Stdin, sys.Stdout, sys.Stderr)
	if sig, ok := ended().(syscall.Signal); ok {
		return &frontend.SignalExit{Sig: sig}
	}
	return err
}

// parseServeFlags reads wisp mcp serve's flags: approval and exposure
// only, as print mode spells them.
func parseServeFlags(args []string) (host.Options, error) {
	const usage = "usage: wisp mcp serve [--yes] [--allow-tool NAME]... [--all-tools] [--allow-read-tools]"
	o := host.Options{MaxToolIters: -1, NoSession: true}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			return o, usagef("wisp mcp serve: unexpected argument %q (%s)", args[i], usage)
		}
		switch name {
		case "yes", "allow-unsafe-tool-execution", "dangerously-skip-permissions":
			o.Yes = true
		case "all-tools":
			o.AllowAllTools = true
		case "allow-read-tools":
			o.AllowReadTools = true
		case "allow-tool":
			if !hasValue {
				if i+1 >= len(args) {
					return o, usagef("wisp mcp serve: --allow-tool needs a tool name (%s)", usage)
				}
				i++
				value = args[i]
			}
			o.AllowTools = append(o.AllowTools, value)
			continue
		default:
			return o, usagef("wisp mcp serve: unknown flag %s (%s)", strconv.Quote(clipRunes(args[i], 40)), usage)
		}
		if hasValue {
			return o, usagef("wisp mcp serve: flag %s takes no value", strconv.Quote(clipRunes(args[i], 40)))
		}
	}
	return o, nil
}
