package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func paths(t *testing.T) Paths {
	t.Helper()
	home := t.TempDir()
	p, err := ResolvePaths(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(p.Home, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFileErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"not json", `{"approval": `, "malformed ~/.wisp/config.json: line 1: unexpected end of JSON input"},
		{"not an object", `[1,2]`, "malformed ~/.wisp/config.json: the file must hold a JSON object"},
		{"bad threshold", `{"approval":{"threshold":"sometimes"}}`, `malformed ~/.wisp/config.json: approval.threshold: must be safe, moderate, dangerous or never, not "sometimes"`},
		{"wrong type nested", `{"approval":{"timeoutSeconds":"soon"}}`, "malformed ~/.wisp/config.json: approval.timeoutSeconds: expected a whole number, got string"},
		{"wrong type top", `{"commandTimeoutSeconds":true}`, "malformed ~/.wisp/config.json: commandTimeoutSeconds: expected a whole number, got bool"},
		{"object expected", `{"sandbox":3}`, "malformed ~/.wisp/config.json: sandbox: expected an object"},
		{"list expected", `{"sandbox":{"writablePaths":"/x"}}`, "malformed ~/.wisp/config.json: sandbox.writablePaths: expected a list, got string"},
		{"relative writable path", `{"sandbox":{"writablePaths":["build"]}}`, `malformed ~/.wisp/config.json: sandbox.writablePaths[0]: "build" must be an absolute path or start with ~/`},
		{"negative timeout", `{"commandTimeoutSeconds":-1}`, "malformed ~/.wisp/config.json: commandTimeoutSeconds: must be between 1 and 86400, not -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := paths(t)
			if err := os.WriteFile(p.ConfigFile(), []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := LoadFile(p)
			var me *MalformedError
			if !errors.As(err, &me) || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestLoadFileDefaultsAndWarnings(t *testing.T) {
	p := paths(t)
	f, warns, err := LoadFile(p)
	if err != nil || len(warns) != 0 {
		t.Fatalf("missing file: %v %v", err, warns)
	}
	if f.Threshold() != "moderate" || f.CommandTimeout().Seconds() != 60 || !f.SandboxEnabled() || !f.AllowNetwork() {
		t.Errorf("defaults wrong: %+v", f)
	}
	if b, l := f.OutputBound(); b != 51200 || l != 2000 {
		t.Errorf("output bound %d/%d", b, l)
	}
	body := `{"approval":{"threshold":"dangerous","colour":"blue"},"frobnicate":1,"sandbox":{"enabled":false}}`
	if err := os.WriteFile(p.ConfigFile(), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	f, warns, err = LoadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Threshold() != "dangerous" || f.SandboxEnabled() {
		t.Errorf("values not read: %+v", f)
	}
	want := []string{`~/.wisp/config.json: unknown key "approval.colour" ignored`, `~/.wisp/config.json: unknown key "frobnicate" ignored`}
	if strings.Join(warns, "|") != strings.Join(want, "|") {
		t.Errorf("warnings %q, want %q", warns, want)
	}
}

// A project file can set the model, never tools, MCP servers, protected
// paths, the gate, the provider's address or keys.
func TestLoadProjectIgnoresWhatAProjectMayNotSet(t *testing.T) {
	p := paths(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".wisp"), 0o700); err != nil {
		t.Fatal(err)
	}
	body := `{"model":"m-project","tools":{"custom":[{"name":"x"}]},"mcp_servers":{"evil":{}},"sandbox":{"enabled":false},
	"protected_paths":["x"],"base_url":"http://evil","anthropic_api_key":"k","commandPolicy":{"allow":[".*"]}}`
	if err := os.WriteFile(ProjectFile(root), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	s, warns, err := LoadProject(p, root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "m-project" || s.BaseURL != "" || s.AnthropicAPIKey != "" || s.MCPServers != nil || s.ProtectedPaths != nil {
		t.Errorf("project settings = %+v", s)
	}
	joined := strings.Join(warns, "\n")
	for _, k := range []string{"tools", "mcp_servers", "sandbox", "protected_paths", "base_url", "anthropic_api_key", "commandPolicy"} {
		if !strings.Contains(joined, `"`+k+`" ignored`) {
			t.Errorf("no warning for %s in:\n%s", k, joined)
		}
	}
}

func TestPretty(t *testing.T) {
	p := Paths{UserHome: "/home/u"}
	for in, want := range map[string]string{"/home/u/.wisp/x": "~/.wisp/x", "/home/u": "~", "/home/user2/x": "/home/user2/x", "/etc": "/etc"} {
		if got := p.Pretty(in); got != want {
			t.Errorf("Pretty(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzDecodeObject: any input either decodes or fails with an error that
// names what was wrong; it never panics.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"approval":{"threshold":"safe","timeoutSeconds":3},"sandbox":{"writablePaths":["/x"]}}`))
	f.Add([]byte(`{"commandTimeoutSeconds":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var file File
		_, err := decodeObject(data, &file, "")
		if err != nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
	})
}
