package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var allowedName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolName(t *testing.T) {
	long := strings.Repeat("a", 40)
	cases := []struct{ server, tool, want string }{
		{"everything", "echo", "mcp__everything__echo"},
		{"fs", "read_text_file", "mcp__fs__read_text_file"},
		{"fs", "get-sum", "mcp__fs__get-sum"},
		{"my.server", "echo", "mcp__my-server_h" + hash10("my.server") + "__echo"},
		{"a__b", "c", "mcp__a-b_h" + hash10("a__b") + "__c"},
		{"s", "tool.with.dots", "mcp__s__tool-with-dots_h" + hash10("tool.with.dots")},
		{"s", "x_h0123456789", "mcp__s__x-h0123456789_h" + hash10("x_h0123456789")},
		{"s", "", "mcp__s__x_h" + hash10("")},
		{"s", long + long, "mcp__s__" + strings.Repeat("a", 64-8-12) + "_h" + hash10(long+long)},
	}
	for _, c := range cases {
		if got := ToolName(c.server, c.tool); got != c.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
}

func hash10(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:10]
}

// TestToolNamesNeverCollide: names built from pairs that differ only in
// what normalisation removes, or past the length, stay distinct, stay
// within the providers' characters and length, and split back to their
// server's part.
func TestToolNamesNeverCollide(t *testing.T) {
	servers := []string{"a", "a_b", "a__b", "a-b", "a.b", "a b", "A_b", "a_", "_a", "x_h0123456789", strings.Repeat("s", 24), strings.Repeat("s", 25), strings.Repeat("s", 26), "émoji", ""}
	tools := []string{"t", "t_", "t__", "t.x", "t x", "t-x", "t_x", "T_x", "", strings.Repeat("t", 57), strings.Repeat("t", 58), strings.Repeat("t", 59), strings.Repeat("t", 100), strings.Repeat("t", 101), "über"}
	seen := map[string]string{}
	for _, s := range servers {
		for _, tl := range tools {
			checkName(t, s, tl, seen)
		}
	}
}

func checkName(t *testing.T, server, tool string, seen map[string]string) {
	t.Helper()
	n := ToolName(server, tool)
	pair := fmt.Sprintf("%q/%q", server, tool)
	if !allowedName.MatchString(n) || !strings.HasPrefix(n, namePrefix) {
		t.Errorf("%s: %q is not a valid name", pair, n)
	}
	if other, ok := seen[n]; ok && other != pair {
		t.Errorf("%s and %s share %q", pair, other, n)
	}
	seen[n] = pair
	rest := strings.TrimPrefix(n, namePrefix)
	if i := strings.Index(rest, "__"); i < 0 || rest[:i] != ServerPart(server) {
		t.Errorf("%s: %q does not split back to server part %q", pair, n, ServerPart(server))
	}
}

func FuzzToolName(f *testing.F) {
	f.Add("everything", "echo", "fs", "echo")
	f.Add("a.b", "c", "a_b", "c")
	f.Add("a", "b__c", "a__b", "c")
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2 string) {
		seen := map[string]string{}
		checkName(t, s1, t1, seen)
		checkName(t, s2, t2, seen)
	})
}
