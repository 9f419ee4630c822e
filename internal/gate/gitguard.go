package gate

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/gitconfig"
)

// The sandbox lets commands write anywhere in the workspace, and Landlock
// cannot exempt a subfolder. But git runs hooks and some configuration
// (fsmonitor, pagers, filters, aliases…) from the workspace's .git folder
// outside any sandbox, the next time the person uses git. So the gate
// takes a snapshot of those files before a command and puts back what the
// command changed there, telling the model and the audit.
//
// Configuration files are compared by what git reads from them, with
// git's own parser (package gitconfig): a change that leaves the settings
// that run programs as they were (a remote, user.name) is the ordinary
// work of git commands and stays; any other change puts the whole file
// back. Where git is missing, any change to a configuration file is put
// back. Hooks, commondir, gitdir, info/attributes and the files a
// configuration includes are put back on any change, and a .git folder
// replaced by a file or link (which points git at a repository elsewhere)
// is removed.

// gitGuardMax bounds what one guarded file may hold in the snapshot; a
// larger one that changes is removed, since it cannot be put back.
const gitGuardMax = 1 << 20

// fileState is one guarded path as it was.
type fileState struct {
	exists bool
	mode   fs.FileMode
	size   int64
	mtime  time.Time
	data   []byte // the content of a regular file, when kept
	kept   bool
	link   string // the target of a symbolic link
}

func (a fileState) same(b fileState) bool {
	if a.exists != b.exists || a.mode != b.mode || a.link != b.link {
		return false
	}
	if !a.mode.IsRegular() {
		return true
	}
	if a.kept && b.kept {
		return bytes.Equal(a.data, b.data)
	}
	return a.size == b.size && a.mtime.Equal(b.mtime)
}

type gitSnapshot struct {
	workdir, dotGit string
	// dirs are the git folders the workspace used before the command;
	// after it, the same folders are compared, never ones a changed
	// gitfile or commondir names.
	dirs []string
	// git is the program that parses configuration; empty when missing.
	// git is found on first need (lookGit): most commands change no
	// configuration, and a PATH search on every call would dominate the
	// gate's cost.
	git    string
	looked bool
	files  map[string]fileState // by absolute path
	// roots are the configuration files whose settings are compared.
	roots map[string]bool
	// hookDirs are folders git runs hooks from; extra are files a
	// configuration includes. The snapshot after the command looks at
	// the same places.
	hookDirs, extra []string
	// programs are a root's program settings before the command, when
	// they had to be read then (the file has includes or a hooksPath).
	programs map[string][]string
	badRoots map[string]bool
	// primary are the workspace's own git folders (dirs adds its
	// submodules'); links caches the gitlinks of index files across
	// commands.
	primary []string
	links   *gitlinkCache
	// discovery are the paths watched because git would look there
	// were .git no repository (discoveryPaths).
	discovery []string
}

// snapshotGit records the files of workdir/.git that git executes or
// obeys. A workspace without .git gives a snapshot of its absence.
func snapshotGit(workdir string, links *gitlinkCache, writable []string) *gitSnapshot {
	dot := statPath(filepath.Join(workdir, ".git"))
	primary := gitDirs(workdir, dot)
	subs, pointers := submoduleDirs(workdir, primary, links)
	discovery := discoveryPaths(workdir, writable)
	s := collectGit(workdir, dot, append(slices.Clip(primary), subs...), nil, append(pointers, discovery...))
	s.primary, s.links, s.discovery = primary, links, discovery
	for root := range s.roots {
		s.readEarly(root)
	}
	return s
}

// collectGit records the guarded paths as they are now: .git (as the
// caller just found it, dot), what git obeys in the git folders dirs,
// and the hook folders and extra files an earlier snapshot named. The
// caller's look at .git is the one recorded, so that the folders it
// chose by it and the state compared are one observation.
func collectGit(workdir string, dot fileState, dirs, hookDirs, extra []string) *gitSnapshot {
	s := &gitSnapshot{
		workdir: workdir, dotGit: filepath.Join(workdir, ".git"), dirs: dirs,
		files: map[string]fileState{}, roots: map[string]bool{},
		programs: map[string][]string{}, badRoots: map[string]bool{},
	}
	s.files[s.dotGit] = dot
	for _, dir := range dirs {
		s.collectDir(dir)
	}
	for _, d := range hookDirs {
		s.addHookDir(d)
	}
	for _, f := range extra {
		s.addExtra(f)
	}
	return s
}

