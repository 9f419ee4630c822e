package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
)

// fileWorkspace builds a workspace in a temp folder next to a folder
// "outside" that holds secret.txt. files maps slash paths to contents; a
// content starting with "->" makes a symlink to the rest.
func fileWorkspace(t testing.TB, files map[string]string) (root string, env *tool.Env) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, &tool.Env{Workdir: root, TempDir: t.TempDir()}
}

// callTool runs a tool; a Go error fails the test.
func callTool(t testing.TB, tl tool.Tool, env *tool.Env, args string) tool.Result {
	t.Helper()
	res, err := tl.Run(context.Background(), env, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tl.Spec().Name, args, err)
	}
	return res
}

func readBack(t testing.TB, root, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// fileTools are the tools this file's helpers serve, with their classes.
var fileTools = []struct {
	new   func() tool.Tool
	name  string
	class tool.Class
}{
	{Read, "read", tool.Read},
	{Write, "write", tool.Mutating},
	{Edit, "edit", tool.Mutating},
	{Grep, "grep", tool.Read},
	{Find, "find", tool.Read},
	{Ls, "ls", tool.Read},
}

// TestFileToolSpecs keeps the specs valid and small: the first request
// with every built-in tool must stay under 8 KB, which leaves the file
// tools about 500 bytes each of description and schema.
func TestFileToolSpecs(t *testing.T) {
	total := 0
	for _, ft := range fileTools {
		t.Run(ft.name, func(t *testing.T) {
			s := ft.new().Spec()
			if s.Name != ft.name || s.Class != ft.class {
				t.Fatalf("spec is %s/%s, want %s/%s", s.Name, s.Class, ft.name, ft.class)
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(s.Schema, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
				t.Fatalf("schema %s: %v", s.Schema, err)
			}
			for _, r := range schema.Required {
				if _, ok := schema.Properties[r]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
			size := len(s.Description) + len(s.Schema)
			total += size
			if s.Description == "" || size > 600 {
				t.Fatalf("description + schema = %d bytes, want 1..600", size)
			}
		})
	}
	if total > 2800 {
		t.Fatalf("file tools take %d bytes of the first request, want at most 2800", total)
	}
}

// TestFileToolsConfined sends every tool at paths that leave the
// workspace, by "..", by absolute path and through a symlink.
func TestFileToolsConfined(t *testing.T) {
	root, env := fileWorkspace(t, map[string]string{
		"a.txt":    "hello\n",
		"out":      "->../outside",
		"dangling": "->../outside/new.txt",
	})
	outside := filepath.Join(filepath.Dir(root), "outside")
	paths := []string{"../outside/secret.txt", filepath.Join(outside, "secret.txt"), "out/secret.txt", "out", "dangling", "/etc/passwd"}
	for _, ft := range fileTools {
		for _, p := range paths {
			t.Run(ft.name+" "+p, func(t *testing.T) {
				args := map[string]any{"path": p}
				switch ft.name {
				case "write":
					args["content"] = "pwned"
				case "edit":
					args["old_text"], args["new_text"] = "top", "pwned"
				case "grep":
					args["pattern"] = "secret"
				case "find":
					args["pattern"] = "*"
				}
				raw, _ := json.Marshal(args)
				res := callTool(t, ft.new(), env, string(raw))
				want := "error: path outside the workspace: " + p
				if !res.IsError || res.Content != want {
					t.Fatalf("got %q, want %q", res.Content, want)
				}
			})
		}
	}
	if got := readBack(t, filepath.Dir(root), "outside/secret.txt"); got != "top secret\n" {
		t.Fatalf("outside file changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("a file was created outside through the dangling link")
	}
}

// TestFileToolArgs checks that malformed arguments come back to the model
// as an error naming what was wrong, never as a Go error.
func TestFileToolArgs(t *testing.T) {
	_, env := fileWorkspace(t, map[string]string{"a.txt": "x\n"})
	tests := []struct {
		tool tool.Tool
		args string
		want string
	}{
		{Read(), `{"path": 3}`, "error: invalid arguments: path must be a string, got number"},
		{Read(), `{"path": "a.txt", "offset": "2"}`, "error: invalid arguments: offset must be an integer, got string"},
		{Read(), `{"path": "a.txt", "limit": 1.5}`, "error: invalid arguments: limit must be an integer, got number 1.5"},
		{Read(), `{}`, "error: path is required"},
		{Read(), `[1]`, "error: invalid arguments: expected a JSON object, got array"},
		{Read(), `{"path": "a.txt", "offset": -1}`, "error: offset must be 1 or more, got -1"},
		{Write(), `{"path": "b.txt"}`, "error: content is required"},
		{Write(), `{"path": "b.txt", "content": 5}`, "error: invalid arguments: content must be a string, got number"},
		{Edit(), `{"path": "a.txt", "edits": {}}`, "error: invalid arguments: edits must be an array, got object"},
		{Edit(), `{"path": "a.txt", "old_text": "x"}`, "error: new_text is required"},
		{Edit(), `{"path": "a.txt", "old_text": "", "new_text": "y"}`, "error: old_text must not be empty"},
		{Edit(), `{"path": "a.txt", "old_text": "x", "new_text": "y", "edits": []}`, "error: give either old_text/new_text or edits, not both"},
		{Edit(), `{"path": "a.txt", "edits": [{"old_text": "x"}]}`, "error: edits[0].new_text is required"},
		{Edit(), `{"path": "a.txt", "edits": []}`, "error: give old_text and new_text, or a non-empty edits list"},
		{Grep(), `{"pattern": "("}`, "error: invalid pattern: "},
		{Grep(), `{"pattern": "x", "ignore_case": "yes"}`, "error: invalid arguments: ignore_case must be a boolean, got string"},
		{Grep(), `{"pattern": "x", "context": -2}`, "error: context must be 0 or more"},
		{Grep(), `{"pattern": "x", "glob": "[a"}`, `error: invalid glob "[a"`},
		{Find(), `{}`, "error: pattern is required"},
		{Find(), `{"pattern": "{a,b"}`, `error: invalid glob "{a,b"`},
		{Ls(), `{"path": ["a"]}`, "error: invalid arguments: path must be a string, got array"},
		{Ls(), `{"path": "a`, "error: invalid arguments: "},
	}
	for _, tc := range tests {
		t.Run(tc.tool.Spec().Name+" "+tc.args, func(t *testing.T) {
			res := callTool(t, tc.tool, env, tc.args)
			if !res.IsError || !strings.HasPrefix(res.Content, tc.want) {
				t.Fatalf("got %q, want prefix %q", res.Content, tc.want)
			}
		})
	}
}

func TestWriteFileAtomicLeavesNoTemp(t *testing.T) {
	root, env := fileWorkspace(t, map[string]string{"d/f.txt": "old"})
	space, err := filespace.Open(env)
	if err != nil {
		t.Fatal(err)
	}
	defer space.Close()
	for i := range 3 {
		if _, err := space.ReplaceFile("d/f.txt", []byte(strings.Repeat("x", i)), nil); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(root, "d"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "f.txt" {
		t.Fatalf("folder holds %v", entries)
	}
}

func TestFileToolsCancelled(t *testing.T) {
	_, env := fileWorkspace(t, map[string]string{"a.txt": "x\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	args := map[string]string{
		"read":  `{"path":"a.txt"}`,
		"write": `{"path":"b.txt","content":"x"}`,
		"edit":  `{"path":"a.txt","old_text":"x","new_text":"y"}`,
		"grep":  `{"pattern":"x"}`,
		"find":  `{"pattern":"*"}`,
		"ls":    `{}`,
	}
	for _, ft := range fileTools {
		t.Run(ft.name, func(t *testing.T) {
			if _, err := ft.new().Run(ctx, env, json.RawMessage(args[ft.name])); err != context.Canceled {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
	if got := readBack(t, env.Workdir, "a.txt"); got != "x\n" {
		t.Fatalf("a.txt changed to %q", got)
	}
}
