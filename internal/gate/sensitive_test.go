package gate

import "testing"

func TestSensitiveWrite(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{".envrc", true},
		{"sub/.envrc", true},
		{"a/../.envrc", true},
		{"./.ENVRC", true},
		{".husky/pre-commit", true},
		{"packages/web/.husky/pre-commit", true},
		{".vscode/tasks.json", true},
		{".VSCode/settings.json", true},
		{".idea/runConfigurations/x.xml", true},
		{".github/workflows/ci.yml", true},
		{".GitHub/Workflows/ci.yml", true},
		{".github/actions/setup/action.yml", true},
		{".wisp/settings.json", true},
		{".git/hooks/pre-commit", true},
		{".git/config", true},
		{"vendor/lib/.git/hooks/post-checkout", true},
		{"vendor/lib/.git", true},
		{".git", true},
		{".git./hooks/pre-commit", true},
		{".pre-commit-config.yaml", true},
		{".npmrc", true},
		{".yarnrc.yml", true},
		{"lefthook.yml", true},
		{".claude/settings.json", true},
		{".devcontainer/devcontainer.json", true},
		{"mise.toml", true},
		{"/work/repo/.envrc", true},

		{"main.go", false},
		{"Makefile", false},
		{"package.json", false},
		{".gitattributes", false},
		{".gitignore", false},
		{".github/CODEOWNERS", false},
		{".github/workflows-notes.md", false},
		{"docs/.envrc.md", false},
		{"envrc", false},
		{".vscode", false},
		{"src/git/hooks.go", false},
		{"a/.husky", false},
		{".wisp/../main.go", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			reason, ok := sensitiveWrite(tc.path)
			if ok != tc.want {
				t.Fatalf("sensitiveWrite(%q) = %q, %v; want %v", tc.path, reason, ok, tc.want)
			}
			if ok && reason == "" {
				t.Errorf("no reason for %q", tc.path)
			}
		})
	}
}

func FuzzSensitiveWrite(f *testing.F) {
	for _, s := range []string{".envrc", "a/../.git/hooks/x", ".github//workflows/x", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		reason, ok := sensitiveWrite(p)
		if ok == (reason == "") {
			t.Fatalf("sensitiveWrite(%q) = %q, %v", p, reason, ok)
		}
		// A path and its spelling with ./ and a detour name the same file.
		if r2, ok2 := sensitiveWrite("./x/../" + p); p != "" && p[0] != '/' && !hasDotDot(p) && ok2 != ok {
			t.Fatalf("sensitiveWrite(%q) = %v but with a detour %q, %v", p, ok, r2, ok2)
		}
	})
}

func hasDotDot(p string) bool {
	for i := 0; i+1 < len(p); i++ {
		if p[i] == '.' && p[i+1] == '.' {
			return true
		}
	}
	return false
}
