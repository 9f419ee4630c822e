package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// MCPServer is one entry of settings.json's mcp_servers (user file only):
// a stdio server wisp starts and whose tools it offers through the gate.
type MCPServer struct {
	// Name is the entry's key.
	Name    string            `json:"-"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	// EnvFrom names variables of wisp's own environment forwarded to the
	// server; a missing one skips the server.
	EnvFrom []string `json:"env_from"`
	// ToolSafety assigns read, mutating or command to a remote tool by
	// its exact name; every other tool is command.
	ToolSafety map[string]string `json:"tool_safety"`
	// Problem is why the entry cannot be used, worded for the person
	// without any of its values ("" when it can).
	Problem string `json:"-"`
}

// MCPServerList reads mcp_servers, sorted by name. A value that is not an
// object is malformed as a whole; an entry that is wrong comes back with
// its Problem set, so that one bad entry leaves the others working.
func (s Settings) MCPServerList() ([]MCPServer, error) {
	raw := bytes.TrimSpace(s.MCPServers)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("mcp_servers: must be an object of servers by name")
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]MCPServer, 0, len(names))
	for _, n := range names {
		out = append(out, parseMCPServer(n, entries[n]))
	}
	return out, nil
}

// parseMCPServer decodes and checks one entry. Problems name the key at
// fault, never a value: a value may be a secret.
func parseMCPServer(name string, raw json.RawMessage) MCPServer {
	srv := MCPServer{Name: name}
	fail := func(what string) MCPServer {
		return MCPServer{Name: name, Problem: fmt.Sprintf("mcp_servers.%s: %s", name, what)}
	}
	if name == "" {
		return fail("a server needs a non-empty name")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&srv); err != nil {
		return fail("must be an object with command (string), args (strings), env (object of strings), env_from (strings) and tool_safety (object of read, mutating or command)")
	}
	srv.Name = name
	if srv.Command == "" {
		return fail("command must be a non-empty string")
	}
	for _, v := range srv.EnvFrom {
		if v == "" {
			return fail("env_from may not hold an empty name")
		}
	}
	for k := range srv.Env {
		if k == "" {
			return fail("env may not hold an empty name")
		}
	}
	for tool, class := range srv.ToolSafety {
		switch class {
		case "read", "mutating", "command":
		default:
			return fail(fmt.Sprintf("tool_safety.%s: must be read, mutating or command", tool))
		}
	}
	return srv
}
