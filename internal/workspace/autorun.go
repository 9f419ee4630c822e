package workspace

import (
	"path"
	"path/filepath"
	"strings"
)

// A write is confined to the workspace, but some files in a
// workspace are run, outside any sandbox, by programs the person uses
// there: git hooks, direnv, editors' tasks, hook managers, package
// managers' project settings, other agents' hooks. A write to one of
// them is dangerous: asked every time, never remembered.
//
// Left out on purpose: Makefiles, package.json scripts, test files and
// other source, which run only when the person runs them; .gitattributes,
// whose filter and diff drivers run only when a configuration (which the
// .git guard keeps) defines them.

// sensitiveDirs are folder names whose contents run automatically,
// wherever they are in the workspace (a nested repository's .git, a
// package's own .husky).
var sensitiveDirs = map[string]string{
	".git":          "git runs hooks and configuration from .git outside the sandbox",
	".hg":           "Mercurial runs hooks from .hg/hgrc",
	".jj":           "jj runs programs named in its repository configuration",
	".husky":        "husky runs these scripts as git hooks",
	".vscode":       "VS Code runs tasks and settings from .vscode, some when the folder opens",
	".idea":         "JetBrains IDEs run the configurations in .idea",
	".devcontainer": "dev containers run the commands named here when the folder reopens",
	".wisp":         "wisp reads its project settings and custom tools from .wisp",
	".claude":       "another coding agent runs hooks from its project settings",
	".codex":        "another coding agent runs hooks from its project settings",
	".gemini":       "another coding agent runs hooks from its project settings",
	".cursor":       "another coding agent runs hooks from its project settings",
	".direnv":       "direnv loads its layouts from .direnv",
	".mise":         "mise runs tasks and hooks from .mise",
}

// sensitiveFiles are file names that run automatically wherever they are.
var sensitiveFiles = map[string]string{
	".envrc":                  "direnv runs .envrc when a shell enters the folder",
	".git":                    "a .git file points git at a repository (and its hooks) elsewhere",
	".pre-commit-config.yaml": "pre-commit runs the hooks it names on every commit",
	"lefthook.yml":            "lefthook runs the commands it names as git hooks",
	"lefthook.yaml":           "lefthook runs the commands it names as git hooks",
	".lefthook.yml":           "lefthook runs the commands it names as git hooks",
	".npmrc":                  "npm runs programs its project settings name (script-shell, node-options)",
	".yarnrc":                 "yarn runs programs its project settings name",
	".yarnrc.yml":             "yarn runs the program its yarnPath names",
	".pnpmfile.cjs":           "pnpm runs .pnpmfile.cjs on every install",
	"mise.toml":               "mise runs hooks and tasks it names when a shell enters the folder",
	".mise.toml":              "mise runs hooks and tasks it names when a shell enters the folder",
	".gitlab-ci.yml":          "CI runs it with the repository's secrets",
}

// sensitiveSeqs are folder sequences whose contents run elsewhere with
// the repository's secrets.
var sensitiveSeqs = []struct {
	seq    []string
	reason string
}{
	{[]string{".github", "workflows"}, "GitHub Actions runs workflows with the repository's secrets"},
	{[]string{".github", "actions"}, "GitHub Actions runs these actions from workflows"},
	{[]string{".circleci"}, "CI runs it with the repository's secrets"},
}

// RunsOutside reports whether a write to rel (a path relative to the
// workspace) lands in a place that runs automatically outside the
// sandbox, and why. The gate asks every time before a file tool writes
// there, and the classifier rates a command that writes there dangerous. Names compare
// case-insensitively (as on case-insensitive file systems) after the
// path is cleaned, so a/../.envrc is .envrc.
func RunsOutside(rel string) (reason string, ok bool) {
	p := path.Clean(strings.ToLower(filepath.ToSlash(rel)))
	parts := strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
	for i, part := range parts {
		// Trailing dots and spaces vanish on some file systems.
		part = strings.TrimRight(part, ". ")
		if part == "" {
			continue
		}
		if r, ok := sensitiveDirs[part]; ok && i < len(parts)-1 {
			return r, true
		}
		if i == len(parts)-1 {
			if r, ok := sensitiveFiles[part]; ok {
				return r, true
			}
		}
		for _, s := range sensitiveSeqs {
			if i+len(s.seq) <= len(parts) && equalParts(parts[i:i+len(s.seq)], s.seq) {
				return s.reason, true
			}
		}
	}
	return "", false
}

func equalParts(a, b []string) bool {
	for i := range b {
		if strings.TrimRight(a[i], ". ") != b[i] {
			return false
		}
	}
	return true
}
