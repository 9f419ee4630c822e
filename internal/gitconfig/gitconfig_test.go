package gitconfig

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRunsProgram(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"core.fsmonitor", true},
		{"core.hookspath", true},
		{"core.sshcommand", true},
		{"core.pager", true},
		{"core.editor", true},
		{"core.askpass", true},
		{"core.gitproxy", true},
		{"core.alternaterefscommand", true},
		{"diff.external", true},
		{"diff.x.textconv", true},
		{"diff.a.b.textconv", true},
		{"diff.X.command", true},
		{"filter.lfs.clean", true},
		{"filter.x.smudge", true},
		{"filter.x.process", true},
		{"merge.x.driver", true},
		{"pager.log", true},
		{"interactive.difffilter", true},
		{"sequence.editor", true},
		{"gpg.program", true},
		{"gpg.ssh.program", true},
		{"credential.helper", true},
		{"credential.https://example.com.helper", true},
		{"alias.st", true},
		{"include.path", true},
		{"includeif.gitdir:/x/.path", true},
		{"remote.origin.uploadpack", true},
		{"remote.origin.receivepack", true},
		{"uploadpack.packobjectshook", true},
		{"web.browser", true},
		{"browser.x.cmd", true},
		{"man.x.cmd", true},
		{"protocol.ext.allow", true},
		{"url.ext::sh.insteadof", true},

		{"core.bare", false},
		{"core.repositoryformatversion", false},
		{"user.name", false},
		{"remote.origin.url", false},
		{"remote.origin.fetch", false},
		{"branch.main.remote", false},
		{"diff.renames", false},
		{"diff.x.binary", false},
		{"merge.ff", false},
		{"core.worktree", false},
	} {
		if got := RunsProgram(tc.key); got != tc.want {
			t.Errorf("RunsProgram(%q) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

func TestParseList(t *testing.T) {
	out := "file:/r/.git/config\x00core.bare\nfalse\x00file:/r/.git/config\x00alias.x\n!a\nb\x00file:/r/more\x00core.flag\x00"
	got, err := ParseList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Origin: "/r/.git/config", Key: "core.bare", Value: "false"},
		{Origin: "/r/.git/config", Key: "alias.x", Value: "!a\nb"},
		{Origin: "/r/more", Key: "core.flag", NoValue: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ParseList = %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"file:x", "file:x\x00key", "file:x\x00\x00"} {
		if _, err := ParseList([]byte(bad)); err == nil {
			t.Errorf("ParseList(%q) accepted", bad)
		}
	}
}

func FuzzParseList(f *testing.F) {
	f.Add([]byte("file:a\x00k.x\nv\x00"))
	f.Add([]byte("file:a\x00k\x00file:b\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseList(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Key == "" || strings.ContainsRune(e.Key, 0) {
				t.Fatalf("bad entry %+v from %q", e, data)
			}
		}
	})
}

// git reads every syntax it accepts; List must see what git sees.
func TestListReadsAsGitDoes(t *testing.T) {
	git, ok := FindGit()
	if !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is missing")
		}
		t.Skip("needs git")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "more"), []byte("[core]\n\tpager = p3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "\xef\xbb\xbf[core] fsmonitor = \"p1\" ; note\n[CoRe]EDITOR=p\\\n2\n" +
		"[diff.x]\n\ttextconv = p4\n[alias] st = \"!p5\"\n[include]\n\tpath = more\n[user]\n\tname = me\n"
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, err := List(context.Background(), git, filepath.Join(dir, "config"))
	if err != nil {
		t.Fatal(err)
	}
	got := Programs(entries)
	want := []string{"alias.st=!p5", "core.editor=p2", "core.fsmonitor=p1", "core.pager=p3", "diff.x.textconv=p4", "include.path=more"}
	if !slices.Equal(got, want) {
		t.Errorf("Programs = %q\nwant %q", got, want)
	}
	if inc := Includes(entries, "/h"); !slices.Equal(inc, []string{filepath.Join(dir, "more")}) {
		t.Errorf("Includes = %q", inc)
	}
	if _, err := List(context.Background(), git, filepath.Join(dir, "missing")); err == nil {
		t.Errorf("a missing file listed without error")
	}
	if err := os.WriteFile(filepath.Join(dir, "bad"), []byte("[core\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := List(context.Background(), git, filepath.Join(dir, "bad")); err == nil {
		t.Errorf("a file git cannot parse listed without error")
	}
}

// A git planted in the guarded folder is never the one run.
func TestFindGitRefusesAPlantedGit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if p, ok := FindGit(dir); ok {
		t.Errorf("FindGit = %s, inside %s", p, dir)
	}
	if p, ok := FindGit(); !ok || p != filepath.Join(dir, "git") {
		t.Errorf("FindGit without a guarded folder = %s, %v", p, ok)
	}
}
