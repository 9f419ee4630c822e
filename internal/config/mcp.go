package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// MCPServer is one entry of settings.json's mcp_servers (user file only):
// a stdio server wisp starts (command), or a streamable HTTP server wisp
// connects to (url), whose tools it offers through the gate.
type MCPServer struct {
	// Name is the entry's key.
	Name    string            `json:"-"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	// EnvFrom names variables of wisp's own environment forwarded to the
	// server; a missing one skips the server.
	EnvFrom []string `json:"env_from"`
	// URL is a streamable HTTP server's endpoint (instead of Command).
	URL string `json:"url"`
	// HeadersFrom sends, with each request to a URL server, a header
	// whose value is the named variable of wisp's own environment
	// (header name to variable name); a missing one skips the server.
	HeadersFrom map[string]string `json:"headers_from"`
	// ToolSafety assigns read, mutating or command to a remote tool by
	// its exact name; every other tool is command.
	ToolSafety map[string]string `json:"tool_safety"`
	// Problem is why the entry cannot be used, worded for the person
	// without any of its values ("" when it can).
	Problem string `json:"-"`
}

// MCPSettings is settings.json's mcp object.
type MCPSettings struct {
	// SchemaBudgetBytes bounds the system prompt and tool definitions of
	// a first request (0: 16 KiB); the MCP tools past it are offered
	// through tool_search.
	SchemaBudgetBytes int `json:"schema_budget_bytes" range:"1024,16777216"`
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
		return fail("must be an object with command (string), args (strings), env (object of strings), env_from (strings), url (string), headers_from (object of strings) and tool_safety (object of read, mutating or command)")
	}
	srv.Name = name
	if why := checkTransport(srv); why != "" {
		return fail(why)
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

// envName is a variable name headers_from may name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// headerName is an HTTP header field name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// ownHeaders are the headers the MCP transport sets itself.
var ownHeaders = map[string]bool{
	"accept": true, "content-type": true, "content-length": true, "host": true, "connection": true,
	"transfer-encoding": true, "mcp-session-id": true, "mcp-protocol-version": true, "last-event-id": true,
}

// checkTransport says what is wrong with how an entry reaches its
// server: a command with its own keys, or a url with its own. Like every
// problem, it names keys and never a value.
func checkTransport(srv MCPServer) string {
	switch {
	case srv.Command != "" && srv.URL != "":
		return "give command (a stdio server) or url (a streamable HTTP server), not both"
	case srv.Command == "" && srv.URL == "":
		return "command must be a non-empty string (or url, for a streamable HTTP server)"
	case srv.Command != "" && len(srv.HeadersFrom) > 0:
		return "headers_from applies to url servers only"
	case srv.URL != "" && (len(srv.Args) > 0 || len(srv.Env) > 0 || len(srv.EnvFrom) > 0):
		return "args, env and env_from apply to command servers only; a url server takes headers_from"
	}
	if srv.URL != "" {
		u, err := url.Parse(srv.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "url must be an absolute http or https address"
		}
		if u.User != nil {
			return "url may not hold a user or password; send credentials with headers_from"
		}
	}
	for _, h := range slices.Sorted(maps.Keys(srv.HeadersFrom)) {
		if !headerName.MatchString(h) || ownHeaders[strings.ToLower(h)] {
			return "headers_from: a key is not a header name wisp may send"
		}
		if !envName.MatchString(srv.HeadersFrom[h]) {
			return "headers_from." + h + ": must name an environment variable"
		}
	}
	return ""
}
