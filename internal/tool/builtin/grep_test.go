package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/grepsearch"
)

func TestGrep(t *testing.T) {
	var many, wide strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&many, "hit %d\n", i)
		fmt.Fprintf(&wide, "hit %d %s\n%s\n", i, strings.Repeat("w", 400), strings.Repeat("c", 400))
	}
	_, env := fileWorkspace(t, map[string]string{
		"main.go":             "package main\n\nfunc NewReader() {}\nfunc newReaderSize() {}\n",
		"lib/util.go":         "package lib\n\n// NewReader wraps\nfunc NewReaderSize(n int) {}\n",
		"lib/crlf.txt":        "first line\r\nNewReader here\r\n",
		"lib/uni.txt":         "grüße NewReader 世界\n",
		"ctx.txt":             "a\nb\nmatch 1\nc\nd\ne\nf\ng\nmatch 2\nh\nmatch 3\n",
		"bin/blob.dat":        "NewReader\x00\x01binary",
		"long.txt":            strings.Repeat("y", 600) + " NewReader\n",
		".git/config":         "NewReader in git\n",
		".gitignore":          "build/\n*.log\n",
		"build/out.go":        "func NewReader() {}\n",
		"app.log":             "NewReader log\n",
		"sub/.gitignore":      "secret.txt\n!keep.log\n",
		"sub/secret.txt":      "NewReader hidden\n",
		"sub/keep.log":        "NewReader kept\n",
		"sub/other.log":       "NewReader other\n",
		"sub/deep/secret.txt": "NewReader hidden deeper\n",
		"many/hits.txt":       many.String(),
		"link.go":             "->main.go",
		"wide/w.txt":          wide.String(),
	})
	tests := []struct {
		name  string
		args  string
		want  string
		check func(t *testing.T, got string)
	}{
		{name: "literal over tree, skipping .git, binary, ignored and links", args: `{"pattern":"NewReader","glob":"*.go"}`,
			want: "lib/util.go:3:// NewReader wraps\nlib/util.go:4:func NewReaderSize(n int) {}\nmain.go:3:func NewReader() {}\n"},
		{name: "regexp", args: `{"pattern":"func \\w+Reader\\w*\\("}`,
			want: "lib/util.go:4:func NewReaderSize(n int) {}\nmain.go:3:func NewReader() {}\nmain.go:4:func newReaderSize() {}\n"},
		{name: "ignore case", args: `{"pattern":"func newreader","ignore_case":true}`,
			want: "lib/util.go:4:func NewReaderSize(n int) {}\nmain.go:3:func NewReader() {}\nmain.go:4:func newReaderSize() {}\n"},
		{name: "case matters by default", args: `{"pattern":"func newreader"}`, want: "no matches\n"},
		{name: "nested gitignore and negation", args: `{"pattern":"NewReader (hidden|kept|log)"}`,
			want: "sub/keep.log:1:NewReader kept\n"},
		{name: "gitignore of folders above path", args: `{"pattern":"NewReader","path":"sub"}`,
			want: "sub/keep.log:1:NewReader kept\n"},
		{name: "crlf and unicode lines", args: `{"pattern":"NewReader (here|世界)","path":"lib"}`,
			want: "lib/crlf.txt:2:NewReader here\nlib/uni.txt:1:grüße NewReader 世界\n"},
		{name: "single file, even if ignored", args: `{"pattern":"NewReader","path":"app.log"}`,
			want: "app.log:1:NewReader log\n"},
		{name: "single binary file", args: `{"pattern":"x","path":"bin/blob.dat"}`,
			want: "bin/blob.dat looks like a binary file; not searched"},
		{name: "anchored glob below path", args: `{"pattern":"package","path":"lib","glob":"*/util.go"}`, want: "no matches\n"},
		{name: "glob with folder", args: `{"pattern":"package","glob":"lib/*.go"}`, want: "lib/util.go:1:package lib\n"},
		{name: "anchors work per line", args: `{"pattern":"^b$|^match 3$","path":"ctx.txt"}`,
			want: "ctx.txt:2:b\nctx.txt:11:match 3\n"},
		{name: "context", args: `{"pattern":"match","path":"ctx.txt","context":1}`,
			want: "ctx.txt-2-b\nctx.txt:3:match 1\nctx.txt-4-c\n--\nctx.txt-8-g\nctx.txt:9:match 2\nctx.txt-10-h\nctx.txt:11:match 3\n"},
		{name: "long line cut", args: `{"pattern":"NewReader$","path":"long.txt"}`,
			want: "long.txt:1:" + strings.Repeat("y", 500) + "…\n[lines cut at 500 characters]\n"},
		{name: "cap", args: `{"pattern":"hit \\d+","path":"many"}`, check: func(t *testing.T, got string) {
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if len(lines) != 101 || lines[100] != "[results capped at 100 matches; narrow the pattern, path or glob]" {
				t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-1])
			}
			if lines[0] != "many/hits.txt:1:hit 1" || lines[99] != "many/hits.txt:100:hit 100" {
				t.Fatalf("first %q, last %q", lines[0], lines[99])
			}
		}},
		{name: "missing path", args: `{"pattern":"x","path":"nope"}`, want: "error: no such file or folder: nope"},
		{name: "output bound", args: `{"pattern":"hit","path":"wide","context":10}`, check: func(t *testing.T, got string) {
			if len(got) > grepsearch.MaxOutput+2000 || !strings.Contains(got, "[output cut at 50 KB; narrow the pattern, path or glob, or use less context]\n") {
				t.Fatalf("%d bytes, tail %q", len(got), got[len(got)-200:])
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callTool(t, Grep(), env, tc.args)
			if tc.check != nil {
				tc.check(t, res.Content)
				return
			}
			if res.Content != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", res.Content, tc.want)
			}
		})
	}
}

