package shell

import (
	"path"

	"github.com/wisp-agent/wisp/internal/shell/secretpath"
)

// secretLocation reports whether the clean absolute path p (which may
// hold glob characters) is, lies below, or as a glob may match a
// credential location: wisp's own home, or one of the shared list
// (package secretpath matches those).
func (c *classifier) secretLocation(p string) (string, bool) {
	if w := path.Clean(c.opts.WispHome); c.opts.WispHome != "" && path.IsAbs(w) && within(p, w) {
		return "wisp's own configuration and audit log", true
	}
	return secretpath.Location(p, c.home)
}

// outsideHome says why reading p is reading the user's private files: p
// lies in a home folder (the user's, or any other) outside the
// workspace, or holds home folders. It returns "" otherwise.
func (c *classifier) outsideHome(p string) string {
	if within(p, c.root) {
		return ""
	}
	homes := []string{secretpath.UnknownHome, "/home", "/root", "/Users"}
	if c.home != "" {
		homes = append(homes, c.home)
	}
	for _, h := range homes {
		if within(p, h) {
			return "reads outside the workspace, in a home folder: "
		}
	}
	for _, h := range homes {
		if within(h, p) {
			return "reads a folder that holds home folders: "
		}
	}
	if c.opts.TempDir != "" && within(p, path.Clean(c.opts.TempDir)) {
		return ""
	}
	for _, s := range systemRoots {
		if within(p, s) {
			return ""
		}
	}
	return "reads outside the workspace, where other projects' and other users' files lie: "
}

// systemRoots are the system's own folders, which a command may read
// unasked (less the secrets the list names). Anywhere else outside the
// workspace (a sibling project through .., /opt, /srv, /var, /tmp
// beyond the commands' own folder) other projects, other users' files,
// services' data and credentials lie: reading there asks, as reading a
// home folder does.
var systemRoots = []string{"/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sys", "/dev", "/nix", "/snap", "/boot"}
