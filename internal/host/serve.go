package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

// ServeMode is the Frontend.Mode of wisp mcp serve. Such a session
// serves wisp's own tools and starts none of the user's MCP servers;
// its direct calls are audited with origin mcp.
const ServeMode = "mcp"

// servedSource marks the tools a session took from the user's MCP
// servers: wisp serves its own tools, never another server's again.
const servedSource = "mcp"

// ServedTools are the exposed tools a frontend may call directly with
// CallTool, in the order the model would see them: the built-ins, skill,
// extension and custom tools, without the ones taken from MCP servers.
func (s *Session) ServedTools() []tool.Spec {
	var out []tool.Spec
	for _, spec := range s.tools.Specs() {
		if s.toolset.Sources[spec.Name] != servedSource {
			out = append(out, spec)
		}
	}
	return out
}

// Catalog is the catalogue `wisp tools --json` prints for this folder:
// every tool the session could get, custom ones last, without the ones
// taken from MCP servers (which `wisp tools` does not start).
func (s *Session) Catalog() []tool.Info {
	own := tool.NewRegistry()
	for _, name := range s.toolset.All.Names() {
		if t, ok := s.toolset.All.Get(name); ok && s.toolset.Sources[name] != servedSource {
			own.Add(t)
		}
	}
	return tool.Catalog(own, func(n string) string { return s.toolset.Sources[n] })
}

// CallTool runs one call of a served tool through the session's gate as
// the agent runs a model's call: policy, classifier, the session's
// approver, sandbox, output bound and audit, but no model and no turn;
// the audit names the frontend's mode as the call's origin.
// A refusal or a failure of the tool is a Result with IsError set; the
// error is for a name that is not served or a call that could not be
// made at all.
func (s *Session) CallTool(ctx context.Context, name string, args json.RawMessage) (tool.Result, error) {
	return s.callAs(ctx, name, args, s.fe.Mode)
}

// OriginPerson is the audit's origin of a command the person typed.
const OriginPerson = "person"

// RunTyped runs a shell line the person typed (the full screen's
// !command) as the model's bash calls run: policy, classifier, approval,
// sandbox, output bound and audit, whose tool.call says origin "person".
func (s *Session) RunTyped(ctx context.Context, line string) (tool.Result, error) {
	args, err := json.Marshal(map[string]string{"command": line})
	if err != nil {
		return tool.Result{}, fmt.Errorf("encode the typed command: %w", err)
	}
	return s.callAs(ctx, "bash", args, OriginPerson)
}

// callAs is CallTool for a caller the audit names as origin.
func (s *Session) callAs(ctx context.Context, name string, args json.RawMessage, origin string) (tool.Result, error) {
	t, ok := s.servedTool(name)
	if !ok {
		return tool.Result{}, fmt.Errorf("unknown tool %q; served tools: %s", name, strings.Join(s.servedNames(), ", "))
	}
	env := tool.Env{Workdir: s.sys.Workdir, TempDir: s.temp.Spill}
	return gate.RunDirect(ctx, "mcp_", gate.Call{Name: name, Args: args, Origin: origin}, func(ctx context.Context, c gate.Call) (tool.Result, error) {
		return s.gate.Run(ctx, c, t, env)
	})
}

func (s *Session) servedTool(name string) (tool.Tool, bool) {
	if s.toolset.Sources[name] == servedSource {
		return nil, false
	}
	return s.tools.Get(name)
}

func (s *Session) servedNames() []string {
	var names []string
	for _, spec := range s.ServedTools() {
		names = append(names, spec.Name)
	}
	return names
}
