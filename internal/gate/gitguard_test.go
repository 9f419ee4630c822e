package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// guardCase plants a program in .git by one syntax and then uses git the
// way the person would next; the planted program must not run.
type guardCase struct {
	name string
	// setup runs before the snapshot (what the person had); plant is the
	// command's work. Both are bash, in the repository, with $EVIL the
	// planted program and $T the scratch folder beside the repository.
	setup, plant string
	// use are the git commands (bash) that would run the program; with
	// none, the program settings git lists must not name $EVIL.
	use []string
	// tty runs use on a terminal (pagers run only there).
	tty bool
}

var guardCases = []guardCase{
	// One key, every syntax git accepts.
	{name: "fsmonitor by git config", plant: `git config core.fsmonitor "$EVIL"`, use: []string{"git status"}},
	{name: "key on the section line", plant: `printf '[core] fsmonitor = %s\n' "$EVIL" >> .git/config`, use: []string{"git status"}},
	{name: "key on the section line without spaces", plant: `printf '[core]fsmonitor=%s\n' "$EVIL" >> .git/config`, use: []string{"git status"}},
	{name: "quoted value", plant: `printf '[core]\n\tfsmonitor = "%s"\n' "$EVIL" >> .git/config`, use: []string{"git status"}},
	{name: "upper and mixed case", plant: `printf '[CoRe]\n\tFSMonitor = %s\n' "$EVIL" >> .git/config`, use: []string{"git status"}},
	{name: "continuation line", plant: `printf '[core]\n\tfsmonitor = %s\\\n%s\n' "${EVIL%/*}" "/${EVIL##*/}" >> .git/config`, use: []string{"git status"}},
	{name: "byte order mark and CRLF", plant: `{ printf '\xef\xbb\xbf[core]\r\n\tfsmonitor = %s\r\n' "$EVIL"; cat .git/config; } > .git/c2 && mv .git/c2 .git/config`, use: []string{"git status"}},
	{name: "comment after the value", plant: `printf '[core]\n\tfsmonitor = %s ; note\n' "$EVIL" >> .git/config`, use: []string{"git status"}},
	{name: "include", plant: `printf '[core]\n\tfsmonitor = %s\n' "$EVIL" > .git/more && printf '[include]\n\tpath = more\n' >> .git/config`, use: []string{"git status"}},
	{name: "includeIf", plant: `printf '[core]\n\tfsmonitor = %s\n' "$EVIL" > "$T/more" && printf '[includeIf "gitdir:/"]\n\tpath = %s\n' "$T/more" >> .git/config`, use: []string{"git status"}},
	{name: "change to an included file",
		setup: `printf '[user]\n\tname = me\n' > .git/more && printf '[include]\n\tpath = more\n' >> .git/config`,
		plant: `printf '[core]\n\tfsmonitor = %s\n' "$EVIL" >> .git/more`, use: []string{"git status"}},
	{name: "config replaced by a link", plant: `printf '[core]\n\tfsmonitor = %s\n' "$EVIL" > "$T/c" && cat .git/config >> "$T/c" && rm .git/config && ln -s "$T/c" .git/config`, use: []string{"git status"}},
	{name: "config.worktree", setup: `git config extensions.worktreeConfig true`,
		plant: `printf '[core]\n\tfsmonitor = %s\n' "$EVIL" > .git/config.worktree`, use: []string{"git status"}},

	// Where git finds its repository.
	{name: "gitfile over .git", plant: evilRepo + ` && mv .git "$T/moved" && printf 'gitdir: %s\n' "$T/evil/.git" > .git`, use: []string{"git status"}},
	{name: "symlink over .git", plant: evilRepo + ` && mv .git "$T/moved" && ln -s "$T/evil/.git" .git`, use: []string{"git status"}},
	{name: "new repository in a folder that had none", setup: `rm -rf .git`, plant: `git init -q && git config core.fsmonitor "$EVIL"`, use: []string{"git status"}},
	{name: "commondir", plant: evilRepo + ` && printf '%s\n' "$T/evil/.git" > .git/commondir`, use: []string{"git status"}},

	// Making .git unreadable, so that git looks elsewhere.
	{name: "HEAD broken, the workspace's top a repository", plant: `printf 'garbage\n' > .git/HEAD && ln -s .git/objects objects && ln -s .git/refs refs && printf 'ref: refs/heads/master\n' > HEAD && printf '[core]\n\tpager = %s\n' "$EVIL" > config`, use: []string{"git log"}, tty: true},
	{name: "HEAD broken, a repository in the parent folder", plant: `git init -q .. && git -C .. config core.fsmonitor "$EVIL" && printf 'garbage\n' > .git/HEAD`, use: []string{"GIT_CEILING_DIRECTORIES= git status"}},
	{name: "no repository, one made in the parent folder", setup: `rm -rf .git`, plant: `git init -q .. && git -C .. config core.fsmonitor "$EVIL"`, use: []string{"GIT_CEILING_DIRECTORIES= git status"}},

	// Hooks.
	{name: "hook", plant: `printf '#!/bin/sh\n%s\n' "$EVIL" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, use: []string{"git commit -q --allow-empty -m x"}},
	{name: "hooks folder replaced by a link", plant: `mkdir "$T/hooks" && printf '#!/bin/sh\n%s\n' "$EVIL" > "$T/hooks/pre-commit" && chmod +x "$T/hooks/pre-commit" && rm -rf .git/hooks && ln -s "$T/hooks" .git/hooks`, use: []string{"git commit -q --allow-empty -m x"}},
	{name: "hooksPath", plant: `mkdir -p hk && printf '#!/bin/sh\n%s\n' "$EVIL" > hk/pre-commit && chmod +x hk/pre-commit && git config core.hooksPath hk`, use: []string{"git commit -q --allow-empty -m x"}},
	// Folders missing before the command are watched all the same: what
	// a command makes in them is new.
	{name: "hook in a hooks folder that was missing", setup: `rm -rf .git/hooks`,
		plant: `mkdir .git/hooks && printf '#!/bin/sh\n%s\n' "$EVIL" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, use: []string{"git commit -q --allow-empty -m x"}},
	{name: "submodule repository in a modules folder that was missing", setup: `test ! -e .git/modules`,
		plant: `mkdir .git/modules && git init -q --separate-git-dir "$PWD/.git/modules/sub" sub && git -C sub commit -q --allow-empty -m s && git -C sub config core.fsmonitor "$EVIL" && git add sub 2>/dev/null`, use: []string{"git status"}},
	{name: "hook in an existing hooksPath folder", setup: `mkdir -p hk && git config core.hooksPath hk`,
		plant: `printf '#!/bin/sh\n%s\n' "$EVIL" > hk/pre-commit && chmod +x hk/pre-commit`, use: []string{"git commit -q --allow-empty -m x"}},

	// Submodules: git status enters each gitlink's repository and obeys
	// its configuration.
	{name: "new submodule in the work tree", plant: subRepo + ` && git -C sub config core.fsmonitor "$EVIL" && git add sub 2>/dev/null`, use: []string{"git status"}},
	{name: "gitlink written into the index", plant: subRepo + ` && git -C sub config core.fsmonitor "$EVIL" && git update-index --add --cacheinfo "160000,$(git -C sub rev-parse HEAD),sub"`, use: []string{"git status"}},
	{name: "existing submodule", setup: subRepo + ` && git add sub 2>/dev/null`, plant: `git -C sub config core.fsmonitor "$EVIL"`, use: []string{"git status"}},
	{name: "submodule of a submodule", setup: subRepo + ` && ` + nestedRepo + ` && git add sub 2>/dev/null`,
		plant: `git -C sub/inner config core.fsmonitor "$EVIL"`, use: []string{"git status"}},
	{name: "gitlink kept in a split index's shared file", plant: subRepo + ` && git -C sub config core.fsmonitor "$EVIL" && git add sub 2>/dev/null && git -c splitIndex.maxPercentChange=0 update-index --split-index && test -n "$(ls .git/sharedindex.*)"`, use: []string{"git status"}},
	{name: "submodules nested five deep", plant: `git init -q a/b/c/d/e && git -C a/b/c/d/e commit -q --allow-empty -m e && git -C a/b/c/d/e config core.fsmonitor "$EVIL" && for p in a/b/c/d:e a/b/c:d a/b:c a:b; do git -C ${p%%:*} init -q && git -C ${p%%:*} add ${p##*:} 2>/dev/null && git -C ${p%%:*} commit -q -m x || exit 1; done && git add a 2>/dev/null`, use: []string{"git status"}},
	{name: "submodule with a gitfile", plant: `git init -q --separate-git-dir "$T/subgit" sub && git -C sub commit -q --allow-empty -m s && git -C sub config core.fsmonitor "$EVIL" && git add sub 2>/dev/null`, use: []string{"git status"}},

	// Each key that runs a program.
	{name: "diff.external", plant: `git config diff.external "$EVIL"`, use: []string{changeFile + " && git diff"}},
	{name: "diff textconv", plant: `printf '[diff "x"]\n\ttextconv = %s\n' "$EVIL" >> .git/config && echo '*.txt diff=x' > .gitattributes`, use: []string{changeFile + " && git diff", "git log -p"}},
	{name: "diff textconv, old subsection form", plant: `printf '[diff.x]\n\ttextconv = %s\n' "$EVIL" >> .git/config && echo '*.txt diff=x' > .gitattributes`, use: []string{changeFile + " && git diff"}},
	{name: "diff textconv, dotted subsection", plant: `printf '[Diff "a.b"]\n\tTextConv = %s\n' "$EVIL" >> .git/config && echo '*.txt diff=a.b' > .gitattributes`, use: []string{changeFile + " && git diff"}},
	{name: "diff textconv via info/attributes", plant: `git config diff.x.textconv "$EVIL" && echo '*.txt diff=x' > .git/info/attributes`, use: []string{changeFile + " && git diff"}},
	{name: "diff command", plant: `git config diff.x.command "$EVIL" && echo '*.txt diff=x' > .gitattributes`, use: []string{changeFile + " && git diff"}},
	{name: "filter clean", plant: `git config filter.x.clean "$EVIL" && echo '*.txt filter=x' > .gitattributes`, use: []string{changeFile + " && git add -A"}},
	{name: "filter smudge", plant: `git config filter.x.smudge "$EVIL" && echo '*.txt filter=x' > .gitattributes`, use: []string{"rm a.txt && git checkout -- a.txt"}},
	{name: "filter process", plant: `git config filter.x.process "$EVIL" && echo '*.txt filter=x' > .gitattributes`, use: []string{changeFile + " && git add -A"}},
	{name: "pager.log", plant: `printf '[pager] log = %s\n' "$EVIL" >> .git/config`, use: []string{"git log"}, tty: true},
	{name: "core.pager", plant: `git config core.pager "$EVIL"`, use: []string{"git log"}, tty: true},
	{name: "interactive.diffFilter", plant: `git config interactive.diffFilter "$EVIL"`, use: []string{changeFile + " && echo q | git add -p"}, tty: true},
	{name: "alias with !", plant: `printf '[alias]\n\tst = "!%s"\n' "$EVIL" >> .git/config`, use: []string{"git st"}},
	{name: "alias with ! on the section line", plant: `printf '[alias] st = !%s\n' "$EVIL" >> .git/config`, use: []string{"git st"}},
	{name: "alias passing -c", plant: `printf '[alias]\n\tst = -c core.fsmonitor=%s status\n' "$EVIL" >> .git/config`, use: []string{"git st"}},
	{name: "core.editor", plant: `git config core.editor "$EVIL"`, use: []string{"git commit -q --allow-empty"}},
	{name: "gpg.program", plant: `git config gpg.program "$EVIL"`, use: []string{"git commit -q -S --allow-empty -m x"}},
	{name: "remote uploadpack", plant: evilRepo + ` && git remote add up "$T/evil" && git config remote.up.uploadpack "$EVIL"`, use: []string{"git fetch -q up"}},
	{name: "core.sshCommand", plant: `git config core.sshCommand "$EVIL"`},
	{name: "core.askPass", plant: `git config core.askPass "$EVIL"`},
	{name: "core.gitProxy", plant: `git config core.gitProxy "$EVIL"`},
	{name: "core.alternateRefsCommand", plant: `git config core.alternateRefsCommand "$EVIL"`},
	{name: "sequence.editor", plant: `git config sequence.editor "$EVIL"`},
	{name: "gpg.ssh.program", plant: `git config gpg.ssh.program "$EVIL"`},
	{name: "merge driver", plant: `git config merge.x.driver "$EVIL"`},
	{name: "credential.helper", plant: `git config credential.helper "$EVIL"`},
	{name: "credential url helper", plant: `git config credential.https://example.com.helper "$EVIL"`},
	{name: "remote receivepack", plant: `git config remote.o.receivepack "$EVIL"`},
	{name: "uploadpack.packObjectsHook", plant: `git config uploadpack.packObjectsHook "$EVIL"`},
	{name: "web.browser", plant: `git config web.browser "$EVIL"`},
	{name: "browser cmd", plant: `git config browser.x.cmd "$EVIL"`},
	{name: "man cmd", plant: `git config man.x.cmd "$EVIL"`},
	{name: "protocol allow", plant: `git config protocol.ext.allow always && git config url."ext::$EVIL %S".insteadOf https://example.com/`},
}

