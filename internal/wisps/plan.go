package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
)

// Caller runs one tool call; the host's goes through the gate. A refusal
// comes back as a Result with Refusal set.
type Caller interface {
	Call(ctx context.Context, name string, args json.RawMessage) (tool.Result, error)
}

// Directory says which tools a wisp may name.
type Directory interface {
	// Spec finds a tool by the name a Caller takes.
	Spec(name string) (tool.Spec, bool)
	// MCPTool resolves an Mcp step's tool: a typed name (server empty)
	// or a server and the server's own tool name. Typed names are looked
	// up, never parsed.
	MCPTool(server, name string) (MCPRef, bool)
	// ServerTools lists the typed tools of an MCP server (nil when the
	// server is unknown).
	ServerTools(server string) []string
}

// MCPRef is a resolved MCP tool: the name a Caller takes, and the
// server and the server's own name for it.
type MCPRef struct {
	Name, Server, Tool string
}

// Tools is what the executor needs of the host.
type Tools interface {
	Caller
	Directory
}

// Tool names of the gateways that are not MCP.
const (
	WebSearch   = "web_search"
	WebBrowse   = "web_browse"
	InvokeAgent = "invoke_agent"
)

// ScriptTool is the tool a Script step in language calls.
func ScriptTool(language string) string { return "execute_" + language + "_script" }

// Plan is a definition checked against the tools at hand: the tool each
// direct step calls and the tools its LLM steps may call.
type Plan struct {
	Def Definition
	// Route maps a direct step's lower-cased id to its tool.
	Route map[string]string
	// Scope is the LLM steps' tool set, in a stable order.
	Scope []string
}

// Prepare resolves every tool a definition names. What does not resolve
// is a Structural error found before anything runs.
func Prepare(d Definition, dir Directory) (*Plan, error) {
	p := &Plan{Def: d, Route: map[string]string{}}
	p.Def.Steps = append([]Step(nil), d.Steps...)
	for i, st := range p.Def.Steps {
		if st.Mode != Direct {
			continue
		}
		if st.Gateway == Mcp {
			// The shorthand becomes server + tool before hashing, so both
			// forms of one wisp share their hashes.
			if ref, ok := dir.MCPTool(st.Server, st.Tool); ok {
				p.Def.Steps[i].Server, p.Def.Steps[i].Tool = ref.Server, ref.Tool
			}
		}
		name, err := route(st, dir)
		if err != nil {
			return nil, err
		}
		p.Route[strings.ToLower(st.ID)] = name
		p.addScope(name)
	}
	for _, t := range d.Tools {
		if err := p.addExtra(t, dir); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (p *Plan) addScope(name string) {
	if !slices.Contains(p.Scope, name) {
		p.Scope = append(p.Scope, name)
	}
}

// addExtra adds a tools entry: a tool name, a typed MCP name or a server.
func (p *Plan) addExtra(t string, dir Directory) error {
	if _, ok := dir.Spec(t); ok {
		p.addScope(t)
		return nil
	}
	if ref, ok := dir.MCPTool("", t); ok {
		p.addScope(ref.Name)
		return nil
	}
	if names := dir.ServerTools(t); len(names) > 0 {
		for _, n := range names {
			p.addScope(n)
		}
		return nil
	}
	return structural("", "tools", "%q is not a tool, a typed MCP tool or an MCP server of this session", t)
}

// route finds the tool of a direct step.
func route(st Step, dir Directory) (string, error) {
	switch st.Gateway {
	case Mcp:
		ref, ok := dir.MCPTool(st.Server, st.Tool)
		if !ok {
			if st.Server != "" {
				return "", structural(st.ID, "tool", "MCP server %q has no tool %q (or the server is not configured)", st.Server, st.Tool)
			}
			return "", structural(st.ID, "tool", "%q is not a typed MCP tool of this session (server__tool), and no server was given", st.Tool)
		}
		return ref.Name, nil
	case Script:
		return need(st, "language", ScriptTool(st.ScriptLanguage()), dir)
	case Web:
		if _, ok := dir.Spec(st.Tool); !ok && st.Tool == WebSearch {
			if why := unavailable(dir, WebSearch); why != "" {
				return "", structural(st.ID, "tool", "web_search cannot be used: %s", why)
			}
			return "", structural(st.ID, "tool", "web_search has no search backend configured (settings.json: web_search)")
		}
		return need(st, "tool", st.Tool, dir)
	case A2A:
		name, err := need(st, "agent", InvokeAgent, dir)
		if err != nil {
			return "", err
		}
		if a, ok := dir.(Agents); ok && !a.HasAgent(st.Agent) {
			return "", structural(st.ID, "agent", "agent %q is not configured (settings.json: a2a_agents)", st.Agent)
		}
		return name, nil
	}
	return "", structural(st.ID, "gateway", "unknown gateway %q", st.Gateway)
}

// Unavailable is implemented by a Directory that can say why a gateway
// tool is missing (its setting is malformed).
type Unavailable interface {
	// Unavailable says why the tool name cannot be used, "" when it is
	// simply not configured.
	Unavailable(name string) string
}

// Agents is implemented by a Directory that knows the A2A agents
// invoke_agent may call.
type Agents interface {
	HasAgent(name string) bool
}

func unavailable(dir Directory, name string) string {
	if u, ok := dir.(Unavailable); ok {
		return u.Unavailable(name)
	}
	return ""
}

func need(st Step, field, name string, dir Directory) (string, error) {
	if _, ok := dir.Spec(name); ok {
		return name, nil
	}
	if st.Gateway == A2A {
		if why := unavailable(dir, InvokeAgent); why != "" {
			return "", structural(st.ID, field, "invoke_agent cannot be used: %s", why)
		}
		return "", structural(st.ID, field, "A2A agents are not configured: no agent %q can be invoked (settings.json: a2a_agents)", st.Agent)
	}
	return "", structural(st.ID, field, "tool %s is not available in this session", name)
}

// callArgs builds the arguments of a direct step's call from its
// resolved params.
func callArgs(st Step, params json.RawMessage) (json.RawMessage, error) {
	if st.Gateway != A2A {
		if len(params) == 0 {
			return json.RawMessage("{}"), nil
		}
		return params, nil
	}
	b, err := json.Marshal(map[string]any{"agent": st.Agent, "skill": st.Skill, "message": st.Message})
	if err != nil {
		return nil, fmt.Errorf("build the A2A call: %w", err)
	}
	return b, nil
}
