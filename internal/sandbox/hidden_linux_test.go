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

// TestAutoRunGitConfigs covers the configuration files git reads beyond
// the workspace's .git/config: files it includes, submodules nested
// under modules/, a nested clone, and the repository the workspace lies
// in. The repository is made under /dev/shm, which the auto-run profile
// does not cover, so that only the config copy can keep the token out.
func TestAutoRunGitConfigs(t *testing.T) {
	w := autoRunWorld(t)
	git, err := exec.LookPath("git")
	needFeature(t, err == nil, "git is needed")
	base, err := os.MkdirTemp("/dev/shm", "wisp-test-")
	needFeature(t, err == nil, "/dev/shm is needed for a repository outside the covered folders")
	t.Cleanup(func() { os.RemoveAll(base) })
	const token = "ghp_WISPNESTEDTOKEN"
	repo := filepath.Join(base, "repo")
	gitIn := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	sub := filepath.Join(repo, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "tools", "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(repo, "init", "-q")
	gitIn(repo, "config", "core.excludesFile", `C:\dir\`)
	gitIn(repo, "remote", "add", "origin", "https://u:"+token+"@example.com/r.git")
	gitIn(repo, "commit", "-q", "--allow-empty", "-m", "first")
	writeFile(t, filepath.Join(repo, ".git", "extra.inc"), "[remote \"inc\"]\n\turl = https://u:"+token+"@example.com/i.git\n")
	gitIn(repo, "config", "include.path", "extra.inc")
	deep := filepath.Join(repo, ".git", "modules", "a", "modules", "b", "modules", "vendor", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(deep, "config"), "[remote \"o\"]\n\turl = https://u:"+token+"@example.com/d.git\n")
	gitIn(filepath.Join(sub, "tools", "lib"), "init", "-q")
	gitIn(filepath.Join(sub, "tools", "lib"), "remote", "add", "o", "https://u:"+token+"@example.com/n.git")

	writeFile(t, filepath.Join(repo, ".git", "onbranch.inc"), "[remote \"cond\"]\n\turl = https://u:"+token+"@example.com/c.git\n")
	gitIn(repo, "config", "includeIf.onbranch:master.path", "onbranch.inc")
	gitIn(repo, "config", "includeIf.onbranch:main.path", "onbranch.inc")
	gitIn(repo, "pull", "-q", "--no-rebase", "file://"+repo, "HEAD")
	gitIn(repo, "update-ref", "-m", "pull https://u:"+token+"@example.com/r.git", "refs/heads/x", "HEAD")
	linked := filepath.Join(base, "linked")
	if err := os.MkdirAll(filepath.Join(linked, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(filepath.Join(linked, "ws"), "init", "-q")
	gitIn(filepath.Join(linked, "ws"), "remote", "add", "o", "https://u:"+token+"@example.com/l.git")
	if err := os.Rename(filepath.Join(linked, "ws", ".git", "config"), filepath.Join(linked, "dotconfig")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(linked, "dotconfig"), filepath.Join(linked, "ws", ".git", "config")); err != nil {
		t.Fatal(err)
	}

	cfg := w.cfg
	cfg.Workdir = sub
	cfg.AutoRun = true
	approved := w.cfg
	approved.Workdir = sub
	env := "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null "
	for _, tc := range []struct{ name, line string }{
		{"the enclosing repository's remote", env + "git remote -v"},
		{"a value ending in a backslash before the remote", "cat ../.git/config"},
		{"an included file", "cat ../.git/extra.inc"},
		{"a submodule nested three deep", "grep -r url ../.git/modules"},
		{"a nested clone", "grep -r url tools"},
		{"a conditional include", "cat ../.git/onbranch.inc"},
		{"a reflog message", "grep -r example.com ../.git/logs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := run(t, cfg, tc.line); strings.Contains(r.stdout+r.stderr, token) {
				t.Errorf("an auto-run command read the token:\n%s%s", r.stdout, r.stderr)
			}
			if r := run(t, approved, tc.line); !strings.Contains(r.stdout, token) {
				t.Errorf("control: an approved command did not read it (exit %d): %s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Run("a config that is a link", func(t *testing.T) {
		lcfg, lapproved := cfg, approved
		lcfg.Workdir, lapproved.Workdir = filepath.Join(linked, "ws"), filepath.Join(linked, "ws")
		if r := run(t, lcfg, env+"git remote -v"); strings.Contains(r.stdout+r.stderr, token) {
			t.Errorf("an auto-run command read the token:\n%s%s", r.stdout, r.stderr)
		}
		if r := run(t, lapproved, env+"git remote -v"); !strings.Contains(r.stdout, token) {
			t.Errorf("control: an approved command did not read it (exit %d): %s%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("git reads what it needs", func(t *testing.T) {
		r := run(t, cfg, env+"git log --oneline && git config --get core.excludesFile")
		if r.code != 0 || !strings.Contains(r.stdout, "first") || !strings.Contains(r.stdout, `C:\dir\`) {
			t.Errorf("exit %d: %s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// A link in the workspace to a folder outside it is read through by
// grep -R: the protected files there are hidden too. The folder is made
// under /dev/shm, which the auto-run profile does not cover.
func TestAutoRunFollowsLinkedFolders(t *testing.T) {
	w := autoRunWorld(t)
	base, err := os.MkdirTemp("/dev/shm", "wisp-test-")
	needFeature(t, err == nil, "/dev/shm is needed for a folder outside the covered ones")
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.MkdirAll(filepath.Join(base, "proj", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(base, "proj", "deep", ".env"), "K="+secretMark)
	writeFile(t, filepath.Join(base, "proj", "notes.txt"), "plain")
	if err := os.Symlink(filepath.Join(base, "proj"), filepath.Join(w.ws, "other")); err != nil {
		t.Fatal(err)
	}
	cfg := w.cfg
	cfg.AutoRun = true
	if r := run(t, cfg, "grep -R K= . ; cat other/notes.txt"); strings.Contains(r.stdout, secretMark) || !strings.Contains(r.stdout, "plain") {
		t.Errorf("exit %d: %q %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, w.cfg, "grep -R K= ."); !strings.Contains(r.stdout, secretMark) {
		t.Errorf("control: an approved command did not read it: %q %s", r.stdout, r.stderr)
	}
}

// Package folders the walk does not enter are skimmed at their
// packages' tops: a package's .env and an editable install's clone
// (whose remote URL may carry a token) are hidden too.
func TestAutoRunSkimsPackageFolders(t *testing.T) {
	w := autoRunWorld(t)
	git, err := exec.LookPath("git")
	needFeature(t, err == nil, "git is needed")
	const token = "ghp_WISPVENVTOKEN"
	if err := os.MkdirAll(filepath.Join(w.ws, "node_modules", "dep"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.ws, "node_modules", "dep", ".env"), "K="+secretMark)
	clone := filepath.Join(w.ws, ".venv", "src", "privpkg")
	if err := os.MkdirAll(clone, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://x:" + token + "@example.com/p.git"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = clone
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	cfg := w.cfg
	cfg.AutoRun = true
	line := "grep -r -e " + secretMark + " -e " + token + " ."
	if r := run(t, cfg, line); strings.Contains(r.stdout, secretMark) || strings.Contains(r.stdout, token) {
		t.Errorf("an auto-run command read them:\n%s", r.stdout)
	}
	if r := run(t, w.cfg, line); !strings.Contains(r.stdout, secretMark) || !strings.Contains(r.stdout, token) {
		t.Errorf("control: an approved command did not read them: %q %s", r.stdout, r.stderr)
	}
}
