package gate

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/gitconfig"
	"github.com/wisp-agent/wisp/internal/gitindex"
)

// A submodule's repository is guarded like the workspace's own: `git
// status` in the workspace enters every submodule the index records (a
// gitlink) and obeys its configuration, so a core.fsmonitor planted
// there would run at the person's next status. The gitlinks come from
// the index file itself (package gitindex), never from running git on
// the repository being guarded.

const (
	// indexMax bounds the index read for gitlinks; a larger one is not
	// searched (tens of MB means hundreds of thousands of files).
	indexMax = 64 << 20
	// submoduleMax bounds the submodule repositories guarded, nested
	// ones included, and submoduleDepth how deep nesting is followed.
	submoduleMax   = 4096
	submoduleDepth = 16
)

// gitlinkCache keeps an index's gitlinks while the file is unchanged, so
// a command that touches no index reads none: the gate's cost for a
// safe command stays in microseconds.
type gitlinkCache struct {
	mu      sync.Mutex
	entries map[string]gitlinkEntry // by index path
}

type gitlinkEntry struct {
	size  int64
	mtime time.Time
	ino   uint64
	ctime int64
	links []string
	split bool // the index names a shared index (split index)
}

// gitlinks returns the gitlink paths the index file at path records.
func (c *gitlinkCache) gitlinks(path string) []string {
	links, _ := c.read(path)
	return links
}

// read returns the gitlinks of the index file at path, and whether it
// may be split (holds a "link" extension naming a shared index).
func (c *gitlinkCache) read(path string) ([]string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > indexMax {
		return nil, false
	}
	key := gitlinkEntry{size: fi.Size(), mtime: fi.ModTime()}
	key.ino, key.ctime = identity(fi)
	if c != nil {
		c.mu.Lock()
		e, ok := c.entries[path]
		c.mu.Unlock()
		if ok && e.size == key.size && e.mtime.Equal(key.mtime) && e.ino == key.ino && e.ctime == key.ctime {
			return e.links, e.split
		}
	}
	data, err := gitconfig.ReadRegular(path, indexMax)
	if err != nil {
		return nil, false
	}
	key.split = bytes.Contains(data, []byte("link"))
	var links []string
	// A gitlink's mode, 0160000, is these four bytes: an index without
	// them holds none, and most indexes are passed over here.
	if bytes.Contains(data, []byte{0, 0, 0xe0, 0}) {
		links, _ = gitindex.Gitlinks(data)
	}
	if c != nil {
		key.links = links
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[string]gitlinkEntry{}
		}
		c.entries[path] = key
		c.mu.Unlock()
	}
	return links, key.split
}

// submoduleDirs returns the git folders of the submodules checked out in
// workdir that the indexes of dirs record, nested ones included, that
// are not in dirs already. A submodule whose .git points (gitfile or
// link) at a folder outside the workspace is not followed there: wisp
// changes nothing outside the workspace. Its .git is returned in
// pointers instead, so that a new or changed one is removed and git
// stops entering it.
func submoduleDirs(workdir string, dirs []string, cache *gitlinkCache) (found, pointers []string) {
	type level struct {
		top  string
		dirs []string
	}
	queue := []level{{workdir, dirs}}
	for depth := 0; depth < submoduleDepth && len(queue) > 0; depth++ {
		var next []level
		for _, l := range queue {
			for _, d := range l.dirs {
				for _, link := range indexGitlinks(d, cache) {
					tree := filepath.Join(l.top, filepath.FromSlash(link))
					if !insideDir(tree, workdir) || len(found)+len(pointers) >= submoduleMax {
						continue
					}
					dot := filepath.Join(tree, ".git")
					var sub []string
					for _, g := range gitDirs(tree, statPath(dot)) {
						switch {
						case !insideDir(g, workdir):
							if !slices.Contains(pointers, dot) {
								pointers = append(pointers, dot)
							}
						case !slices.Contains(dirs, g) && !slices.Contains(found, g):
							found = append(found, g)
							sub = append(sub, g)
						}
					}
					if len(sub) > 0 {
						next = append(next, level{tree, sub})
					}
				}
			}
		}
		queue = next
	}
	return found, pointers
}

// indexGitlinks returns the gitlinks of a git folder's index, and of
// its shared index files too: with a split index (git update-index
// --split-index) most entries, gitlinks among them, live in
// sharedindex.<hash>, and index holds only the changes.
func indexGitlinks(gitDir string, cache *gitlinkCache) []string {
	main, split := cache.read(filepath.Join(gitDir, "index"))
	links := slices.Clone(main)
	if !split {
		// Listing the git folder for shared indexes on every command
		// costs more than the rest of this together.
		return links
	}
	shared, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	for _, p := range shared {
		for _, l := range cache.gitlinks(p) {
			if !slices.Contains(links, l) {
				links = append(links, l)
			}
		}
	}
	return links
}

func insideDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
