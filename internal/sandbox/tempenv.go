package sandbox

import (
	"path/filepath"
	"strings"
)

// tempVars are the variables programs read their temporary folder from:
// TMPDIR (POSIX, Go's os.TempDir, mktemp, Python), GOTMPDIR (where the go
// command puts its work folders; a user's own value may point somewhere
// the sandbox does not grant), and TMP and TEMP (Python's tempfile and
// programs ported from Windows look at them before /tmp).
var tempVars = [...]string{"TMPDIR", "GOTMPDIR", "TMP", "TEMP"}

// goCacheDir is the build cache, beneath the temp folder, that a command
// gets when the one Go would use cannot be written in the sandbox.
const goCacheDir = "go-build"

// TempEnv returns the variables that send a command's temporary files to
// cfg.TempDir ("NAME=value" entries, nil when cfg.TempDir is empty): the
// tempVars, and GOCACHE when the sandbox is on and the build cache go
// would use, as env (the command's environment) names it, is neither
// beneath a writable root nor creatable there. Without that "go build"
// and "go test" fail at once in a fresh HOME, where ~/.cache/go-build
// does not exist yet and the sandbox creates no cache folder; a cache of
// the session's own costs a first build of the standard library, a
// failing one costs every build.
func TempEnv(cfg Config, env []string) []string {
	if cfg.TempDir == "" {
		return nil
	}
	tmp := absClean(cfg.TempDir)
	out := make([]string, 0, len(tempVars)+1)
	for _, v := range tempVars {
		out = append(out, v+"="+tmp)
	}
	if cfg.Enabled && !goCacheWritable(cfg, env) {
		out = append(out, "GOCACHE="+filepath.Join(tmp, goCacheDir))
	}
	return out
}

// goCacheWritable reports whether the build cache go would use with env
// may be written (or created) under cfg's roots. GOCACHE=off, or a value
// go rejects (relative), is left to go to report.
func goCacheWritable(cfg Config, env []string) bool {
	dir := lookup(env, "GOCACHE")
	switch {
	case dir == "off" || dir != "" && !filepath.IsAbs(dir):
		return true
	case dir == "":
		cache := lookup(env, "XDG_CACHE_HOME")
		if !filepath.IsAbs(cache) {
			home := lookup(env, "HOME")
			if !filepath.IsAbs(home) {
				return true // go has no default cache either; it says so
			}
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, goCacheDir)
	}
	roots, err := WritableRoots(cfg)
	if err != nil {
		return false
	}
	return roots.allows(resolve(dir))
}

// withEnv returns env with each "NAME=value" of set in place of any
// earlier value of NAME, so that the command sees one value only.
func withEnv(env, set []string) []string {
	if len(set) == 0 {
		return env
	}
	names := make(map[string]bool, len(set))
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !names[name] {
			out = append(out, kv)
		}
	}
	return append(out, set...)
}

// lookup is os.Getenv over an environment list; the last value wins, as
// in os/exec.
func lookup(env []string, name string) string {
	val := ""
	for _, kv := range env {
		if n, v, ok := strings.Cut(kv, "="); ok && n == name {
			val = v
		}
	}
	return val
}
