package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	_, env := fileWorkspace(t, map[string]string{
		"main.go":               "",
		"README.md":             "",
		"cmd/wisp/main.go":      "",
		"cmd/wisp/main_test.go": "",
		"internal/a/a.go":       "",
		"internal/a/a_test.go":  "",
		"internal/b/b.txt":      "",
		".hidden/x.go":          "",
		".git/HEAD":             "",
		".git/info/exclude":     "excluded.txt\n",
		"excluded.txt":          "",
		".git/hooks/pre.go":     "",
		".gitignore":            "vendor/\n*.tmp\n",
		"vendor/v.go":           "",
		"scratch.tmp":           "",
		"internal/.gitignore":   "b/\n",
		"link.go":               "->main.go",
		"out":                   "->../outside",
	})
	tests := []struct {
		name, args, want string
	}{
		{name: "name at any depth", args: `{"pattern":"*.go"}`,
			want: ".hidden/x.go\ncmd/wisp/main.go\ncmd/wisp/main_test.go\ninternal/a/a.go\ninternal/a/a_test.go\nlink.go@\nmain.go\n"},
		{name: "double star", args: `{"pattern":"**/*_test.go"}`,
			want: "cmd/wisp/main_test.go\ninternal/a/a_test.go\n"},
		{name: "double star in the middle", args: `{"pattern":"internal/**/a.go"}`, want: "internal/a/a.go\n"},
		{name: "anchored below path", args: `{"pattern":"wisp/*.go","path":"cmd"}`,
			want: "cmd/wisp/main.go\ncmd/wisp/main_test.go\n"},
		{name: "anchored is not at any depth", args: `{"pattern":"a/*.go"}`, want: "no matches for a/*.go under .\n"},
		{name: "braces", args: `{"pattern":"*.{md,txt}"}`, want: "README.md\n"},
		{name: "folders marked", args: `{"pattern":"wisp"}`, want: "cmd/wisp/\n"},
		{name: "everything below a path", args: `{"pattern":"**","path":"internal"}`,
			want: "internal/.gitignore\ninternal/a/\ninternal/a/a.go\ninternal/a/a_test.go\n"},
		{name: "ignored only when asked by path", args: `{"pattern":"*.go","path":"vendor"}`, want: "vendor/v.go\n"},
		{name: "dot slash prefix", args: `{"pattern":"./cmd/**/main.go"}`, want: "cmd/wisp/main.go\n"},
		{name: "path is a file", args: `{"pattern":"*","path":"main.go"}`, want: "error: main.go is a file, not a folder"},
		{name: "missing path", args: `{"pattern":"*","path":"nope"}`, want: "error: no such file or folder: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, Find(), env, tc.args)
			if res.Content != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", res.Content, tc.want)
			}
		})
	}
}

func TestFindCap(t *testing.T) {
	root, env := fileWorkspace(t, nil)
	for d := range 11 {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 2 { // the same first 1000 every time
		res := callTool(t, Find(), env, `{"pattern":"*.txt"}`)
		lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
		if len(lines) != 1001 || lines[1000] != "[results capped at 1000; narrow the pattern or path]" {
			t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
		}
		if lines[0] != "d00/f000.txt" || lines[999] != "d09/f099.txt" {
			t.Fatalf("first %q, last %q", lines[0], lines[999])
		}
	}
}
