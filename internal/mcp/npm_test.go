package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/mcp/mcptest"
	"github.com/wisp-agent/wisp/internal/tool"
)

// TestRealServers drives the reference servers from npm: discovery,
// calls, image notes, a large output bounded, and the environment each
// server gets.
func TestRealServers(t *testing.T) {
	everything, filesystem := mcptest.NPMServer(t, "mcp-server-everything"), mcptest.NPMServer(t, "mcp-server-filesystem")
	t.Setenv("WISP_TEST_NOT_FORWARDED", "leak")
	root := t.TempDir()
	big := strings.Repeat("line of a large file\n", 10000)
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	s, st := startAll(t, DefaultLimits(),
		config.MCPServer{Name: "everything", Command: everything, Args: []string{"stdio"}},
		config.MCPServer{Name: "fs", Command: filesystem, Args: []string{root}, ToolSafety: map[string]string{"read_text_file": "read"}},
	)
	for _, x := range st {
		if x.State != StateReady || x.Tools == 0 {
			t.Fatalf("%s: %+v", x.Name, x)
		}
	}
	tools := s.Tools(context.Background(), nil)
	cases := []struct {
		tool, args string
		env        *tool.Env
		want       []string
		not        []string
	}{
		{"mcp__everything__echo", `{"message":"hello"}`, nil, []string{"Echo: hello"}, nil},
		{"mcp__everything__get-sum", `{"a":2,"b":40}`, nil, []string{"42"}, nil},
		{"mcp__everything__get-tiny-image", `{}`, nil, []string{"[image image/png, "}, []string{"iVBOR"}},
		{"mcp__everything__get-env", `{}`, nil, []string{"PATH"}, []string{"WISP_TEST_NOT_FORWARDED", "leak"}},
		{"mcp__fs__list_directory", `{"path":"` + root + `"}`, nil, []string{"[FILE] big.txt"}, nil},
		{"mcp__fs__read_text_file", `{"path":"` + filepath.Join(root, "big.txt") + `"}`, &tool.Env{OutputBytes: 50 * 1024, OutputLines: 2000},
			[]string{"[output cut: ", " of 210000 bytes shown (output bound 51200 bytes, 2000 lines)]"}, nil},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			env := c.env
			if env == nil {
				env = &tool.Env{}
			}
			res, err := find(t, tools, c.tool).Run(context.Background(), env, []byte(c.args))
			if err != nil || res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%.600s", w, res.Content)
				}
			}
			for _, w := range c.not {
				if strings.Contains(res.Content, w) {
					t.Errorf("result holds %q:\n%.600s", w, res.Content)
				}
			}
		})
	}
	if c := find(t, tools, "mcp__fs__read_text_file").Spec().Class; c != tool.Read {
		t.Errorf("read_text_file: class %s, want read (tool_safety)", c)
	}
	if c := find(t, tools, "mcp__everything__echo").Spec().Class; c != tool.Command {
		t.Errorf("echo: class %s, want command despite its annotations", c)
	}
}
