package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// devices are the files a command may write besides its roots. They are
// granted one by one (never /dev as a whole, which holds the disks).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// ptsDir holds the pseudo-terminals a command may open (script, expect).
const ptsDir = "/dev/pts"

// Roots is what a Config makes writable, as the helper enforces it.
type Roots struct {
	// Writable are the resolved roots a command may write beneath, in
	// the order they were considered. The devices are not listed.
	Writable []string
	// Refused are roots that were asked for but left read-only.
	Refused []RefusedRoot
	// WispHome is the resolved wisp home, never writable but for Shared.
	WispHome string
	// Shared is the wisp home's shared volume (SharedDirName) when an
	// approved command may write it, else "".
	Shared string
}

// SharedDirName is the one folder of the wisp home an approved command
// may write: the wisps' shared volume, which holds data handed between
// steps and nothing wisp runs or trusts.
const SharedDirName = "shared"

// RefusedRoot is a root left read-only, and why.
type RefusedRoot struct {
	Path   string // as resolved
	Reason string // e.g. "contains the wisp home /home/u/.wisp"
}

// WritableRoots works out, from cfg and the environment, which roots a
// sandboxed command may write beneath. It fails only when the wisp home
// cannot be located, since then it could not be protected.
func WritableRoots(cfg Config) (Roots, error) {
	home := os.Getenv("HOME")
	wispHome := cfg.WispHome
	if wispHome == "" {
		wispHome = os.Getenv("WISP_HOME")
	}
	if wispHome == "" && home != "" {
		wispHome = filepath.Join(home, ".wisp")
	}
	if wispHome == "" {
		return Roots{}, errors.New("locate the wisp home: neither WISP_HOME nor HOME is set")
	}
	// Both spellings are guarded: a root may contain the link or its target.
	guarded := []string{absClean(wispHome), resolve(wispHome)}
	var homes []string
	if home != "" {
		homes = []string{absClean(home), resolve(home)}
	}

	r := Roots{WispHome: resolve(wispHome)}
	seen := map[string]bool{}
	for _, c := range candidates(cfg, home) {
		if c == "" {
			continue
		}
		if !filepath.IsAbs(c) && cfg.Workdir != "" {
			c = filepath.Join(cfg.Workdir, c)
		}
		p, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue // missing roots cannot be granted, and need not be
		}
		p = absClean(p)
		if seen[p] {
			continue
		}
		seen[p] = true
		if why := refusal(p, guarded, homes); why != "" {
			r.Refused = append(r.Refused, RefusedRoot{Path: p, Reason: why})
			continue
		}
		r.Writable = append(r.Writable, p)
	}
	if !cfg.AutoRun {
		if p := sharedRoot(wispHome, r.WispHome); p != "" {
			r.Shared = p
			r.Writable = append(r.Writable, p)
		}
	}
	return r, nil
}

// sharedRoot is the wisp home's shared volume when it may be granted:
// a real folder (not a link) right beneath the wisp home, which resolves
// to the same place beneath the resolved home. Anything else ("" back)
// could point the grant at the wisp home or elsewhere.
func sharedRoot(wispHome, resolvedHome string) string {
	p := filepath.Join(absClean(wispHome), SharedDirName)
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || absClean(real) != filepath.Join(resolvedHome, SharedDirName) {
		return ""
	}
	return absClean(real)
}

// candidates lists the roots asked for, before resolution.
func candidates(cfg Config, home string) []string {
	tmp := cfg.TempDir
	if tmp == "" {
		tmp = os.Getenv("TMPDIR")
	}
	if cfg.AutoRun {
		// A line nobody approved was rated read-only, and the sandbox
		// holds it to that: only its own temporary folder is writable.
		// Files it could write in the workspace (.husky/, .envrc,
		// .github/workflows/, an editor's tasks) would run outside the
		// sandbox later.
		return []string{tmp}
	}
	c := []string{cfg.Workdir, tmp, "/tmp", "/dev/shm"}
	c = append(c, buildCaches(home)...)
	return append(c, cfg.WritablePaths...)
}

