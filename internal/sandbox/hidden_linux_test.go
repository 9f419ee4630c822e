//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoRunHidesWhatLiesAround checks what an auto-run command cannot
// read beyond the credential list: tokens in the repository's remote
// URLs, protected files the workspace reaches through links or keeps in
// build output, and other projects' files in the shared temporary
// folder. Each case has its control: an approved command reads it.
func TestAutoRunHidesWhatLiesAround(t *testing.T) {
	w := autoRunWorld(t)
	git, err := exec.LookPath("git")
	needFeature(t, err == nil, "git is needed for the repository case")
	const token = "ghp_WISPTESTTOKEN"
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = w.ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	gitRun("init", "-q")
	gitRun("remote", "add", "origin", "https://user:"+token+"@example.com/r.git")
	gitRun("config", "http.extraHeader", "Authorization: Bearer "+token)
	gitRun("commit", "-q", "--allow-empty", "-m", "first")

	shared := filepath.Join(w.outside, "shared.env")
	writeFile(t, shared, "K="+secretMark)
	if err := os.Symlink(shared, filepath.Join(w.ws, ".env")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(w.ws, "build", "a", "b", "c", "d", "e", "f", "g", "h", "i"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.ws, "build", ".env"), "K="+secretMark)
	writeFile(t, filepath.Join(w.ws, "build", "a", "b", "c", "d", "e", "f", "g", "h", "i", ".env"), "K="+secretMark)
	writeFile(t, filepath.Join(w.outside, "other-project.txt"), secretMark)

	cfg := w.cfg
	cfg.AutoRun = true
	env := "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null "
	for _, tc := range []struct{ name, line, mark string }{
		{"remote URL", env + "git remote -v", token},
		{"config read as a file", "cat .git/config", token},
		{"config searched", "grep -r Bearer .git", token},
		{".env linked out of the workspace", "cat .env", secretMark},
		{".env in build output", "grep -r K= build", secretMark},
		{"other files in the shared temp folder", "cat " + filepath.Join(w.outside, "other-project.txt"), secretMark},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := run(t, cfg, tc.line); strings.Contains(r.stdout+r.stderr, tc.mark) {
				t.Errorf("an auto-run command read it:\n%s%s", r.stdout, r.stderr)
			}
			if r := run(t, w.cfg, tc.line); !strings.Contains(r.stdout, tc.mark) {
				t.Errorf("control: an approved command did not read it, so the case proves nothing (exit %d): %s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("git still reads the repository", func(t *testing.T) {
		line := env + "git log --oneline && git status --short && git config --get core.bare"
		if r := run(t, cfg, line); r.code != 0 || !strings.Contains(r.stdout, "first") || !strings.Contains(r.stdout, "false") {
			t.Errorf("exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
	})
}

func TestKeepGitSections(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[core]\n\tbare = false\n[remote \"o\"]\n\turl = https://u:T@h/r\n[branch \"main\"]\n\tremote = o\n", "[core]\n\tbare = false\n[branch \"main\"]\n\tremote = o\n"},
		{"[remote \"o\"] url = https://u:T@h/r\n[core] bare = false\n", "[core] bare = false\n"},
		{"[Remote.o]\n url = T\n[CORE]\n x = 1\n", "[CORE]\n x = 1\n"},
		{"[http]\n\textraHeader = Authorization: T\n", ""},
		{"[core]\n\tx = a\\\n[remote]\n[credential]\n\thelper = T\n", "[core]\n\tx = a\\\n[remote]\n"},
		{"\ufeff[core]\n\tx = 1\n[submodule \"s\"]\n\turl = T\n", "\ufeff[core]\n\tx = 1\n"},
		{"[core]\n\tFSMonitor = ./x\n\tbare = false\n\thooksPath=h\n[core] pager = less\n", "[core]\n\tbare = false\n"},
	} {
		if got := string(keepGitSections([]byte(tc.in))); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
