//go:build linux

package conceal

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Homes covers every home folder with an empty read-only tmpfs in the
// auto-run profile's mount namespace, and mounts back only what such a
// command needs from inside one: the workspace, the temp folder and the
// folders of PATH. A command nobody approved may read the workspace, not
// the rest of the home folder: dotfiles, REPL histories, ~/.m2 and
// ~/.gradle settings and the like hold credentials under names no list
// can foresee, and a symlink in the workspace (h -> ~) would reach them
// without the classifier seeing a home path. Covering the folder, rather
// than listing what is in it, also covers files created later.
//
// It must run before the credential locations are hidden (which then finds the secrets that remain
// visible, inside what was mounted back) and before Landlock, whose rules
// then name the mounted-back folders.
func Homes(workdir, tempDir string) error {
	keep := keptPaths(workdir, tempDir)
	for _, root := range append(homeRoots(), sharedRoots()...) {
		if err := hideHome(root, keep); err != nil {
			return fmt.Errorf("hide %s: %w", root, err)
		}
	}
	// The working directory still names the folder beneath the new
	// mounts; ".." from there would walk the uncovered tree.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("re-enter %s: %w", wd, err)
		}
	}
	return nil
}

// homeRoots lists the folders that hold home folders or are one, resolved
// and without one inside another.
func homeRoots() []string {
	cand := []string{os.Getenv("HOME"), "/root", "/home"}
	if u, err := user.Current(); err == nil {
		cand = append(cand, u.HomeDir)
	}
	var roots []string
	for _, c := range cand {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		r, err := filepath.EvalSymlinks(c)
		if err != nil || r == "/" {
			continue
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			continue
		}
		roots = append(roots, r)
	}
	slices.Sort(roots)
	var out []string
	for _, r := range slices.Compact(roots) {
		if len(out) > 0 && within(r, out[len(out)-1]) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// sharedRoots lists the folders, resolved, where other users' and other
// projects' files lie in plain sight: temporary folders (Kerberos ticket
// caches, other checkouts), the per-user runtime folders (container
// registry logins, keyrings' sockets) and site data. An auto-run command
// keeps only what keptPaths names inside them.
func sharedRoots() []string {
	var out []string
	for _, c := range []string{"/tmp", "/var/tmp", "/run/user", "/srv", "/mnt", "/media"} {
		r, err := filepath.EvalSymlinks(c)
		if err != nil || r == "/" {
			continue
		}
		if fi, err := os.Stat(r); err == nil && fi.IsDir() && !slices.ContainsFunc(out, func(o string) bool { return within(r, o) || within(o, r) }) {
			out = append(out, r)
		}
	}
	return out
}

// keptPaths lists the folders an auto-run command keeps, resolved.
func keptPaths(workdir, tempDir string) []string {
	tmp := tempDir
	if tmp == "" {
		tmp = os.Getenv("TMPDIR")
	}
	cand := []string{workdir, tmp}
	if wd, err := os.Getwd(); err == nil {
		cand = append(cand, wd)
	}
	var out []string
	for _, c := range cand {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		if r, err := filepath.EvalSymlinks(c); err == nil {
			out = append(out, r)
		}
	}
	// A folder of PATH comes back where it lies inside a covered root,
	// but never uncovers one: PATH=/:… or PATH=/home would otherwise
	// leave every home folder in view.
	roots := append(homeRoots(), sharedRoots()...)
	for _, c := range filepath.SplitList(os.Getenv("PATH")) {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		r, err := filepath.EvalSymlinks(c)
		if err == nil && !slices.ContainsFunc(roots, func(root string) bool { return within(root, r) }) {
			out = append(out, r)
		}
	}
	return out
}

// hideHome covers root and mounts back the kept folders inside it. A
// kept folder that is root itself, or holds it, leaves root as it is:
// the workspace is then the home folder, and the secret list still hides
// what it names.
func hideHome(root string, keep []string) error {
	var inside []string
	for _, k := range keep {
		if within(root, k) {
			return nil
		}
		if within(k, root) {
			inside = append(inside, k)
		}
	}
	// A folder inside another kept one comes back with it.
	var top []string
	for _, k := range inside {
		nested := slices.ContainsFunc(inside, func(o string) bool { return o != k && within(k, o) })
		if !nested && !slices.Contains(top, k) {
			top = append(top, k)
		}
	}
	inside = top
	// Hold each kept folder open: once root is covered its path leads
	// into the empty tmpfs.
	fds := make([]int, 0, len(inside))
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, k := range inside {
		fd, err := unix.Open(k, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", k, err)
		}
		fds = append(fds, fd)
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV
	if err := unix.Mount("tmpfs", root, "tmpfs", flags, "size=64k,mode=0755"); err != nil {
		return err
	}
	for i, k := range inside {
		if err := os.MkdirAll(k, 0o755); err != nil {
			return err
		}
		src := fmt.Sprintf("/proc/self/fd/%d", fds[i])
		if err := unix.Mount(src, k, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("mount back %s: %w", k, err)
		}
	}
	return unix.Mount("", root, "", unix.MS_REMOUNT|unix.MS_RDONLY|flags, "")
}

// within reports whether p is root or lies beneath it (both clean).
func within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || strings.HasPrefix(p, root+"/")
}
