//go:build unix

package builtin

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

// TestFileToolsSkipFIFO makes sure no tool blocks on a named pipe, which
// opening for reading would do until a writer came.
func TestFileToolsSkipFIFO(t *testing.T) {
	root, env := fileWorkspace(t, map[string]string{"a.txt": "pipe dream\n"})
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	tests := []struct {
		tool tool.Tool
		args string
		want string
	}{
		{Read(), `{"path":"pipe"}`, "error: pipe is not a regular file"},
		{Edit(), `{"path":"pipe","old_text":"a","new_text":"b"}`, "error: pipe is not a regular file"},
		{Grep(), `{"pattern":"pipe","path":"pipe"}`, "error: pipe is not a regular file"},
		{Grep(), `{"pattern":"pipe"}`, "a.txt:1:pipe dream\n"},
		{Find(), `{"pattern":"pi*"}`, "pipe\n"},
	}
	for _, tc := range tests {
		t.Run(tc.tool.Spec().Name, func(t *testing.T) {
			if got := callTool(t, tc.tool, env, tc.args).Content; got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
