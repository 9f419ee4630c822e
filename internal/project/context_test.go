package project

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLoadContext(t *testing.T) {
	type file struct{ path, text string }
	type link struct{ path, target string }
	tests := []struct {
		name      string
		files     []file // relative to the repo; "~/" for wisp's home
		links     []link
		cwd       string // relative to the repo
		untrusted bool
		protected string // base name refused
		want      []string
		wantWarn  []string
	}{
		{
			name:  "user first, then parents before children",
			files: []file{{"~/AGENTS.md", "user"}, {"AGENTS.md", "root"}, {"a/AGENTS.md", "a"}, {"a/b/AGENTS.md", "b"}},
			cwd:   "a/b",
			want:  []string{"~/.wisp/AGENTS.md=user", "AGENTS.md=root", "a/AGENTS.md=a", "a/b/AGENTS.md=b"},
		},
		{
			name:  "AGENTS.md over CLAUDE.md",
			files: []file{{"AGENTS.md", "agents"}, {"CLAUDE.md", "claude"}},
			want:  []string{"AGENTS.md=agents"},
		},
		{
			name:  "upper-case names and CLAUDE fallback",
			files: []file{{"AGENTS.MD", "upper"}, {"a/CLAUDE.md", "claude"}, {"a/b/CLAUDE.MD", "claude-upper"}},
			cwd:   "a/b",
			want:  []string{"AGENTS.MD=upper", "a/CLAUDE.md=claude", "a/b/CLAUDE.MD=claude-upper"},
		},
		{
			name:  "folders beside the path are not read",
			files: []file{{"AGENTS.md", "root"}, {"a/AGENTS.md", "a"}, {"c/AGENTS.md", "c"}},
			want:  []string{"AGENTS.md=root"},
		},
		{
			name:      "untrusted loads only the user file",
			files:     []file{{"~/AGENTS.md", "user"}, {"AGENTS.md", "root"}, {"a/AGENTS.md", "a"}},
			cwd:       "a",
			untrusted: true,
			want:      []string{"~/.wisp/AGENTS.md=user"},
		},
		{
			name:     "symlinked file skipped, next name used",
			files:    []file{{"CLAUDE.md", "claude"}, {"secret.txt", "secret"}},
			links:    []link{{"AGENTS.md", "secret.txt"}},
			want:     []string{"CLAUDE.md=claude"},
			wantWarn: []string{"AGENTS.md skipped: it is a symbolic link"},
		},
		{
			name:     "symlink to a file outside skipped",
			links:    []link{{"AGENTS.md", "/etc/hostname"}},
			want:     nil,
			wantWarn: []string{"AGENTS.md skipped: it is a symbolic link"},
		},
		{
			name:  "the user's own file may be a link",
			files: []file{{"~/dotfiles.md", "dot"}},
			links: []link{{"~/AGENTS.md", "~/dotfiles.md"}},
			want:  []string{"~/.wisp/AGENTS.md=dot"},
		},
		{
			name:      "protected skipped",
			files:     []file{{"AGENTS.md", "root"}, {"a/AGENTS.md", "a"}},
			cwd:       "a",
			protected: "a/AGENTS.md",
			want:      []string{"AGENTS.md=root"},
			wantWarn:  []string{"a/AGENTS.md skipped: it is a protected path"},
		},
		{
			name:     "binary skipped",
			files:    []file{{"AGENTS.md", "a\x00b"}, {"CLAUDE.md", "c"}},
			want:     []string{"CLAUDE.md=c"},
			wantWarn: []string{"AGENTS.md skipped: it is not a text file"},
		},
		{
			name:  "folder named AGENTS.md is passed over",
			files: []file{{"AGENTS.md/x", "x"}, {"CLAUDE.md", "c"}},
			want:  []string{"CLAUDE.md=c"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wispHome := isolate(t)
			base, _ := filepath.EvalSymlinks(t.TempDir())
			repo := mkdir(t, base, "repo")
			mkdir(t, repo, ".git")
			mkdir(t, repo, "a", "b")
			mkdir(t, wispHome)
			at := func(p string) string {
				if rest, ok := strings.CutPrefix(p, "~/"); ok {
					return filepath.Join(wispHome, rest)
				}
				if filepath.IsAbs(p) {
					return p
				}
				return filepath.Join(repo, p)
			}
			for _, f := range tc.files {
				write(t, at(f.path), f.text)
			}
			for _, l := range tc.links {
				if err := os.Symlink(at(l.target), at(l.path)); err != nil {
					t.Skip("no symlinks:", err)
				}
			}
			o := ContextOptions{WispHome: wispHome, Cwd: filepath.Join(repo, tc.cwd), Trusted: !tc.untrusted}
			if tc.protected != "" {
				o.Protected = func(abs string) bool { return abs == at(tc.protected) }
			}
			c := LoadContext(o)
			var got []string
			for _, f := range c.Files {
				got = append(got, f.Path+"="+f.Text)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("files %q, want %q", got, tc.want)
			}
			if strings.Join(c.Warnings, "|") != strings.Join(tc.wantWarn, "|") {
				t.Fatalf("warnings %q, want %q", c.Warnings, tc.wantWarn)
			}
			if c.Note != "" {
				t.Fatalf("note %q", c.Note)
			}
		})
	}
}