// TestGrepMatchesGNUGrep runs both over the same small tree and compares
// the matching lines (GNU grep with -E differs from RE2 in places, so the
// patterns keep to what both read alike).
func TestGrepMatchesGNUGrep(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("grep not installed")
	}
	root, env := fileWorkspace(t, map[string]string{
		"a.txt":  "alpha beta\nBETA gamma\nsKip\nKelvin\n\nend",
		"b.txt":  "x = 1\nfunc foo(x int)\nfunc Bar()\n",
		"c/d.md": "# Title\n- item one\n- ITEM two\n",
	})
	tests := []struct {
		pattern    string
		ignoreCase bool
	}{
		{"beta", false}, {"beta", true}, {"^func [A-Z]", false}, {"item", true},
		{"skip", true}, {"kelvin", true}, {"^$", false}, {"[0-9]", false}, {"a|x", false}, {"nothing here", false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%v", tc.pattern, tc.ignoreCase), func(t *testing.T) {
			args := []string{"-rn", "-E", "-e", tc.pattern, "."}
			if tc.ignoreCase {
				args = append([]string{"-i"}, args...)
			}
			cmd := exec.Command("grep", args...)
			cmd.Dir = root
			out, _ := cmd.Output()
			var want []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if l != "" {
					want = append(want, strings.TrimPrefix(l, "./"))
				}
			}
			raw, _ := json.Marshal(map[string]any{"pattern": tc.pattern, "ignore_case": tc.ignoreCase})
			res := callTool(t, Grep(), env, string(raw))
			var got []string
			if res.Content != "no matches\n" {
				got = strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
			}
			if strings.Join(got, "\n") != strings.Join(sortedCopy(want), "\n") {
				t.Fatalf("wisp:\n%s\ngrep:\n%s", strings.Join(got, "\n"), strings.Join(sortedCopy(want), "\n"))
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	// grep -r lists in directory order; wisp sorts by path, then line.
	type key struct {
		file string
		line int
	}
	keys := make(map[string]key, len(out))
	for _, l := range out {
		parts := strings.SplitN(l, ":", 3)
		var n int
		fmt.Sscan(parts[1], &n)
		keys[l] = key{parts[0], n}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0; j-- {
			a, b := keys[out[j-1]], keys[out[j]]
			if a.file < b.file || a.file == b.file && a.line <= b.line {
				break
			}
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}

// BenchmarkGrepGoroot runs the grep tool over the Go standard library
// sources. The few-match patterns make it read the whole tree; the others
// stop at the 100-match cap. bench/grep.sh sets these beside GNU grep.
func BenchmarkGrepGoroot(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	env := &tool.Env{Workdir: root}
	cases := []struct {
		name       string
		pattern    string
		ignoreCase bool
	}{
		{"literal", "func NewReader", false},
		{"regexp-capped", `func \w+Reader\(`, false},
		{"regexp-few", `func New\w+Reader\(r io\.Reader\)`, false},
		{"ignorecase-capped", "newreader", true},
		{"ignorecase-few", "func newreadersize", true},
		{"nomatch", "xyzzyplugh", false},
	}
	for _, c := range cases {
		raw, _ := json.Marshal(map[string]any{"pattern": c.pattern, "ignore_case": c.ignoreCase})
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := Grep().Run(context.Background(), env, raw)
				if err != nil || res.IsError {
					b.Fatal(err, res.Content)
				}
			}
		})
	}
}
