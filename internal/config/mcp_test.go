package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestMCPServerList(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		want    []MCPServer
		wantErr string
	}{
		{"absent", ``, nil, ""},
		{"null", `null`, nil, ""},
		{"not an object", `[1]`, nil, "mcp_servers: must be an object of servers by name"},
		{"full entry, sorted", `{"z":{"command":"z"},"github":{"command":"npx","args":["-y","x"],"env":{"READ_ONLY":"1"},"env_from":["GITHUB_TOKEN"],"tool_safety":{"search":"read"}}}`,
			[]MCPServer{
				{Name: "github", Command: "npx", Args: []string{"-y", "x"}, Env: map[string]string{"READ_ONLY": "1"}, EnvFrom: []string{"GITHUB_TOKEN"}, ToolSafety: map[string]string{"search": "read"}},
				{Name: "z", Command: "z"},
			}, ""},
		{"no command", `{"a":{"args":["secret-arg"]}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: command must be a non-empty string (or url, for a streamable HTTP server)"}}, ""},
		{"url entry", `{"h":{"url":"https://mcp.example.com/mcp","headers_from":{"Authorization":"MY_TOKEN"},"tool_safety":{"search":"read"}}}`,
			[]MCPServer{{Name: "h", URL: "https://mcp.example.com/mcp", HeadersFrom: map[string]string{"Authorization": "MY_TOKEN"}, ToolSafety: map[string]string{"search": "read"}}}, ""},
		{"command and url", `{"a":{"command":"secret","url":"https://secret"}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: give command (a stdio server) or url (a streamable HTTP server), not both"}}, ""},
		{"url not http", `{"a":{"url":"ftp://secret/x"}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: url must be an absolute http or https address"}}, ""},
		{"url relative", `{"a":{"url":"/secret"}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: url must be an absolute http or https address"}}, ""},
		{"url with a password", `{"a":{"url":"https://u:secret@host/"}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: url may not hold a user or password; send credentials with headers_from"}}, ""},
		{"url with args", `{"a":{"url":"https://host/","args":["secret"]}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: args, env and env_from apply to command servers only; a url server takes headers_from"}}, ""},
		{"command with headers", `{"a":{"command":"x","headers_from":{"X-Key":"K"}}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: headers_from applies to url servers only"}}, ""},
		{"bad header name", `{"a":{"url":"https://host/","headers_from":{"bad header secret":"K"}}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: headers_from: a key is not a header name wisp may send"}}, ""},
		{"transport's own header", `{"a":{"url":"https://host/","headers_from":{"Mcp-Session-Id":"K"}}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: headers_from: a key is not a header name wisp may send"}}, ""},
		{"bad variable name", `{"a":{"url":"https://host/","headers_from":{"X-Key":"secret value"}}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: headers_from.X-Key: must name an environment variable"}}, ""},
		{"bad safety", `{"a":{"command":"x","tool_safety":{"t":"safe"}}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: tool_safety.t: must be read, mutating or command"}}, ""},
		{"unknown key", `{"a":{"command":"x","cwd":"/secret"}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: must be an object with command (string), args (strings), env (object of strings), env_from (strings), url (string), headers_from (object of strings) and tool_safety (object of read, mutating or command)"}}, ""},
		{"empty env_from", `{"a":{"command":"x","env_from":[""]}}`, []MCPServer{{Name: "a", Problem: "mcp_servers.a: env_from may not hold an empty name"}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Settings{MCPServers: json.RawMessage(c.raw)}.MCPServerList()
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("err %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for _, s := range got {
				if strings.Contains(s.Problem, "secret") {
					t.Errorf("a problem quotes a value: %q", s.Problem)
				}
			}
		})
	}
}

// TestProjectCannotAddMCPServers: a trusted project's mcp_servers is
// dropped with a warning.
func TestProjectCannotAddMCPServers(t *testing.T) {
	root := t.TempDir()
	writeProjectSettings(t, root, `{"mcp_servers":{"evil":{"command":"x"}}}`)
	s, warns, err := LoadProject(Paths{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if list, _ := s.MCPServerList(); len(list) != 0 {
		t.Fatalf("a project added servers: %+v", list)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "a project cannot define MCP servers") {
		t.Fatalf("warnings %q", warns)
	}
}

func writeProjectSettings(t *testing.T, root, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(ProjectFile(root)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ProjectFile(root), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// problemShape is every problem an entry can have: fixed words after the
// entry's name, and for tool_safety the tool's name (a key, not a value).
var problemShape = regexp.MustCompile(`^mcp_servers\.(?s:(.*)): (a server needs a non-empty name|must be an object with .*|command must be a non-empty string \(or url, for a streamable HTTP server\)|give command .* not both|headers_from applies to url servers only|args, env and env_from apply to command servers only; a url server takes headers_from|url must be an absolute http or https address|url may not hold a user or password; send credentials with headers_from|headers_from: a key is not a header name wisp may send|headers_from\.[!#$%&'*+.^_\x60|~0-9A-Za-z-]+: must name an environment variable|env_from may not hold an empty name|env may not hold an empty name|tool_safety\.(?s:.*): must be read, mutating or command)$`)

// FuzzMCPServerList: any mcp_servers value parses or is refused without
// a panic, and a problem never quotes a command, an argument or an
// environment value: it is one of the fixed shapes, naming the entry.
func FuzzMCPServerList(f *testing.F) {
	f.Add(`{"a":{"command":"npx","args":["-y","SECRET"],"env":{"K":"SECRET"}}}`)
	f.Add(`{"a":{"command":"SECRET","tool_safety":{"x":"SECRET"}}}`)
	f.Add(`{"a":{"command":"x","env_from":["SECRET",""]}}`)
	f.Add(`{"a":{"url":"https://SECRET/","headers_from":{"X-SECRET":"SECRET"}}}`)
	f.Add(`{"a":{"url":"https://u:SECRET@h/","headers_from":{"Bad Header":"SECRET"}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		list, _ := Settings{MCPServers: json.RawMessage(raw)}.MCPServerList()
		for _, s := range list {
			if s.Problem == "" {
				continue
			}
			m := problemShape.FindStringSubmatch(s.Problem)
			if m == nil || !strings.HasPrefix(m[1], s.Name) {
				t.Fatalf("problem of %q has an unknown shape: %q", s.Name, s.Problem)
			}
		}
	})
}
