package gate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The sandbox lets commands write anywhere in the workspace, and Landlock
// cannot exempt a subfolder. But git runs hooks and some configuration
// (fsmonitor, pagers, filters, aliases…) from the workspace's .git folder
// outside any sandbox, the next time the person uses git. So the gate
// takes a snapshot of those files before a command and puts back what the
// command changed there, telling the model and the audit.

// gitGuardMax bounds what one guarded file may hold in the snapshot.
const gitGuardMax = 1 << 20

type guardedFile struct {
	mode fs.FileMode
	data []byte
}

type gitSnapshot struct {
	gitDir string
	files  map[string]guardedFile // path relative to gitDir
}

// snapshotGit records the files of workdir/.git that git executes or
// obeys: config, config.worktree, commondir, info/attributes, hooks, and
// the same in .git/modules/*. A workspace without a .git folder gives an
// empty snapshot.
func snapshotGit(workdir string) *gitSnapshot {
	s := &gitSnapshot{gitDir: filepath.Join(workdir, ".git"), files: map[string]guardedFile{}}
	if fi, err := os.Lstat(s.gitDir); err != nil || !fi.IsDir() {
		return s
	}
	roots := []string{""}
	if mods, err := os.ReadDir(filepath.Join(s.gitDir, "modules")); err == nil {
		for _, m := range mods {
			if m.IsDir() {
				roots = append(roots, filepath.Join("modules", m.Name()))
			}
		}
	}
	for _, r := range roots {
		for _, name := range []string{"config", "config.worktree", "commondir", filepath.Join("info", "attributes")} {
			s.add(filepath.Join(r, name))
		}
		hooks, _ := os.ReadDir(filepath.Join(s.gitDir, r, "hooks"))
		for _, h := range hooks {
			if !strings.HasSuffix(h.Name(), ".sample") {
				s.add(filepath.Join(r, "hooks", h.Name()))
			}
		}
	}
	return s
}

func (s *gitSnapshot) add(rel string) {
	path := filepath.Join(s.gitDir, rel)
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	f := guardedFile{mode: fi.Mode()}
	if fi.Mode().IsRegular() && fi.Size() <= gitGuardMax {
		f.data, _ = os.ReadFile(path)
	}
	s.files[rel] = f
}

// restore compares the .git folder now with the snapshot taken before the
// command, puts back every change that could run code, and returns the
// paths it restored (relative to the workspace).
func (s *gitSnapshot) restore(workdir string) []string {
	after := snapshotGit(workdir)
	var fixed []string
	names := map[string]bool{}
	for n := range s.files {
		names[n] = true
	}
	for n := range after.files {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, rel := range sorted {
		old, had := s.files[rel]
		now, has := after.files[rel]
		if had && has && old.mode == now.mode && bytes.Equal(old.data, now.data) {
			continue
		}
		if filepath.Base(rel) == "config" && has && !dangerousConfigChange(old.data, now.data) {
			continue
		}
		path := filepath.Join(s.gitDir, rel)
		if err := os.RemoveAll(path); err != nil && !os.IsNotExist(err) {
			fixed = append(fixed, fmt.Sprintf("%s (could not restore: %v)", filepath.Join(".git", rel), err))
			continue
		}
		if had && old.mode.IsRegular() {
			if err := os.WriteFile(path, old.data, old.mode.Perm()); err == nil {
				_ = os.Chmod(path, old.mode.Perm())
			}
		}
		fixed = append(fixed, filepath.Join(".git", rel))
	}
	return fixed
}

// runsCode are git configuration keys (their last part, lower-cased) whose
// values git runs as programs or that pull in other configuration.
var runsCode = map[string]bool{
	"fsmonitor": true, "hookspath": true, "pager": true, "editor": true,
	"sshcommand": true, "askpass": true, "textconv": true, "clean": true,
	"smudge": true, "process": true, "command": true, "driver": true,
	"helper": true, "program": true, "uploadpack": true,
	"receivepack": true, "gitproxy": true, "proxycommand": true,
}

// dangerousConfigChange reports whether the new config adds a line that
// sets a key git runs, an alias that runs a shell command, or an include.
// Other changes (a remote, user.name) are the ordinary work of git
// commands and stay.
func dangerousConfigChange(old, now []byte) bool {
	seen := map[string]bool{}
	for _, l := range strings.Split(string(old), "\n") {
		seen[strings.TrimSpace(l)] = true
	}
	for _, l := range strings.Split(string(now), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || seen[l] {
			continue
		}
		low := strings.ToLower(l)
		if strings.HasPrefix(low, "[include") || strings.HasPrefix(low, "[filter") {
			return true
		}
		key, value, ok := strings.Cut(low, "=")
		if !ok {
			continue
		}
		key = strings.TrimSpace(key)
		if runsCode[key] || strings.HasPrefix(strings.TrimSpace(value), "!") {
			return true
		}
	}
	return false
}
