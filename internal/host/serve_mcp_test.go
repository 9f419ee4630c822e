package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/gate"
)

// TestServeStartsNoMCPServers: a session of wisp mcp serve starts none
// of the user's MCP servers (a print session with the same settings
// does), and its direct calls are audited with origin mcp.
func TestServeStartsNoMCPServers(t *testing.T) {
	base := t.TempDir()
	marker := filepath.Join(base, "started")
	script := filepath.Join(base, "server.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho started >> "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"], env["WISP_HOME"]); err != nil {
		t.Fatal(err)
	}
	settings := fmt.Sprintf(`{"mcp_servers": {"marker": {"command": %q}}}`, script)
	if err := os.WriteFile(filepath.Join(env["WISP_HOME"], "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys.Workdir, "note.txt"), []byte("SERVED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{MaxToolIters: -1, NoSession: true}
	s, err := New(context.Background(), o, sys, Frontend{Mode: ServeMode, Interactive: true, Approver: gate.Deny{Reason: "no"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.MCPStatus()) != 0 {
		t.Errorf("serve mode has MCP servers: %+v", s.MCPStatus())
	}
	if res, err := s.CallTool(context.Background(), "read", json.RawMessage(`{"path":"note.txt"}`)); err != nil || !strings.Contains(res.Content, "SERVED") {
		t.Fatalf("%v %+v", err, res)
	}
	s.Close()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("wisp mcp serve started a configured MCP server (stat: %v)", err)
	}
	logs, _ := filepath.Glob(filepath.Join(env["WISP_HOME"], "logs", "*"))
	var audited strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		audited.Write(data)
	}
	if !strings.Contains(audited.String(), `"tool":"read","class":"read","args":"{\"path\":\"note.txt\"}","bytes":19,"origin":"mcp"`) {
		t.Errorf("the served call is not audited with origin mcp:\n%s", audited.String())
	}

	// The same settings in a print session start the server: the
	// marker proves the check above could fail.
	p, err := New(context.Background(), o, sys, Frontend{Mode: "print"})
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a print session did not start the configured server either")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRunTypedIsAuditedAsThePersons: a command the person typed goes
// through the gate (a policy-denied one is refused) and its tool.call
// says origin person.
func TestRunTypedIsAuditedAsThePersons(t *testing.T) {
	base := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"], env["WISP_HOME"]); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: "tui", Interactive: true, Approver: gate.Allow{}})
	if err != nil {
		t.Fatal(err)
	}
	// (This package's tests have no sandbox helper, so the line is one
	// the policy refuses before anything runs.)
	if res, _ := s.RunTyped(context.Background(), "sudo true"); !res.IsError || !strings.Contains(res.Content, "policy") {
		t.Errorf("a typed sudo was not refused by the policy: %+v", res)
	}
	s.Close()
	logs, _ := filepath.Glob(filepath.Join(env["WISP_HOME"], "logs", "*"))
	var audited strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		audited.Write(data)
	}
	if !strings.Contains(audited.String(), `"args":"{\"command\":\"sudo true\"}","bytes":23,"origin":"person"`) {
		t.Errorf("the typed commands are not audited as the person's:\n%s", audited.String())
	}
}