// gitDirs finds the git folders the workspace uses: .git itself, or the
// folder a gitfile or link names, and that folder's common dir.
func gitDirs(workdir string, dot fileState) []string {
	var dir string
	switch {
	case !dot.exists:
		return nil
	case dot.mode.IsDir():
		// A folder as dot was found: no link to follow, nothing to
		// check again.
		return gitconfig.WithCommon(filepath.Join(workdir, ".git"))
	case dot.mode&fs.ModeSymlink != 0:
		dir = dot.link
	case dot.mode.IsRegular() && dot.kept:
		// The saved bytes, not a second read: what was compared is
		// what is followed.
		dir = gitconfig.GitfileTarget(workdir, dot.data)
	}
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(workdir, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	return gitconfig.WithCommon(dir)
}

// collectDir records what git obeys in one git folder, its submodules'
// folders (modules/*) and its linked worktrees' folders (worktrees/*).
func (s *gitSnapshot) collectDir(gitDir string) {
	dirs := []string{gitDir}
	for _, sub := range []string{"modules", "worktrees"} {
		// The folders themselves are recorded too: one replaced by a
		// link is put back before anything beneath it, so that no
		// restore writes through the link into another repository.
		// A folder found missing has nothing to list.
		folder := filepath.Join(gitDir, sub)
		if !s.record(folder).exists {
			continue
		}
		entries, _ := os.ReadDir(folder)
		for _, e := range entries {
			p := filepath.Join(gitDir, sub, e.Name())
			if st := s.record(p); st.mode.IsDir() {
				dirs = append(dirs, p)
			}
		}
	}
	for _, d := range dirs {
		for _, name := range []string{"config", "config.worktree"} {
			p := filepath.Join(d, name)
			s.roots[p] = true
			s.record(p)
		}
		for _, name := range []string{"commondir", "gitdir", "info", filepath.Join("info", "attributes"), "HEAD"} {
			s.record(filepath.Join(d, name))
		}
		s.addHookDir(filepath.Join(d, "hooks"))
	}
}

// addHookDir records a hook folder and every hook in it.
func (s *gitSnapshot) addHookDir(dir string) {
	if slices.Contains(s.hookDirs, dir) {
		return
	}
	s.hookDirs = append(s.hookDirs, dir)
	if !s.record(dir).exists {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sample") {
			s.record(filepath.Join(dir, e.Name()))
		}
	}
}

func (s *gitSnapshot) addExtra(path string) {
	if !slices.Contains(s.extra, path) {
		s.extra = append(s.extra, path)
		s.record(path)
	}
}

// record notes one path's state (a missing path too) and returns it.
func (s *gitSnapshot) record(path string) fileState {
	if st, ok := s.files[path]; ok {
		return st
	}
	st := statPath(path)
	s.files[path] = st
	return st
}

func statPath(path string) fileState {
	var st fileState
	if fi, err := os.Lstat(path); err == nil {
		st = fileState{exists: true, mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime()}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			st.link, _ = os.Readlink(path)
		case fi.Mode().IsRegular() && fi.Size() <= gitGuardMax:
			if data, err := gitconfig.ReadRegular(path, gitGuardMax); err == nil {
				st.data, st.kept = data, true
			}
		}
	}
	return st
}

// mayHide are words without which a configuration file can neither
// include another file nor move the hook folder (section and key names
// cannot be escaped or continued). Only a file holding one is read with
// git before the command runs; any other file's earlier settings can be
// read later from its saved bytes, anywhere.
var mayHide = []string{"include", "hookspath"}

// lookGit returns the git program that parses configuration, or "" when
// there is none outside the workspace.
func (s *gitSnapshot) lookGit() string {
	if !s.looked {
		s.git, _ = gitconfig.FindGit(s.workdir)
		s.looked = true
	}
	return s.git
}