func TestLoadContextBudget(t *testing.T) {
	wispHome := isolate(t)
	repo := mkdir(t, t.TempDir(), "repo")
	mkdir(t, repo, ".git")
	mkdir(t, wispHome)
	write(t, filepath.Join(wispHome, "AGENTS.md"), strings.Repeat("u", 10<<10))
	write(t, filepath.Join(repo, "AGENTS.md"), strings.Repeat("r", 20<<10))
	// 2 KiB fit; the rest is cut. "é" is two bytes: the cut must not split one.
	write(t, filepath.Join(repo, "a", "AGENTS.md"), "x"+strings.Repeat("é", 4<<10))
	write(t, filepath.Join(repo, "a", "b", "AGENTS.md"), strings.Repeat("b", 100))
	c := LoadContext(ContextOptions{WispHome: wispHome, Cwd: filepath.Join(repo, "a", "b"), Trusted: true})
	total := 0
	for _, f := range c.Files {
		total += len(f.Text)
	}
	if total > ContextBudget || total < ContextBudget-1 {
		t.Fatalf("total %d bytes, want about %d", total, ContextBudget)
	}
	if len(c.Files) != 3 {
		t.Fatalf("%d files", len(c.Files))
	}
	last := c.Files[2].Text
	if !strings.HasPrefix(last, "xé") || strings.ToValidUTF8(last, "?") != last {
		t.Fatal("cut text is not whole runes")
	}
	missing := (1 + 8<<10 - len(last)) + 100
	want := "[context cut at 32 KiB: " + strconv.Itoa(missing) + " more bytes in a/AGENTS.md, a/b/AGENTS.md]"
	if c.Note != want {
		t.Fatalf("note %q, want %q", c.Note, want)
	}
	r := c.Render()
	if !strings.HasSuffix(r, want+"\n") {
		t.Fatal("render lacks the note")
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		name string
		c    Context
		want []string
	}{
		{name: "empty", c: Context{}, want: nil},
		{
			name: "headings",
			c:    Context{Files: []ContextFile{{Path: UserContextName, Text: "be brief\n"}, {Path: "sub/AGENTS.md", Text: "use make"}}},
			want: []string{"# Context files", "\n## ~/.wisp/AGENTS.md\n\nbe brief\n", "\n## sub/AGENTS.md\n\nuse make\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.Render()
			if tc.want == nil && r != "" {
				t.Fatalf("got %q", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r, w) {
					t.Fatalf("render\n%s\nlacks %q", r, w)
				}
			}
		})
	}
}

func TestStarterAgentsMD(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		has    []string
		hasNot []string
	}{
		{
			name: "empty folder",
			has:  []string{"# AGENTS.md", "## Project overview", "## Build & test commands", "## Code style", "## Things to avoid", "<!-- How to build"},
		},
		{
			name:  "go module",
			files: map[string]string{"go.mod": "module example.com/thing\n\ngo 1.26\n"},
			has:   []string{"`go build ./...`", "`go test ./...`", "Go module `example.com/thing`", "gofmt"},
		},
		{
			name:   "package.json scripts, usual first",
			files:  map[string]string{"package.json": `{"scripts":{"zeta":"z","test":"jest","build":"tsc"}}`},
			has:    []string{"- `npm run build`\n- `npm run test`\n- `npm run zeta`"},
			hasNot: []string{"go build"},
		},
		{
			name:   "Makefile targets",
			files:  map[string]string{"Makefile": ".PHONY: all\nCC := gcc\nall: build\nbuild:\n\tgo build\n%.o: %.c\n\tcc\ntest: build\n"},
			has:    []string{"- `make all`\n- `make build`\n- `make test`"},
			hasNot: []string{"make .PHONY", "make CC", "make %"},
		},
		{
			name:  "Cargo",
			files: map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"},
			has:   []string{"`cargo build`", "`cargo test`"},
		},
		{
			name:  "broken package.json ignored",
			files: map[string]string{"package.json": "{"},
			has:   []string{"<!-- How to build"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, text := range tc.files {
				write(t, filepath.Join(root, name), text)
			}
			got := StarterAgentsMD(root)
			for _, h := range tc.has {
				if !strings.Contains(got, h) {
					t.Errorf("lacks %q:\n%s", h, got)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(got, h) {
					t.Errorf("has %q:\n%s", h, got)
				}
			}
		})
	}
}
