package filespace

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wisp-agent/wisp/internal/workspace"
)

// The Walker lists a workspace subtree for grep and find. It skips .git
// folders, entries ignored by .gitignore files (nested ones included, plus
// .git/info/exclude), protected paths, and never follows symlinks while
// descending (as grep -r). Each folder is opened relative to its parent's
// handle, one name at a time without following symlinks, so a folder
// swapped for a symlink mid-walk cannot lead it out of the workspace.
//
// Work is a LIFO stack of tasks (folders, and files when a file callback
// is set) shared by the workers; a folder's handle stays open while tasks
// that need it are pending and closes when the last one is done. LIFO
// keeps that number near the depth of the tree rather than its width.

// dirHandle is an open folder whose entries are opened relative to it
// (walk_unix.go, walk_other.go).
type dirHandle interface {
	list() ([]fs.DirEntry, error)
	OpenDir(name string) (dirHandle, error)
	// readFile reads a regular file whole into *buf, reusing it.
	ReadFile(name string, buf *[]byte, max int64) ([]byte, error)
	close() error
}

// ignoreMaxBytes bounds the ignore files the Walker reads.
const ignoreMaxBytes = 1 << 20

var (
	ErrTooBig     = errors.New("file too big")
	ErrNotRegular = errors.New("not a regular file")
	// ErrSwapped is what an open reports when it meets a symlink on a
	// path that had none when it was resolved: something replaced part
	// of the path since, and the link is not followed.
	ErrSwapped = errors.New("part of the path was replaced by a symlink after it was checked; not followed")
)

// walkDir is a folder being walked.
type walkDir struct {
	h    dirHandle
	rel  string // relative to the workspace root, "" for the root
	ign  *workspace.Ignore
	refs atomic.Int32
}

func (d *walkDir) release() {
	if d.refs.Add(-1) == 0 {
		d.h.close()
	}
}

// Entry is one entry found in a folder.
type Entry struct {
	dir  *walkDir
	Name string
	Rel  string      // relative to the workspace root
	Type fs.FileMode // type bits only
}

// ReadFile reads the regular file e whole into *buf (grown as needed and
// kept for the next call), opened relative to its folder's handle. Files
// over max bytes give ErrTooBig; anything but a regular file gives
// ErrNotRegular.
func (e Entry) ReadFile(buf *[]byte, max int64) ([]byte, error) {
	return e.dir.h.ReadFile(e.Name, buf, max)
}

type walkTask struct {
	parent *walkDir  // holds the entry; nil for the start folder
	start  dirHandle // the start folder, already open
	ign    *workspace.Ignore
	name   string
	rel    string
	file   bool
}

func (t walkTask) drop() {
	if t.parent != nil {
		t.parent.release()
	} else if t.start != nil {
		t.start.close()
	}
}

// Walker walks a workspace subtree for grep and find (see above); set its
// fields, then call Walk once.
type Walker struct {
	Space   *Space
	Workers int
	// OnEntry, when set, sees every entry that is not skipped, in name
	// order within a folder; returning false keeps the walk out of a folder.
	OnEntry func(e Entry) bool
	// OnFile, when set, is run as a task of its own for each regular file,
	// so files are spread over the workers. worker is 0..Workers-1.
	OnFile func(e Entry, worker int)

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []walkTask
	busy    int // tasks being run
	waiting int // workers waiting for a task
	stopped bool
	// Unreadable counts folders that could not be listed.
	Unreadable atomic.Int64
}

// Halt stops the walk early: no new task starts.
func (w *Walker) Halt() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cond.Broadcast()
}

