package workspace

import (
	"path"
	"strings"
	"testing"
)

func TestIgnoreMatch(t *testing.T) {
	type check struct {
		rel   string
		isDir bool
		want  bool
	}
	tests := []struct {
		name   string
		files  map[string]string // folder -> .gitignore text, applied root first
		order  []string
		checks []check
	}{
		{
			name:  "name at any depth",
			files: map[string]string{"": "node_modules\n*.log\n"},
			checks: []check{
				{"node_modules", true, true},
				{"a/b/node_modules", true, true},
				{"a/x.log", false, true},
				{"a/x.log.txt", false, false},
				{"src/main.go", false, false},
			},
		},
		{
			name:  "anchored and dir only",
			files: map[string]string{"": "/build\nout/\ndoc/*.html\n"},
			checks: []check{
				{"build", true, true},
				{"a/build", true, false},
				{"out", true, true},
				{"out", false, false},
				{"a/out", true, true},
				{"doc/x.html", false, true},
				{"doc/sub/x.html", false, false},
				{"a/doc/x.html", false, false},
			},
		},
		{
			name:  "double star",
			files: map[string]string{"": "**/gen\nlogs/**\na/**/z\n"},
			checks: []check{
				{"gen", true, true},
				{"x/y/gen", false, true},
				{"logs/today.txt", false, true},
				{"logs/a/b", false, true},
				{"logs", true, false},
				{"a/z", false, true},
				{"a/b/c/z", false, true},
				{"b/a/z", false, false},
			},
		},
		{
			name:  "negation, last rule wins",
			files: map[string]string{"": "*.txt\n!keep.txt\n"},
			checks: []check{
				{"a.txt", false, true},
				{"keep.txt", false, false},
				{"d/keep.txt", false, false},
			},
		},
		{
			name:  "nested file overrides parent",
			files: map[string]string{"": "*.gen\n", "sub": "!*.gen\nlocal\n"},
			order: []string{"", "sub"},
			checks: []check{
				{"x.gen", false, true},
				{"sub/x.gen", false, false},
				{"sub/deeper/x.gen", false, false},
				{"sub/local", false, true},
				{"local", false, false},
				{"other/local", false, false},
			},
		},
		{
			name:  "nested anchored is relative to its folder",
			files: map[string]string{"pkg": "/tmp\n"},
			checks: []check{
				{"pkg/tmp", true, true},
				{"pkg/a/tmp", true, false},
				{"tmp", true, false},
			},
		},
		{
			name:  "classes, escapes, comments and spaces",
			files: map[string]string{"": "# comment\n\\#hash\nfile[0-9].c\n[!a]b\ntrail\\ \nspace   \r\n\\!bang\n"},
			checks: []check{
				{"#hash", false, true},
				{"# comment", false, false},
				{"file7.c", false, true},
				{"fileX.c", false, false},
				{"xb", false, true},
				{"ab", false, false},
				{"trail ", false, true},
				{"space", false, true},
				{"!bang", false, true},
			},
		},
		{
			name:  "question mark and prefix",
			files: map[string]string{"": "?.tmp\ncache*\n"},
			checks: []check{
				{"a.tmp", false, true},
				{"ab.tmp", false, false},
				{"cache", true, true},
				{"cache-v2", false, true},
				{"mycache", false, false},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			order := tc.order
			if order == nil {
				for base := range tc.files {
					order = append(order, base)
				}
			}
			var ig *Ignore
			for _, base := range order {
				ig = ig.Add(base, []byte(tc.files[base]))
			}
			for _, c := range tc.checks {
				if got := ig.Match(c.rel, c.isDir); got != c.want {
					t.Errorf("Match(%q, dir=%v) = %v, want %v", c.rel, c.isDir, got, c.want)
				}
			}
		})
	}
}

func TestIgnoreNilAndEmpty(t *testing.T) {
	var ig *Ignore
	if ig.Match("x", false) {
		t.Fatal("nil Ignore matched")
	}
	if got := ig.Add("", []byte("# only a comment\n\n")); got != nil {
		t.Fatal("a file with no rules should add no level")
	}
}

// FuzzIgnore parses arbitrary .gitignore text and matches arbitrary paths:
// nothing may panic, and a plain name always matches itself.
func FuzzIgnore(f *testing.F) {
	f.Add("*.o\n!keep.o\n/build/\n**/gen/**\n[a-z]?\\ \n", "src/build/x.o", true)
	f.Add("[[:alpha:]]x\n[!]]\n[\\]]\n[", "a/bx", false)
	f.Fuzz(func(t *testing.T, text, rel string, isDir bool) {
		ig := (*Ignore)(nil).Add("", []byte(text))
		ig = ig.Add("sub", []byte(text))
		ig.Match(rel, isDir)
		name := path.Base(rel)
		if name != "" && !strings.ContainsAny(name, "/*?[\\!# \r\n") {
			if !(*Ignore)(nil).Add("", []byte(name)).Match(rel, isDir) {
				t.Fatalf("pattern %q does not match %q", name, rel)
			}
		}
	})
}
