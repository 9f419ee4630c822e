//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// cgroup is a command's own cgroup, beneath the helper's, with pids.max
// set. It is made where the helper may make one: cgroup v2 where the
// helper's cgroup is delegated to it and has the pids controller enabled
// for its children, or the v1 pids hierarchy where it may write there
// (root). The helper moves itself in before it starts init and the shell,
// so that both are born inside and nothing escapes the limit, and moves
// itself back out once they run.
type cgroup struct {
	dir    string // the command's cgroup
	parent string // the helper's own cgroup, to move back to
}

// cgroupPrefix names the command cgroups. The rest of the name is the
// helper's pid and start time, unique even between PID namespaces.
const cgroupPrefix = "wisp-"

// staleAfter is how old a command cgroup must be before another helper
// may remove it as a leftover: a younger one may be a sibling's that is
// being set up, and an older one that still holds processes cannot be
// removed anyway.
const staleAfter = 10 * time.Second

// newCgroup makes the command's cgroup, or returns nil when none can be
// made here.
func newCgroup(limit int) *cgroup {
	for _, parent := range ownCgroups() {
		if cg := makeCgroup(parent, limit); cg != nil {
			return cg
		}
	}
	return nil
}

func makeCgroup(parent string, limit int) *cgroup {
	sweep(parent)
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), time.Now().UnixNano())
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	cg := &cgroup{dir: dir, parent: parent}
	if writeCgroup(filepath.Join(dir, "pids.max"), strconv.Itoa(limit)) != nil ||
		writeCgroup(filepath.Join(dir, "cgroup.procs"), "0") != nil {
		_ = os.Remove(dir)
		return nil
	}
	return cg
}

// leave moves the helper back to its own cgroup.
func (c *cgroup) leave() {
	_ = writeCgroup(filepath.Join(c.parent, "cgroup.procs"), "0")
}

// remove leaves the cgroup and removes it, with whatever cgroups a
// helper nested inside the command left (it died with the command before
// it could clean up), once their processes are gone.
func (c *cgroup) remove() {
	c.leave()
	for range 100 {
		err := removeTree(c.dir)
		if err == nil || !errors.Is(err, unix.EBUSY) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// removeTree removes an empty cgroup and its empty descendants, deepest
// first. A cgroup that still holds a process is never removed (EBUSY).
func removeTree(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return os.Remove(dir)
}

// sweep removes the cgroups that helpers killed outright left behind.
func sweep(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cgroupPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			_ = removeTree(filepath.Join(parent, e.Name()))
		}
	}
}

// ownCgroups lists the folders of the helper's own cgroups that can carry
// a pids limit: the v2 cgroup when its children get the pids controller,
// then the v1 pids cgroup.
func ownCgroups() []string {
	paths := map[string]string{} // "v2" or "pids" → path in the hierarchy
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			paths["v2"] = parts[2]
		case hasWord(parts[1], "pids", ","):
			paths["pids"] = parts[2]
		}
	}
	var out []string
	v2mnt, v1mnt := cgroupMounts()
	if p, ok := paths["v2"]; ok && v2mnt != "" {
		dir := filepath.Join(v2mnt, p)
		if b, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); err == nil && hasWord(string(b), "pids", " ") {
			out = append(out, dir)
		}
	}
	if p, ok := paths["pids"]; ok && v1mnt != "" {
		out = append(out, filepath.Join(v1mnt, p))
	}
	return out
}

// cgroupMounts finds where the v2 hierarchy and the v1 pids hierarchy are
// mounted.
func cgroupMounts() (v2, v1pids string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch {
		case tail[0] == "cgroup2" && v2 == "":
			v2 = fields[4]
		case tail[0] == "cgroup" && hasWord(tail[2], "pids", ",") && v1pids == "":
			v1pids = fields[4]
		}
	}
	return v2, v1pids
}

func hasWord(list, word, sep string) bool {
	for w := range strings.SplitSeq(strings.TrimSpace(list), sep) {
		if w == word {
			return true
		}
	}
	return false
}

func writeCgroup(path, text string) error {
	return os.WriteFile(path, []byte(text), 0)
}