// buildCaches lists the caches the build tools write. Only these, never
// the whole user cache folder: other programs keep things there that run
// outside the sandbox later (pre-commit's hook environments, for one).
// A cache named by a relative path is not one the tool would use (go
// rejects them), so it is left out rather than joined to the workspace.
func buildCaches(home string) []string {
	var c []string
	add := func(p string) {
		if filepath.IsAbs(p) {
			c = append(c, p)
		}
	}
	user, err := os.UserCacheDir()
	if err != nil {
		user = "" // neither XDG_CACHE_HOME nor HOME: no user caches
	}
	if d := os.Getenv("GOCACHE"); d != "" {
		add(d)
	} else if user != "" {
		add(filepath.Join(user, "go-build"))
	}
	add(goModCache(home))
	if user != "" {
		for _, tool := range []string{"pip", "pnpm", "yarn"} {
			add(filepath.Join(user, tool))
		}
	}
	if npm := os.Getenv("npm_config_cache"); npm != "" {
		add(npm)
	} else if home != "" {
		add(filepath.Join(home, ".npm"))
	}
	cargo := os.Getenv("CARGO_HOME")
	if cargo == "" && home != "" {
		cargo = filepath.Join(home, ".cargo")
	}
	if cargo != "" {
		// Never $CARGO_HOME itself: bin and config.toml live there.
		add(filepath.Join(cargo, "registry"))
		add(filepath.Join(cargo, "git"))
	}
	return c
}

// goModCache finds the Go module cache the way the go command does, from
// the environment alone: running "go env" for every command would cost
// more than the command.
func goModCache(home string) string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	if list := filepath.SplitList(os.Getenv("GOPATH")); len(list) > 0 && list[0] != "" {
		return filepath.Join(list[0], "pkg", "mod")
	}
	if home != "" {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// refusal says why root p may not be writable, or "" if it may.
func refusal(p string, guarded, homes []string) string {
	for _, g := range guarded {
		if within(g, p) {
			return "contains the wisp home " + g
		}
		if within(p, g) {
			return "lies inside the wisp home " + g
		}
	}
	for _, h := range homes {
		if within(h, p) {
			return "contains the home folder " + h
		}
	}
	return ""
}

// allows reports whether a write to p (absolute, resolved) is granted.
func (r Roots) allows(p string) bool {
	if within(p, r.WispHome) {
		return r.Shared != "" && within(p, r.Shared)
	}
	for _, root := range r.Writable {
		if within(p, root) {
			return true
		}
	}
	for _, d := range devices {
		if p == d || resolve(d) == p {
			return true
		}
	}
	return within(p, ptsDir)
}

// within reports whether p is root or beneath it; both must be clean.
func within(p, root string) bool {
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || strings.HasPrefix(p, root+"/")
}

// absClean makes p absolute and clean without touching the file system
// beyond the working directory.
func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// resolve is filepath.EvalSymlinks for paths that may not exist yet: the
// longest existing prefix is resolved (a dangling link is followed by
// hand) and the rest appended, so that a file about to be created is
// judged by where it would really land.
func resolve(p string) string { return resolveFrom(absClean(p), 0) }

// maxLinks bounds link chains as the kernel does (ELOOP).
const maxLinks = 40

func resolveFrom(p string, links int) string {
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 && links < maxLinks {
			if target, err := os.Readlink(p); err == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(p), target)
				}
				return resolveFrom(filepath.Join(append([]string{target}, rest...)...), links+1)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// String renders the roots for a log line or a diagnostic.
func (r Roots) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "writable: %s", strings.Join(r.Writable, ", "))
	for _, f := range r.Refused {
		fmt.Fprintf(&b, "; refused %s (%s)", f.Path, f.Reason)
	}
	return b.String()
}
