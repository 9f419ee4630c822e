package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLs(t *testing.T) {
	_, env := fileWorkspace(t, map[string]string{
		"b.txt":        "",
		"a.go":         "",
		".env.example": "",
		"src/x.go":     "",
		"empty/":       "",
		"link":         "->a.go",
		"out":          "->../outside",
		".git/HEAD":    "",
	})
	tests := []struct {
		name, args, want string
	}{
		{name: "root sorted with marks", args: `{}`, want: ".env.example\n.git/\na.go\nb.txt\nempty/\nlink@\nout@\nsrc/\n"},
		{name: "subfolder", args: `{"path":"src"}`, want: "x.go\n"},
		{name: "trailing slash", args: `{"path":"src/"}`, want: "x.go\n"},
		{name: "empty folder", args: `{"path":"empty"}`, want: "(empty is empty)"},
		{name: "file", args: `{"path":"a.go"}`, want: "error: a.go is a file, not a folder; use read to see it"},
		{name: "missing", args: `{"path":"nope"}`, want: "error: no such file or folder: nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, Ls(), env, tc.args)
			if res.Content != tc.want {
				t.Fatalf("got\n%q\nwant\n%q", res.Content, tc.want)
			}
		})
	}
}

func TestLsCap(t *testing.T) {
	root, env := fileWorkspace(t, nil)
	for i := range 503 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := callTool(t, Ls(), env, `{}`)
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != 501 || lines[499] != "f499" || lines[500] != "[... 3 more entries, 503 in all; use find with a pattern to narrow]" {
		t.Fatalf("%d lines, tail %q", len(lines), lines[len(lines)-2:])
	}
}