// Walk lists the folder start (relative to the workspace root, "." for
// the root) and everything below it, until done, halted or ctx is over.
func (w *Walker) Walk(ctx context.Context, start string) error {
	w.cond = sync.NewCond(&w.mu)
	if w.Workers < 1 {
		w.Workers = 1
	}
	start = strings.Trim(path.Clean(start), "/")
	if start == "." {
		start = ""
	}
	h, err := w.Space.openWalkDir(DisplayPath(start))
	if err != nil {
		return err
	}
	w.stack = append(w.stack, walkTask{start: h, rel: start, ign: w.ancestorIgnores(start)})
	if w.Workers == 1 {
		w.work(ctx, 0)
	} else {
		var wg sync.WaitGroup
		for i := range w.Workers {
			wg.Go(func() { w.work(ctx, i) })
		}
		wg.Wait()
	}
	for _, t := range w.stack {
		t.drop()
	}
	w.stack = nil
	return nil
}

// ancestorIgnores loads .git/info/exclude and the .gitignore files of the
// folders above start (start's own is read when it is listed).
func (w *Walker) ancestorIgnores(start string) *workspace.Ignore {
	var ign *workspace.Ignore
	if data, err := w.Space.ReadFile(".git/info/exclude", ignoreMaxBytes); err == nil {
		ign = ign.Add("", data)
	}
	if start == "" {
		return ign
	}
	dir := ""
	for seg := range strings.SplitSeq(start, "/") {
		if data, err := w.Space.ReadFile(JoinRel(dir, ".gitignore"), ignoreMaxBytes); err == nil {
			ign = ign.Add(dir, data)
		}
		dir = JoinRel(dir, seg)
	}
	return ign
}

func (w *Walker) work(ctx context.Context, id int) {
	for {
		w.mu.Lock()
		for len(w.stack) == 0 && w.busy > 0 && !w.stopped {
			w.waiting++
			w.cond.Wait()
			w.waiting--
		}
		if w.stopped || len(w.stack) == 0 {
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		t := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		w.busy++
		w.mu.Unlock()

		switch {
		case ctx.Err() != nil:
			w.Halt()
			t.drop()
		case t.file:
			w.OnFile(Entry{dir: t.parent, Name: t.name, Rel: t.rel}, id)
			t.drop()
		default:
			w.listDir(t)
		}

		w.mu.Lock()
		w.busy--
		wake := w.busy == 0 && len(w.stack) == 0 && w.waiting > 0
		w.mu.Unlock()
		if wake {
			w.cond.Broadcast()
		}
	}
}

func (w *Walker) listDir(t walkTask) {
	h := t.start
	if h == nil {
		var err error
		h, err = t.parent.h.OpenDir(t.name)
		t.parent.release()
		if err != nil {
			w.Unreadable.Add(1)
			return
		}
	}
	d := &walkDir{h: h, rel: t.rel, ign: t.ign}
	d.refs.Store(1)
	defer d.release()

	entries, err := h.list()
	if err != nil && len(entries) == 0 {
		w.Unreadable.Add(1)
		return
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			var buf []byte
			if data, err := h.ReadFile(".gitignore", &buf, ignoreMaxBytes); err == nil {
				d.ign = d.ign.Add(t.rel, data)
			}
			break
		}
	}
	var tasks []walkTask
	for _, e := range entries {
		name, typ := e.Name(), e.Type()
		if name == ".git" {
			continue
		}
		rel := JoinRel(t.rel, name)
		isDir := typ.IsDir()
		if d.ign.Match(rel, isDir) || w.Space.Protected(rel) {
			continue
		}
		descend := true
		if w.OnEntry != nil {
			descend = w.OnEntry(Entry{dir: d, Name: name, Rel: rel, Type: typ})
		}
		switch {
		case isDir && descend:
			d.refs.Add(1)
			tasks = append(tasks, walkTask{parent: d, ign: d.ign, name: name, rel: rel})
		case typ.IsRegular() && w.OnFile != nil:
			d.refs.Add(1)
			tasks = append(tasks, walkTask{parent: d, name: name, rel: rel, file: true})
		}
	}
	if len(tasks) == 0 {
		return
	}
	slices.Reverse(tasks) // the stack pops them in name order
	w.mu.Lock()
	w.stack = append(w.stack, tasks...)
	wake := w.waiting > 0
	w.mu.Unlock()
	if wake {
		w.cond.Broadcast()
	}
}
