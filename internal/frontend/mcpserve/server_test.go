package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wisp-agent/wisp/internal/testbin"
)

// The tests run the real wisp binary (`wisp mcp serve`) and drive it
// with the go-sdk client. (A built binary, not this test binary
// re-executed: wisp starts copies of itself for the sandbox.)

// wisp is the package's build of cmd/wisp.
var wisp testbin.Wisp

// wispBinary builds cmd/wisp once for the package's tests.
func wispBinary(t *testing.T) string { return wisp.Path(t) }

func TestMain(m *testing.M) {
	code := m.Run()
	wisp.Remove()
	os.Exit(code)
}

// world is one test's home and workspace.
type world struct {
	bin, work string
	env       []string
}

// home is the world's HOME.
func (w *world) home() string { return filepath.Join(filepath.Dir(w.work), "home") }

func newWorld(t *testing.T) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{bin: wispBinary(t), work: filepath.Join(base, "work")}
	home := filepath.Join(base, "home")
	for _, d := range []string{home, w.work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"HOME=" + home, "WISP_HOME=" + filepath.Join(home, ".wisp"), "PATH=" + os.Getenv("PATH"),
		"TERM=dumb", "WISP_TRUST=0", "WISP_PROVIDER=fake"}
	return w
}

// serve starts `wisp mcp serve args...` and connects the go-sdk client.
func (w *world) serve(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	return w.serveWith(t, nil, "", args...)
}

// serveWith is serve with the client's options (an elicitation handler).
// version, when set, is the protocol version the client asks for.
func (w *world) serveWith(t *testing.T, opts *mcp.ClientOptions, version string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(w.bin, append([]string{"mcp", "serve"}, args...)...)
	cmd.Dir, cmd.Env = w.work, w.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "wisp-test", Version: "1"}, opts)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect to wisp mcp serve: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call runs one tool and returns its text and whether it is an error.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// customTool is a user's custom tool that reads a file (class read), so
// that it runs unasked.
const customTool = `{"tools": {"custom": [{"name": "line_head", "description": "Shows the first lines of a file.",
  "arguments": {"path": {"type": "string", "description": "The file"}}, "command": "head -n 1 {path}"}]}}`

// withCustomTool writes customTool into the world's config.json.
func (w *world) withCustomTool(t *testing.T) {
	t.Helper()
	dir := filepath.Join(w.home(), ".wisp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(customTool), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestListTools(t *testing.T) {
	w := newWorld(t)
	w.withCustomTool(t)
	cs := w.serve(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s has no description or schema", tl.Name)
		}
	}
	for _, want := range []string{"read", "grep", "find", "ls", "write", "edit", "bash", "line_head"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list = %v, missing %s", names, want)
		}
	}
	// Exposure flags narrow what is served.
	narrow := w.serve(t, "--allow-read-tools")
	res, err = narrow.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == "bash" || tl.Name == "write" {
			t.Errorf("--allow-read-tools serves %s", tl.Name)
		}
	}
}

// Every call goes through the gate: reads run, a command that would ask
// runs only with --yes, and the policy's deny rules win even then.
func TestCallsAreGated(t *testing.T) {
	tests := []struct {
		name      string
		flags     []string
		tool      string
		args      map[string]any
		wantError bool
		wantHas   string
		made      string // a file the call creates, or "" for none
		wantMade  bool
	}{
		{name: "read without --yes", tool: "read", args: map[string]any{"path": "note.txt"}, wantHas: "NOTE-TEXT"},
		{name: "command without --yes", tool: "bash", args: map[string]any{"command": "touch x"}, wantError: true, wantHas: "restart it with --yes", made: "x"},
		{name: "command with --yes", flags: []string{"--yes"}, tool: "bash", args: map[string]any{"command": "touch x"}, wantHas: "exit_code: 0", made: "x", wantMade: true},
		{name: "policy denial with --yes", flags: []string{"--yes"}, tool: "bash", args: map[string]any{"command": "sudo touch y"}, wantError: true, wantHas: "refused by policy rule", made: "y"},
		{name: "custom tool", tool: "line_head", args: map[string]any{"path": "note.txt"}, wantHas: "NOTE-TEXT"},
		{name: "tool error", tool: "read", args: map[string]any{"path": "missing.txt"}, wantError: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			if err := os.WriteFile(filepath.Join(w.work, "note.txt"), []byte("NOTE-TEXT\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			w.withCustomTool(t)
			cs := w.serve(t, tc.flags...)
			text, isError := call(t, cs, tc.tool, tc.args)
			if isError != tc.wantError || !strings.Contains(text, tc.wantHas) {
				t.Fatalf("result %q (is_error %v), want is_error %v and %q", text, isError, tc.wantError, tc.wantHas)
			}
			if tc.made == "" {
				return
			}
			_, err := os.Stat(filepath.Join(w.work, tc.made))
			if made := err == nil; made != tc.wantMade {
				t.Fatalf("%s created = %v, want %v", tc.made, made, tc.wantMade)
			}
		})
	}
}

// The resources are byte for byte what `wisp tools --markdown` and
// `wisp tools --json` print in the same folder.
func TestResourcesMatchWispTools(t *testing.T) {
	w := newWorld(t)
	w.withCustomTool(t)
	cs := w.serve(t)
	for _, tc := range []struct{ uri, flag string }{{ToolsMDURI, "--markdown"}, {ToolsURI, "--json"}} {
		t.Run(tc.uri, func(t *testing.T) {
			cmd := exec.Command(w.bin, "tools", tc.flag)
			cmd.Dir, cmd.Env = w.work, w.env
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("wisp tools %s: %v", tc.flag, err)
			}
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tc.uri})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].Text != string(want) {
				t.Fatalf("%s differs from wisp tools %s:\n%+v\nwant:\n%s", tc.uri, tc.flag, res.Contents, want)
			}
			if tc.flag == "--json" && !json.Valid([]byte(res.Contents[0].Text)) {
				t.Fatalf("%s is not JSON", tc.uri)
			}
			if !strings.Contains(res.Contents[0].Text, "line_head") {
				t.Fatalf("%s lacks the custom tool", tc.uri)
			}
		})
	}
}