// readEarly reads a root's program settings before the command when its
// includes or hook folder must be guarded too.
func (s *gitSnapshot) readEarly(root string) {
	st := s.files[root]
	low := strings.ToLower(string(st.data))
	if !st.exists || !slices.ContainsFunc(mayHide, func(w string) bool { return strings.Contains(low, w) }) || s.lookGit() == "" {
		return
	}
	entries, err := gitconfig.List(context.Background(), s.git, root)
	if err != nil {
		s.badRoots[root] = true
		return
	}
	s.programs[root] = gitconfig.Programs(entries)
	home, _ := os.UserHomeDir()
	for _, inc := range gitconfig.Includes(entries, home) {
		s.addExtra(inc)
	}
	for _, e := range entries {
		if strings.EqualFold(e.Key, "core.hookspath") && e.Value != "" {
			dir := e.Value
			if strings.HasPrefix(dir, "~/") && home != "" {
				dir = filepath.Join(home, dir[2:])
			} else if !filepath.IsAbs(dir) {
				// git runs hooks from the top of the work tree.
				dir = filepath.Join(s.workdir, dir)
			}
			s.addHookDir(dir)
		}
	}
}

// restore compares the guarded paths now with the snapshot taken before
// the command, puts back every change that could run code, and returns
// what it restored (relative to the workspace where inside it).
func (s *gitSnapshot) restore(workdir string) []string {
	dirs, primary := s.dirs, s.primary
	dot := statPath(s.dotGit)
	if !s.files[s.dotGit].exists && dot.exists && dot.mode.IsDir() {
		// A .git folder the command created is guarded like any other;
		// a gitfile it created is removed below, never followed.
		dirs = []string{s.dotGit}
		primary = dirs
	}
	// Submodules the command checked out or registered are compared
	// with nothing: what they hold that runs programs is new.
	subs, pointers := submoduleDirs(workdir, primary, s.links)
	for _, d := range subs {
		if !slices.Contains(dirs, d) {
			dirs = append(slices.Clip(dirs), d)
		}
	}
	after := collectGit(workdir, dot, dirs, s.hookDirs, append(slices.Clip(s.extra), append(pointers, s.discovery...)...))
	for p := range s.files {
		after.record(p)
	}
	paths := make([]string, 0, len(after.files))
	for p := range after.files {
		paths = append(paths, p)
	}
	// A folder sorts before what it holds.
	slices.Sort(paths)
	var fixed, gone []string
	for _, p := range paths {
		if slices.ContainsFunc(gone, func(g string) bool { return strings.HasPrefix(p, g+string(filepath.Separator)) }) {
			continue
		}
		old, now := s.files[p], after.files[p]
		// A folder that is still one, or a new one, is left: what it
		// holds is compared path by path.
		newParentRepo := !old.exists && now.exists && filepath.Base(p) == ".git" && p != s.dotGit
		if old.same(now) || (!newParentRepo && now.mode.IsDir() && (old.mode.IsDir() || !old.exists)) {
			continue
		}
		// A configuration file that became a link (to a file a later
		// command could change) is put back whatever it says now.
		if (s.roots[p] || after.roots[p]) && now.mode.IsRegular() && s.sameProgramsAs(p, old) {
			continue
		}
		// A HEAD that moved is ordinary work (checkout, commit); one
		// git cannot read makes the folder no repository, and git
		// then looks for one elsewhere (the workspace's top, a parent
		// folder), whose configuration nothing guards.
		switch {
		case p == filepath.Join(workdir, "HEAD"):
			// The workspace's top: a file of the project's own,
			// unless it now makes the top a repository.
			if !looksLikeRepo(workdir) {
				continue
			}
		case filepath.Base(p) == "HEAD" && (validHead(now) || !validHead(old)):
			continue
		}
		var msg string
		var did, missing bool
		if p == s.dotGit {
			msg, did, missing = replaceDotGit(p, old, now)
		} else {
			msg, did, missing = putBack(p, old, now)
		}
		if missing {
			gone = append(gone, p)
		}
		if did {
			fixed = append(fixed, s.show(p)+msg)
		}
	}
	return fixed
}

// replaceDotGit handles a changed .git. A folder replaced by a gitfile
// or link (which points git at a repository, and its configuration,
// elsewhere) loses the replacement; the folder is not rebuilt from the
// few files the snapshot holds. A folder the command removed stays
// removed: nothing runs from it.
func replaceDotGit(path string, old, now fileState) (msg string, did, gone bool) {
	if old.mode.IsDir() {
		if !now.exists {
			return "", false, true
		}
		if err := os.Remove(path); err != nil {
			return fmt.Sprintf(" (replaced by a file or link; could not remove it: %v)", err), true, true
		}
		return " (replaced by a file or link that points git elsewhere: removed)", true, true
	}
	return putBack(path, old, now)
}

