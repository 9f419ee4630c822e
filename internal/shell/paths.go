package shell

import (
	"path"
	"strings"

	"github.com/wisp-agent/wisp/internal/shell/judge"
	"github.com/wisp-agent/wisp/internal/shell/secretpath"
)

// virtualRoot stands for the workspace when none was given, or when the
// given one is too broad to protect anything ("/", a system directory, the
// home directory itself). Relative paths land inside it; absolute paths
// never do.
const virtualRoot = "/\x00workspace"

// systemTop are top-level directories that are never a workspace.
var systemTop = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true,
	"/lib": true, "/lib32": true, "/lib64": true, "/libx32": true, "/opt": true,
	"/proc": true, "/root": true, "/run": true, "/sbin": true, "/srv": true, "/sys": true,
	"/tmp": true, "/usr": true, "/var": true, "/snap": true, "/mnt": true, "/media": true,
	"/Users": true, "/System": true, "/Library": true, "/Applications": true, "/private": true,
	"/Volumes": true,
}

// sinks are paths a redirection can name without writing anything.
// /dev/tty is not one: it is the person's terminal itself, past the
// filter wisp puts on what commands print (escape sequences that set the
// clipboard or redraw the approval question), and reading it takes what
// the person types.
var sinks = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/stdin": true,
	"/dev/fd/0": true, "/dev/fd/1": true, "/dev/fd/2": true,
	"/proc/self/fd/0": true, "/proc/self/fd/1": true, "/proc/self/fd/2": true,
}

// setupRoots fills in the workspace, home and temporary directories.
func (c *classifier) setupRoots() {
	c.home = ""
	if h := path.Clean(c.opts.Home); path.IsAbs(h) && h != "/" {
		c.home = h
	}
	c.root = virtualRoot
	if w := path.Clean(c.opts.Workdir); path.IsAbs(w) && !systemTop[w] && w != c.home {
		c.root = w
	}
	c.temps = c.temps[:0]
	c.temps = append(c.temps, "/tmp", "/var/tmp")
	if t := path.Clean(c.opts.TempDir); path.IsAbs(t) && !systemTop[t] && t != c.home {
		c.temps = append(c.temps, t)
	}
}

// resolve turns a path argument into a clean absolute path. ok is false
// when the path depends on something only known at run time.
func (c *classifier) resolve(f *frame, a judge.Arg) (string, bool) {
	if !a.Known || a.Val == "" {
		return "", false
	}
	p := a.Val
	switch {
	case strings.HasPrefix(p, "~"):
		rest, user := p[1:], ""
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			user, rest = rest[:i], rest[i:]
		} else {
			user, rest = rest, ""
		}
		if user != "" || c.home == "" {
			// Another user's home, or ours unknown: somewhere outside.
			return path.Clean("/\x00home/" + user + rest), true
		}
		return path.Clean(c.home + rest), true
	case path.IsAbs(p):
		return secretpath.Clean(p)
	}
	if f.cwd == "" {
		return "", false
	}
	return secretpath.Clean(f.cwd + "/" + p)
}

// where tells where a path argument lands and gives the path to show.
func (c *classifier) where(f *frame, a judge.Arg) (judge.Place, string) {
	if a.Known && sinks[a.Val] {
		return judge.PlaceSink, a.Val
	}
	p, ok := c.resolve(f, a)
	if !ok {
		return judge.PlaceUnknown, a.Text
	}
	shown := c.show(p)
	switch {
	case sinks[p]:
		return judge.PlaceSink, shown
	case strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/"):
		return judge.PlaceNetwork, shown
	case strings.HasPrefix(p, "/dev/"):
		return judge.PlaceDevice, shown
	case within(p, c.root):
		return judge.PlaceWorkspace, shown
	}
	for _, t := range c.temps {
		if within(p, t) {
			return judge.PlaceTemp, shown
		}
	}
	return judge.PlaceOutside, shown
}

// show renders a resolved path for a reason: workspace paths relative,
// home paths with "~".
func (c *classifier) show(p string) string {
	switch {
	case p == c.root:
		return "."
	case strings.HasPrefix(p, c.root+"/"):
		return p[len(c.root)+1:]
	case c.home != "" && p == c.home:
		return "~"
	case c.home != "" && strings.HasPrefix(p, c.home+"/"):
		return "~" + p[len(c.home):]
	case strings.HasPrefix(p, "/\x00home/"):
		return "~" + p[len("/\x00home/"):]
	case strings.HasPrefix(p, "/\x00"):
		return "(outside the workspace)"
	}
	return p
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/") || dir == "/"
}

// wide reports whether deleting or changing p recursively would take out
// far more than a workspace file: the root, a system directory, the home
// directory, the workspace itself or one of its ancestors, a temporary
// directory, or "everything" in one of those.
func (c *classifier) wide(p string) bool {
	if b := path.Base(p); strings.Trim(b, "*.?") == "" && strings.ContainsAny(b, "*?") {
		p = path.Dir(p)
	}
	if systemTop[p] || p == c.root || within(c.root, p) || p == "/\x00home" || strings.HasPrefix(p, "/\x00home/") && strings.Count(p, "/") <= 2 {
		return true
	}
	if c.home != "" && (p == c.home || within(c.home, p)) {
		return true
	}
	for _, t := range c.temps {
		if p == t {
			return true
		}
	}
	return strings.Count(p, "/") == 1 // any top-level directory
}

// secret reports whether a path names a credential file, the way the file
// tools' protected paths do: a location of the credential list, or a name
// that holds credentials wherever it is (package secretpath knows both).
func (c *classifier) secret(p string) bool {
	if _, ok := c.secretLocation(p); ok {
		return true
	}
	return secretpath.Named(p)
}