// evilRepo makes a repository elsewhere whose configuration runs $EVIL.
const evilRepo = `git init -q "$T/evil" && git -C "$T/evil" commit -q --allow-empty -m e && git -C "$T/evil" config core.fsmonitor "$EVIL"`

// subRepo makes a repository in the work tree's folder sub; nestedRepo
// one inside it, registered there as its submodule.
const (
	subRepo    = `git init -q sub && git -C sub commit -q --allow-empty -m s`
	nestedRepo = `git init -q sub/inner && git -C sub/inner commit -q --allow-empty -m i && git -C sub add inner 2>/dev/null && git -C sub commit -q -m inner`
)

// changeFile changes the tracked file, so diffs have something to show.
const changeFile = `echo changed >> a.txt`

// TestGitGuardKeys plants each program-running setting by each syntax,
// checks that the plant works when nothing guards the repository, and
// that after the guard's restore the person's next git command does not
// run it.
func TestGitGuardKeys(t *testing.T) {
	git := requireGit(t)
	tmpl := guardTemplate(t)
	for _, tc := range guardCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if len(tc.use) > 0 {
				// Unguarded, the program runs: the case plants for real.
				r := newGuardRepo(t, git, tmpl, tc.setup)
				r.bash(t, tc.plant)
				_ = os.Remove(r.marker)
				r.use(t, tc)
				if !r.ran() {
					t.Fatalf("the plant does not run %s even unguarded", r.evil)
				}
			}
			r := newGuardRepo(t, git, tmpl, tc.setup)
			snap := snapshotGit(r.work, nil, nil)
			r.bash(t, tc.plant)
			restored := snap.restore(r.work)
			// Only what runs after the restore counts.
			_ = os.Remove(r.marker)
			if len(restored) == 0 {
				t.Errorf("nothing was restored")
			}
			r.use(t, tc)
			if r.ran() {
				t.Fatalf("the planted program ran after the restore of %q", restored)
			}
			if out := r.listing(t); strings.Contains(out, r.evil) {
				t.Errorf("git still lists the planted program:\n%s", out)
			}
		})
	}
}

