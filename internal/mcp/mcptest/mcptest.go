// Package mcptest finds the MCP programs that .ci/run installs from npm
// (the reference servers, the inspector's CLI), for tests only. It
// starts nothing itself.
package mcptest

import (
	"os"
	"path/filepath"
	"testing"
)

// NPMServer is the path of an executable under the repository's .ci/npm
// (mcp-server-everything, mcp-server-filesystem, mcp-inspector-cli).
// When it is missing a test skips, and under CI (CI=true) it fails.
func NPMServer(t testing.TB, bin string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, ".ci", "npm", "node_modules", ".bin", bin)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	why := bin + " is not installed under .ci/npm (.ci/run installs it with npm)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}