// sameProgramsAs reports whether a configuration file that changed still
// makes git run exactly the programs it did before.
func (s *gitSnapshot) sameProgramsAs(root string, old fileState) bool {
	if s.lookGit() == "" || s.badRoots[root] {
		return false
	}
	before, ok := s.programs[root]
	if !ok && old.exists {
		if !old.kept {
			return false
		}
		var err error
		before, err = programsOf(s.git, old.data)
		if err != nil {
			return false
		}
	}
	entries, err := gitconfig.List(context.Background(), s.git, root)
	if err != nil {
		return false
	}
	return slices.Equal(before, gitconfig.Programs(entries))
}

// programsOf reads the program settings of a configuration file's saved
// bytes. Such a file includes nothing (see mayHide), so where the copy
// lies does not change what git reads.
func programsOf(git string, data []byte) ([]string, error) {
	f, err := os.CreateTemp("", "wisp-gitconfig-*")
	if err != nil {
		return nil, fmt.Errorf("save git config: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("save git config: %w", err)
	}
	entries, err := gitconfig.List(context.Background(), git, f.Name())
	if err != nil {
		return nil, err
	}
	return gitconfig.Programs(entries), nil
}

// putBack returns a path to its earlier state: did says something was
// done, gone that the path is now missing, so nothing beneath it is put
// back.
func putBack(path string, old, now fileState) (msg string, did, gone bool) {
	if now.exists {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Sprintf(" (could not restore: %v)", err), true, false
		}
	}
	switch {
	case !old.exists:
		return "", now.exists, true
	case old.mode.IsDir():
		if err := os.Mkdir(path, old.mode.Perm()); err != nil {
			return fmt.Sprintf(" (could not recreate the folder: %v)", err), true, true
		}
	case old.mode&fs.ModeSymlink != 0:
		if err := os.Symlink(old.link, path); err != nil {
			return fmt.Sprintf(" (removed; could not restore the link: %v)", err), true, true
		}
	case old.mode.IsRegular() && old.kept:
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			// Its folder is gone: nothing can run it.
			return "", now.exists, true
		}
		if err := os.WriteFile(path, old.data, old.mode.Perm()); err != nil {
			return fmt.Sprintf(" (removed; could not restore: %v)", err), true, true
		}
		_ = os.Chmod(path, old.mode.Perm())
	default:
		return " (removed: too large to restore)", now.exists, true
	}
	return "", true, false
}

// show names a path for the model and the audit.
func (s *gitSnapshot) show(path string) string {
	if rel, err := filepath.Rel(s.workdir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// validHead reports whether a HEAD file is one git reads: a symbolic ref
// or an object name.
func validHead(st fileState) bool {
	if !st.exists || !st.mode.IsRegular() || !st.kept {
		return false
	}
	h := strings.TrimSpace(string(st.data))
	if ref, ok := strings.CutPrefix(h, "ref:"); ok {
		return strings.HasPrefix(strings.TrimSpace(ref), "refs/")
	}
	if len(h) != 40 && len(h) != 64 {
		return false
	}
	return strings.Trim(h, "0123456789abcdef") == ""
}

// discoveryPaths are where git looks for a repository when the
// workspace's own .git is missing or unreadable: the workspace's top
// read as a bare repository (its HEAD) and a .git in every folder above
// it. A command that makes one makes git obey a configuration nothing
// guards, so what it creates there is removed. (Parents are writable
// only where the sandbox lets commands write: /tmp, build caches.)
func discoveryPaths(workdir string, writable []string) []string {
	paths := []string{filepath.Join(workdir, "HEAD")}
	for dir := filepath.Dir(workdir); ; dir = filepath.Dir(dir) {
		if writable == nil || slices.ContainsFunc(writable, func(w string) bool { return dir == w || strings.HasPrefix(dir, w+"/") }) {
			paths = append(paths, filepath.Join(dir, ".git"))
		}
		if dir == "/" || dir == "." || dir == filepath.Dir(dir) {
			return paths
		}
	}
}

// looksLikeRepo reports whether git would take dir itself for a (bare)
// repository: it holds objects/ and refs/ beside its HEAD.
func looksLikeRepo(dir string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}