// Ordinary git work changes the configuration and stays.
func TestGitGuardKeepsOrdinaryWork(t *testing.T) {
	git := requireGit(t)
	tmpl := guardTemplate(t)
	for _, tc := range []struct{ name, setup, work, want string }{
		{"user and remote", "", `git config user.email a@b.c && git remote add origin https://example.com/r.git`, `url = https://example.com/r.git`},
		{"branch", "", `git checkout -q -b topic && git config branch.topic.description x`, `[branch "topic"]`},
		{"with an include", `printf '[user]\n\tname = me\n' > .git/more && git config include.path more`, `git config core.autocrlf false`, `autocrlf = false`},
		{"a hook that was there", `printf '#!/bin/sh\n' > .git/hooks/pre-push`, `git config pull.rebase true`, `rebase = true`},
		{"git init of a fresh workspace", "rm -rf .git", `git init -q`, `[core]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newGuardRepo(t, git, tmpl, tc.setup)
			snap := snapshotGit(r.work, nil, nil)
			r.bash(t, tc.work)
			if restored := snap.restore(r.work); len(restored) > 0 {
				t.Fatalf("ordinary work was restored: %q", restored)
			}
			cfg, _ := os.ReadFile(filepath.Join(r.work, ".git", "config"))
			if !strings.Contains(string(cfg), tc.want) {
				t.Errorf("config lost the change (want %q):\n%s", tc.want, cfg)
			}
		})
	}
}

// Without git to read configuration, any change to it is put back.
func TestGitGuardWithoutGit(t *testing.T) {
	git := requireGit(t)
	r := newGuardRepo(t, git, guardTemplate(t), "")
	snap := snapshotGit(r.work, nil, nil)
	snap.git, snap.looked = "", true
	before, _ := os.ReadFile(filepath.Join(r.work, ".git", "config"))
	r.bash(t, `git config user.name someone`)
	if restored := snap.restore(r.work); len(restored) != 1 || restored[0] != filepath.Join(".git", "config") {
		t.Fatalf("restored %q, want .git/config", restored)
	}
	after, _ := os.ReadFile(filepath.Join(r.work, ".git", "config"))
	if string(after) != string(before) {
		t.Errorf("config not put back:\n%s", after)
	}
}

// A gitfile the command writes over .git is removed, and the repository
// it names is never touched.
func TestGitGuardDoesNotFollowANewGitfile(t *testing.T) {
	git := requireGit(t)
	r := newGuardRepo(t, git, guardTemplate(t), "")
	other := filepath.Join(r.scratch, "other")
	r.bash(t, `git init -q "$T/other" && printf '#!/bin/sh\n' > "$T/other/.git/hooks/pre-commit"`)
	snap := snapshotGit(r.work, nil, nil)
	r.bash(t, `rm -rf .git && printf 'gitdir: %s\n' "$T/other/.git" > .git`)
	snap.restore(r.work)
	if _, err := os.Lstat(filepath.Join(r.work, ".git")); err == nil {
		t.Errorf(".git is still there")
	}
	if _, err := os.Stat(filepath.Join(other, ".git", "hooks", "pre-commit")); err != nil {
		t.Errorf("the other repository's hook was touched: %v", err)
	}
}

type guardRepo struct {
	git, work, scratch, home, evil, marker string
}

func requireGit(t *testing.T) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is missing")
		}
		t.Skip("needs git")
	}
	return git
}

// guardTemplate makes a repository with one commit of a.txt, copied for
// each case (git runs are the slow part of these tests).
func guardTemplate(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	r := &guardRepo{work: dir, home: t.TempDir(), scratch: t.TempDir()}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.bash(t, `git init -q && echo a > a.txt && git add a.txt && git commit -q -m a`)
	return dir
}

// newGuardRepo copies the template repository, puts a planted program
// beside it that leaves a marker when it runs, and runs setup.
func newGuardRepo(t *testing.T, git, tmpl, setup string) *guardRepo {
	t.Helper()
	base := t.TempDir()
	r := &guardRepo{git: git, work: filepath.Join(base, "work"), scratch: filepath.Join(base, "t"), home: filepath.Join(base, "home")}
	r.evil, r.marker = filepath.Join(base, "t", "evil.sh"), filepath.Join(base, "marker")
	for _, d := range []string{r.scratch, r.home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.CopyFS(r.work, os.DirFS(tmpl)); err != nil {
		t.Fatal(err)
	}
	prog := "#!/bin/sh\ntouch " + r.marker + "\nexit 1\n"
	if err := os.WriteFile(r.evil, []byte(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	if setup != "" {
		r.bash(t, setup)
	}
	return r
}

func (r *guardRepo) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + r.home, "T=" + r.scratch, "EVIL=" + r.evil,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES=" + filepath.Dir(r.work),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_TERMINAL_PROMPT=0", "TERM=xterm", "LC_ALL=C",
		// What git falls back to once core.editor and gpg.program are
		// gone: programs that end at once.
		"EDITOR=false", "GNUPGHOME=" + r.home,
	}
}

func (r *guardRepo) bash(t testing.TB, line string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-ec", line)
	cmd.Dir, cmd.Env = r.work, r.env()
	cmd.WaitDelay = time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
}

// use runs the person's next git commands; whether they succeed does not
// matter, only whether the planted program ran.
func (r *guardRepo) use(t *testing.T, tc guardCase) {
	t.Helper()
	for _, line := range tc.use {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", line)
		if tc.tty {
			cmd = exec.CommandContext(ctx, "script", "-qec", line, "/dev/null")
		}
		cmd.Dir, cmd.Env = r.work, r.env()
		cmd.WaitDelay = time.Second
		out, _ := cmd.CombinedOutput()
		cancel()
		t.Logf("%s:\n%s", line, out)
	}
}

func (r *guardRepo) ran() bool {
	_, err := os.Stat(r.marker)
	return err == nil
}

// listing is what git reads now from the repository's configuration.
func (r *guardRepo) listing(t *testing.T) string {
	cmd := exec.Command(r.git, "config", "--list", "--show-origin", "--includes")
	cmd.Dir, cmd.Env = r.work, r.env()
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// BenchmarkGitGuard is the guard's cost for a command that leaves .git
// alone (the common case): no git runs, only stats and small reads.
func BenchmarkGitGuard(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("needs git")
	}
	dir := filepath.Join(b.TempDir(), "repo")
	r := &guardRepo{work: dir, home: b.TempDir(), scratch: b.TempDir()}
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	r.bash(b, `git init -q && printf '#!/bin/sh\n' > .git/hooks/pre-commit && git remote add o https://example.com/x`)
	b.ResetTimer()
	for b.Loop() {
		if fixed := snapshotGit(dir, nil, nil).restore(dir); len(fixed) > 0 {
			b.Fatal(fixed)
		}
	}
}

// A submodule whose .git points outside the workspace loses its pointer;
// the repository it names, outside, is left as it is, and one that was
// there before the command stays. Two commands: the first makes an
// ordinary nested repository, the second registers it.
func TestGitGuardSubmodulePointers(t *testing.T) {
	git := requireGit(t)
	r := newGuardRepo(t, git, guardTemplate(t), `git init -q --separate-git-dir "$T/kept" old && git -C old commit -q --allow-empty -m o && git add old 2>/dev/null`)
	snap := snapshotGit(r.work, nil, nil)
	r.bash(t, `git init -q --separate-git-dir "$T/outside" sub && git -C sub commit -q --allow-empty -m s && git -C sub config core.fsmonitor "$EVIL"`)
	if restored := snap.restore(r.work); len(restored) > 0 {
		t.Fatalf("an unregistered nested repository was restored: %q", restored)
	}
	snap = snapshotGit(r.work, nil, nil)
	r.bash(t, `git add sub 2>/dev/null`)
	restored := snap.restore(r.work)
	if len(restored) != 1 || restored[0] != filepath.Join("sub", ".git") {
		t.Fatalf("restored %q, want sub/.git", restored)
	}
	cfg, _ := os.ReadFile(filepath.Join(r.scratch, "outside", "config"))
	if !strings.Contains(string(cfg), r.evil) {
		t.Errorf("the repository outside the workspace was changed:\n%s", cfg)
	}
	if _, err := os.Lstat(filepath.Join(r.work, "old", ".git")); err != nil {
		t.Errorf("the submodule that was there before lost its .git: %v", err)
	}
	_ = os.Remove(r.marker)
	r.use(t, guardCase{use: []string{"git status"}})
	if r.ran() {
		t.Fatal("the planted program ran")
	}
}

// A submodule's folder replaced by a link to another repository is put
// back as a folder; the other repository is left as it was.
func TestGitGuardDoesNotWriteThroughALinkedModule(t *testing.T) {
	git := requireGit(t)
	r := newGuardRepo(t, git, guardTemplate(t), `mkdir -p .git/modules/sub && printf '[core]\n\tbare = false\n' > .git/modules/sub/config`)
	other := filepath.Join(r.scratch, "other")
	r.bash(t, `mkdir -p "$T/other/hooks" && printf '[alias]\n\tco = checkout\n' > "$T/other/config" && printf '#!/bin/sh\n' > "$T/other/hooks/pre-push" && printf 'x\n' > "$T/other/commondir"`)
	snap := snapshotGit(r.work, nil, nil)
	r.bash(t, `mv .git/modules/sub .git/modules/sub.old && ln -s "$T/other" .git/modules/sub`)
	snap.restore(r.work)
	for name, want := range map[string]string{"config": "[alias]\n\tco = checkout\n", "hooks/pre-push": "#!/bin/sh\n", "commondir": "x\n"} {
		if got, err := os.ReadFile(filepath.Join(other, name)); err != nil || string(got) != want {
			t.Errorf("the other repository's %s was changed: %q, %v", name, got, err)
		}
	}
	if fi, err := os.Lstat(filepath.Join(r.work, ".git", "modules", "sub")); err != nil || !fi.IsDir() {
		t.Errorf(".git/modules/sub is not a folder again: %v", err)
	}
}
