package shell

import "testing"

// Lines an attack on the built binary found rated safe, each with what it
// did: none may run without a question.
func TestRedTeamFindings(t *testing.T) {
	cases := []struct{ name, line string }{
		{"uniq glob writes its second operand", "uniq [0M]*"},
		{"uniq star", "uniq *"},
		{"uniq brace", "uniq {a,b}"},
		{"uniq question glob", "uniq ?"},
		{"uniq dot glob", "uniq .[e]nvrc"},
		{"git log in a nested bare repository", "cd evil && git log -p"},
		{"git status in a nested repository", "cd w; git status"},
		{"git show after cd", "cd sub && git show HEAD"},
		{"physical cd through a link into a bare repository", "cd -P i/.. && git log -p"},
		{"physical cd, options joined", "cd -LP i/.. && git status"},
		{"physical cd to a run-time place", `cd -P "$d" && git log`},
		{"ref format with a signature atom", "git branch --format='%(signature)'"},
		{"for-each-ref signature atom", "git for-each-ref --format='%(signature:grade)'"},
		{"git log %G runs gpg.program", "git log --format=%G?"},
		{"git show %GS", "git show -s --format=%GS HEAD"},
		{"git shortlog %GK", "git shortlog --format=%GK"},
		{"the repository's config holds remote URLs with tokens", "cat .git/config"},
		{"config by absolute path", "grep url /w/.git/config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := ClassifyWith(c.line, Options{Workdir: "/w", Home: "/home/u"})
			if v.Level == Safe {
				t.Fatalf("%q is safe; want at least moderate", c.line)
			}
		})
	}
	for _, line := range []string{"cp x .vscode/settings.json", "echo x | tee .github/workflows/x.yml",
		"touch .husky/pre-commit", "cp x .pre-commit-config.yaml", "cp x .idea/workspace.xml", "echo a > .envrc"} {
		if v := ClassifyWith(line, Options{Workdir: "/w", Home: "/home/u"}); v.Level != Dangerous {
			t.Errorf("%q is %s; a write to a place that runs outside the sandbox is dangerous", line, v.Level)
		}
	}
	for _, line := range []string{"git log -p", "git status", "uniq -c names.txt", "sort x | uniq"} {
		if v := ClassifyWith(line, Options{Workdir: "/w", Home: "/home/u"}); v.Level != Safe {
			t.Errorf("%q is %s (%v); want safe", line, v.Level, v.Reasons)
		}
	}
}
