//go:build linux

package conceal

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/gitconfig"
)

// gitKeepSections are the sections of a repository's configuration an
// auto-run command sees: what git needs to read the repository (its
// format, its branches' names). Remotes, submodules, credential and http
// settings are left out: their URLs and headers hold tokens
// (https://user:TOKEN@host), and a line rated read-only could print them
// (git remote -v, grep -r url .git). Keys that make git run a program
// are left out of these too.
var gitKeepSections = []string{"core", "extensions", "branch", "index", "feature", "pack"}

// Bounds of the search for configuration files in a git folder's
// modules/ (submodule names may hold slashes, and submodules nest).
const (
	gitModulesDepth   = 16
	gitModulesEntries = 20000
)

// gitCover is one configuration file and what covers it: data (empty:
// /dev/null) and the files it includes, which read empty.
type gitCover struct {
	path     string
	data     []byte
	includes []string
}

// planGitConfig reads each configuration file of the repositories an
// auto-run command can reach (gitDirs: the workspace's, the one it lies
// in, nested clones; with their worktrees' and submodules' folders) with
// git itself, and keeps only gitKeepSections for the copy that will
// cover it. Without git to read the files, each is covered with
// /dev/null.
func planGitConfig(gitDirs []string, workdir string) []gitCover {
	git, _ := gitconfig.FindGit(workdir)
	var covers []gitCover
	for _, p := range gitConfigFiles(gitDirs) {
		// A config that is a link (dotfile managers make them) is
		// covered where it leads.
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || slices.ContainsFunc(covers, func(c gitCover) bool { return c.path == p }) {
			continue
		}
		c := gitCover{path: p}
		if git != "" {
			if entries, err := gitconfig.List(context.Background(), git, p); err == nil {
				c.data = keptConfig(entries)
				for _, e := range entries {
					if e.Origin != "" && e.Origin != p && !slices.Contains(c.includes, e.Origin) {
						c.includes = append(c.includes, e.Origin)
					}
				}
				// Conditional includes (includeIf "onbranch:…") are
				// not followed when a file is read alone, but git
				// reads them in the repository.
				for _, inc := range gitconfig.Includes(entries, os.Getenv("HOME")) {
					if !slices.Contains(c.includes, inc) {
						c.includes = append(c.includes, inc)
					}
				}
			}
		}
		covers = append(covers, c)
	}
	return covers
}

// applyGitConfig covers each file with its copy. The copies are written
// to a tmpfs mounted for the moment over an existing folder of this
// mount namespace and detached once bound, never to a folder a command
// can write (a link planted there would turn writing a copy into a write
// elsewhere). Each target is opened first and bound through its
// descriptor, since the tmpfs may cover the folder it lies in.
func applyGitConfig(covers []gitCover) error {
	var targets []int
	defer func() {
		for _, fd := range targets {
			unix.Close(fd)
		}
	}()
	for _, c := range covers {
		fd, err := unix.Open(c.path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("hide %s: %w", c.path, err)
		}
		targets = append(targets, fd)
	}
	if err := bindCopies(covers, targets); err != nil {
		return err
	}
	var hidden []string
	for _, c := range covers {
		for _, inc := range c.includes {
			if fi, err := os.Stat(inc); err == nil && fi.Mode().IsRegular() && !slices.Contains(hidden, inc) {
				if err := Hide(inc, false); err != nil {
					return fmt.Errorf("hide %s: %w", inc, err)
				}
				hidden = append(hidden, inc)
			}
		}
	}
	return nil
}

// bindCopies writes each cover's copy on a scratch tmpfs and binds it
// over its target (/dev/null for an empty copy).
func bindCopies(covers []gitCover, targets []int) error {
	if len(covers) == 0 {
		return nil
	}
	scratch := ""
	for _, d := range []string{"/tmp", "/var/tmp", "/mnt", "/media"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			if unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4m,mode=0700") == nil {
				scratch = d
				break
			}
		}
	}
	if scratch != "" {
		defer unix.Unmount(scratch, unix.MNT_DETACH)
	}
	for i, c := range covers {
		src := os.DevNull
		if len(c.data) > 0 && scratch != "" {
			src = filepath.Join(scratch, fmt.Sprintf("config-%d", i))
			if err := os.WriteFile(src, c.data, 0o444); err != nil {
				return fmt.Errorf("hide %s: %w", c.path, err)
			}
		}
		if err := unix.Mount(src, fmt.Sprintf("/proc/self/fd/%d", targets[i]), "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("hide %s: %w", c.path, err)
		}
	}
	return nil
}

// keptConfig writes the entries of gitKeepSections that run no program
// back in git's syntax, every value quoted.
func keptConfig(entries []gitconfig.Entry) []byte {
	var b strings.Builder
	header := ""
	for _, e := range entries {
		section, sub, name := gitconfig.Split(e.Key)
		if !slices.Contains(gitKeepSections, section) || gitconfig.RunsProgram(e.Key) || name == "" {
			continue
		}
		h := "[" + section + "]"
		if sub != "" {
			h = "[" + section + " " + quoteConfig(sub) + "]"
		}
		if h != header {
			b.WriteString(h + "\n")
			header = h
		}
		if e.NoValue {
			b.WriteString("\t" + name + "\n")
			continue
		}
		b.WriteString("\t" + name + " = " + quoteConfig(e.Value) + "\n")
	}
	return []byte(b.String())
}

func quoteConfig(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// repoGitDirs lists the git folders of the repository workdir lies in:
// its own .git (folder or gitfile) or the nearest one above it, as git
// finds it, and that folder's common folder.
func repoGitDirs(workdir string) []string {
	for dir := workdir; ; dir = filepath.Dir(dir) {
		if d := gitconfig.GitDirOf(dir); d != "" {
			return gitconfig.WithCommon(d)
		}
		if dir == "/" || dir == "." {
			return nil
		}
	}
}

// gitConfigFiles lists the configuration files git reads for the given
// git folders: each one's config and config.worktree, its linked
// worktrees', and every config file beneath modules/ (submodules, their
// names with slashes, and theirs in turn).
func gitConfigFiles(dirs []string) []string {
	var files []string
	for _, d := range dirs {
		files = append(files, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"))
		m, _ := filepath.Glob(filepath.Join(d, "worktrees", "*", "config.worktree"))
		files = append(files, m...)
		modules := filepath.Join(d, "modules")
		seen := 0
		_ = filepath.WalkDir(modules, func(p string, e fs.DirEntry, err error) error {
			seen++
			switch {
			case err != nil:
				return nil
			case seen > gitModulesEntries:
				return filepath.SkipAll
			case e.IsDir() && strings.Count(p[len(modules):], "/") > gitModulesDepth:
				return filepath.SkipDir
			case e.IsDir() && (e.Name() == "objects" || e.Name() == "refs" || e.Name() == "logs"):
				return filepath.SkipDir
			case !e.IsDir() && (e.Name() == "config" || e.Name() == "config.worktree"):
				files = append(files, p)
			}
			return nil
		})
	}
	return files
}