// A client that supports elicitation during a call is asked, and its
// user's answer decides; the policy's deny rules are never put to the
// user. A client on a protocol version that forbids asking during a call
// gets the refusal that says to restart with --yes.
func TestApprovalByElicitation(t *testing.T) {
	tests := []struct {
		name      string
		version   string // the client's protocol version
		command   string
		action    string
		approve   bool
		wantError bool
		wantHas   string
		wantAsked bool
		wantMade  bool
	}{
		{name: "approved", version: "2025-06-18", command: "touch x", action: "accept", approve: true, wantHas: "exit_code: 0", wantAsked: true, wantMade: true},
		{name: "answered no", version: "2025-11-25", command: "touch x", action: "accept", approve: false, wantError: true, wantHas: "denied through the MCP client (accept)", wantAsked: true},
		{name: "declined", version: "2025-06-18", command: "touch x", action: "decline", wantError: true, wantHas: "denied through the MCP client (decline)", wantAsked: true},
		{name: "policy denial is not asked", version: "2025-06-18", command: "sudo touch x", action: "accept", approve: true, wantError: true, wantHas: "refused by policy rule"},
		{name: "multi round-trip version is refused", version: "2026-07-28", command: "touch x", action: "accept", approve: true, wantError: true, wantHas: "restart it with --yes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			var mu sync.Mutex
			var asked []string
			opts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params.Message)
				mu.Unlock()
				res := &mcp.ElicitResult{Action: tc.action}
				if tc.action == "accept" {
					res.Content = map[string]any{"approve": tc.approve}
				}
				return res, nil
			}}
			cs := w.serveWith(t, opts, tc.version)
			text, isError := call(t, cs, "bash", map[string]any{"command": tc.command})
			if isError != tc.wantError || !strings.Contains(text, tc.wantHas) {
				t.Fatalf("result %q (is_error %v), want is_error %v and %q", text, isError, tc.wantError, tc.wantHas)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := len(asked) > 0; got != tc.wantAsked {
				t.Fatalf("asked %q, want asked %v", asked, tc.wantAsked)
			}
			if tc.wantAsked && !strings.Contains(asked[0], tc.command) {
				t.Fatalf("the question %q does not show the command %q", asked[0], tc.command)
			}
			_, err := os.Stat(filepath.Join(w.work, "x"))
			if made := err == nil; made != tc.wantMade {
				t.Fatalf("x created = %v, want %v", made, tc.wantMade)
			}
		})
	}
}

// Stdout carries only MCP frames, the end of stdin ends the server with
// exit 0, and an end signal with 128+n after the session's last audit
// line.
func TestStdoutAndEnding(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	for _, tc := range []struct {
		name     string
		signal   bool
		wantCode int
	}{{"end of stdin", false, 0}, {"SIGTERM", true, 128 + int(syscall.SIGTERM)}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			cmd := exec.Command(w.bin, "mcp", "serve")
			cmd.Dir, cmd.Env = w.work, w.env
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout lockedBuffer
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(in, initialize); err != nil {
				t.Fatal(err)
			}
			// The answer to tools/list is out before the ending.
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(stdout.String(), `"id":2`) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if tc.signal {
				_ = cmd.Process.Signal(syscall.SIGTERM)
			} else {
				_ = in.Close()
			}
			err = cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tc.wantCode {
				t.Fatalf("exit code %d (%v), want %d; stderr: %s", code, err, tc.wantCode, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("stdout has %d lines, want the 2 answers:\n%s", len(lines), stdout.String())
			}
			for _, l := range lines {
				var frame struct {
					JSONRPC string `json:"jsonrpc"`
				}
				if err := json.Unmarshal([]byte(l), &frame); err != nil || frame.JSONRPC != "2.0" {
					t.Fatalf("stdout line is not an MCP frame: %q", l)
				}
			}
			audit, err := os.ReadFile(filepath.Join(w.home(), ".wisp", "logs", "audit.jsonl"))
			if err != nil || !strings.Contains(string(audit), `"mode":"mcp"`) || !strings.Contains(string(audit), `"kind":"session.end"`) {
				t.Fatalf("audit lacks the mcp session's start or end (%v):\n%s", err, audit)
			}
		})
	}
}

// lockedBuffer is written by the command's copying goroutine while the
// test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
