package builtin

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// Helpers shared by the file tools (read, write, edit, grep, find, ls).
//
// Every file tool resolves the model's path with workspace.Guard.Resolve,
// which gives the clear refusal (outside the workspace, protected), and
// then does its I/O on the resolved path relative to a handle on the
// workspace root. Resolve returns a path with every symlink resolved, so
// the I/O never needs to follow one: on Linux each open refuses any
// symlink it meets (fileutil_linux.go), so a command running meanwhile
// that swaps a checked folder for a symlink (into .git, or out of the
// workspace) makes the call fail instead of redirecting it. Elsewhere an
// *os.Root keeps the I/O inside the workspace (fileutil_other.go).

// fileArgsError turns a JSON decoding failure into a message that names
// the argument and what was wrong with it.
func fileArgsError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Sprintf("invalid arguments: expected a JSON object, got %s", te.Value)
		}
		return fmt.Sprintf("invalid arguments: %s must be %s, got %s", field, jsonTypeName(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid arguments: malformed JSON at byte %d: %v", se.Offset, err)
	}
	return "invalid arguments: " + err.Error()
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return kind
}

// decodeFileArgs decodes tool arguments into v. Unknown fields are allowed;
// wrong types are not. The returned string is empty on success, else the
// message for the model.
func decodeFileArgs(raw json.RawMessage, v any) string {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fileArgsError(err)
	}
	return ""
}

// fileSpace is one call's view of the workspace: the guard, the resolved
// root, and a handle on that root for confined I/O.
type fileSpace struct {
	guard workspace.Guard
	real  string
	at    spaceRoot // per platform: fileutil_linux.go, fileutil_other.go
}

func openFileSpace(env *tool.Env) (*fileSpace, error) {
	if env == nil || env.Workdir == "" {
		return nil, errors.New("workspace root is not set")
	}
	real, err := workspace.RealRoot(env.Workdir)
	if err != nil {
		return nil, err
	}
	at, err := openSpaceRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", real, err)
	}
	return &fileSpace{guard: workspace.Guard{Root: real, Protected: env.Protected}, real: real, at: at}, nil
}

func (s *fileSpace) Close() error { return s.at.close() }

// resolve returns p relative to the workspace root, slash-separated ("."
// for the root itself). A refusal comes back as the model's message.
func (s *fileSpace) resolve(p string) (rel string, msg string) {
	abs, err := s.guard.Resolve(p)
	if err != nil {
		var pe *workspace.PathError
		if errors.As(err, &pe) {
			return "", pe.Error()
		}
		return "", err.Error()
	}
	r, err := filepath.Rel(s.real, abs)
	if err != nil {
		return "", err.Error()
	}
	return filepath.ToSlash(r), ""
}

// protected reports whether a walked entry must be left out.
func (s *fileSpace) protected(rel string) bool {
	return s.guard.Protected != nil && s.guard.Protected(filepath.Join(s.real, filepath.FromSlash(rel)))
}

// statMessage words a failed open or stat of the path the model gave.
func statMessage(p string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or folder: " + p
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: " + p
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", p, pe.Err)
	}
	return fmt.Sprintf("%s: %v", p, err)
}

// binarySample is how much of a file the binary check looks at, as git
// and most grep tools do.
const binarySample = 8 << 10

// binaryReason says why data (the start of a file) looks binary, or ""
// for text: a NUL byte, or bytes that are not UTF-8. A rune cut off by
// the end of the sample does not count.
func binaryReason(data []byte, whole bool) string {
	if len(data) > binarySample {
		data, whole = data[:binarySample], false
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "it contains NUL bytes"
	}
	if !utf8.Valid(data) {
		if !whole {
			// Drop a rune cut in half at the end of the sample.
			for i := 1; i < utf8.UTFMax && i <= len(data); i++ {
				if utf8.RuneStart(data[len(data)-i]) {
					if utf8.Valid(data[:len(data)-i]) {
						return ""
					}
					break
				}
			}
		}
		return "it is not valid UTF-8"
	}
	return ""
}

// cutRunes shortens s to at most n runes on a rune boundary.
func cutRunes(s []byte, n int) ([]byte, bool) {
	if len(s) <= n {
		return s, false
	}
	count := 0
	for i := range string(s) {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}

// countLines counts lines the way an editor shows them: a final line
// without a newline still counts.
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// tempName is the name of the temporary file that replaceFile writes
// next to base before renaming it over base.
func tempName(base string) (string, error) {
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return "", err
	}
	return "." + base + ".wisp-" + hex.EncodeToString(suffix[:]) + ".tmp", nil
}

// displayPath is how a tool shows a workspace-relative path to the model.
func displayPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// joinRel joins a workspace-relative folder and a name.
func joinRel(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// The walker lists a workspace subtree for grep and find. It skips .git
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
// (grep_unix.go, grep_other.go).
type dirHandle interface {
	list() ([]fs.DirEntry, error)
	openDir(name string) (dirHandle, error)
	// readFile reads a regular file whole into *buf, reusing it.
	readFile(name string, buf *[]byte, max int64) ([]byte, error)
	close() error
}

// ignoreMaxBytes bounds the ignore files the walker reads.
const ignoreMaxBytes = 1 << 20

var (
	errTooBig     = errors.New("file too big")
	errNotRegular = errors.New("not a regular file")
	// errSwapped is what an open reports when it meets a symlink on a
	// path that had none when it was resolved: something replaced part
	// of the path since, and the link is not followed.
	errSwapped = errors.New("part of the path was replaced by a symlink after it was checked; not followed")
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

// walkEntry is one entry found in a folder.
type walkEntry struct {
	dir  *walkDir
	name string
	rel  string      // relative to the workspace root
	typ  fs.FileMode // type bits only
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

type walker struct {
	space   *fileSpace
	workers int
	// entry, when set, sees every entry that is not skipped, in name order
	// within a folder; returning false keeps the walk out of a folder.
	entry func(e walkEntry) bool
	// file, when set, is run as a task of its own for each regular file,
	// so files are spread over the workers. worker is 0..workers-1.
	file func(e walkEntry, worker int)

	mu      sync.Mutex
	cond    *sync.Cond
	stack   []walkTask
	busy    int // tasks being run
	waiting int // workers waiting for a task
	stopped bool
	// unreadable counts folders that could not be listed.
	unreadable atomic.Int64
}

// halt stops the walk early: no new task starts.
func (w *walker) halt() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.cond.Broadcast()
}

// walk lists the folder start (relative to the workspace root, "." for
// the root) and everything below it, until done, halted or ctx is over.
func (w *walker) walk(ctx context.Context, start string) error {
	w.cond = sync.NewCond(&w.mu)
	if w.workers < 1 {
		w.workers = 1
	}
	start = strings.Trim(path.Clean(start), "/")
	if start == "." {
		start = ""
	}
	h, err := w.space.openWalkDir(displayPath(start))
	if err != nil {
		return err
	}
	w.stack = append(w.stack, walkTask{start: h, rel: start, ign: w.ancestorIgnores(start)})
	if w.workers == 1 {
		w.work(ctx, 0)
	} else {
		var wg sync.WaitGroup
		for i := range w.workers {
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
func (w *walker) ancestorIgnores(start string) *workspace.Ignore {
	var ign *workspace.Ignore
	if data, err := w.space.readFile(".git/info/exclude", ignoreMaxBytes); err == nil {
		ign = ign.Add("", data)
	}
	if start == "" {
		return ign
	}
	dir := ""
	for seg := range strings.SplitSeq(start, "/") {
		if data, err := w.space.readFile(joinRel(dir, ".gitignore"), ignoreMaxBytes); err == nil {
			ign = ign.Add(dir, data)
		}
		dir = joinRel(dir, seg)
	}
	return ign
}

func (w *walker) work(ctx context.Context, id int) {
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
			w.halt()
			t.drop()
		case t.file:
			w.file(walkEntry{dir: t.parent, name: t.name, rel: t.rel}, id)
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

func (w *walker) listDir(t walkTask) {
	h := t.start
	if h == nil {
		var err error
		h, err = t.parent.h.openDir(t.name)
		t.parent.release()
		if err != nil {
			w.unreadable.Add(1)
			return
		}
	}
	d := &walkDir{h: h, rel: t.rel, ign: t.ign}
	d.refs.Store(1)
	defer d.release()

	entries, err := h.list()
	if err != nil && len(entries) == 0 {
		w.unreadable.Add(1)
		return
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			var buf []byte
			if data, err := h.readFile(".gitignore", &buf, ignoreMaxBytes); err == nil {
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
		rel := joinRel(t.rel, name)
		isDir := typ.IsDir()
		if d.ign.Match(rel, isDir) || w.space.protected(rel) {
			continue
		}
		descend := true
		if w.entry != nil {
			descend = w.entry(walkEntry{dir: d, name: name, rel: rel, typ: typ})
		}
		switch {
		case isDir && descend:
			d.refs.Add(1)
			tasks = append(tasks, walkTask{parent: d, ign: d.ign, name: name, rel: rel})
		case typ.IsRegular() && w.file != nil:
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

// readFile reads the regular file rel whole; over max bytes is errTooBig.
func (s *fileSpace) readFile(rel string, max int64) ([]byte, error) {
	f, err := s.openRegular(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errTooBig
	}
	return data, nil
}

// fileState is what a file tool saw of a file when it read it: which file
// it was (device and inode, through os.SameFile), its size and change
// time, and a hash of the bytes read. Just before the new content lands,
// the file is compared with it again, so a change another program made
// meanwhile is refused rather than silently overwritten.
type fileState struct {
	info  fs.FileInfo
	size  int64
	mtime int64 // nanoseconds
	// sum is the SHA-256 of the content; hashed says it was taken.
	sum    [sha256.Size]byte
	hashed bool
}

func stateOf(fi fs.FileInfo) fileState {
	return fileState{info: fi, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// withContent adds the hash of the content read to s.
func (s fileState) withContent(data []byte) fileState {
	s.sum, s.hashed = sha256.Sum256(data), true
	return s
}

// sameFile reports whether fi is still the file s describes, as far as
// its metadata tells: the same inode, size and modification time.
func (s fileState) sameFile(fi fs.FileInfo) bool {
	return os.SameFile(s.info, fi) && fi.Size() == s.size && fi.ModTime().UnixNano() == s.mtime
}

// sameContent reads r (the file s describes, opened again) and compares
// its bytes with the hash s holds; without a hash only the size counts.
func (s fileState) sameContent(r io.Reader) (bool, error) {
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(r, s.size+1))
	if err != nil {
		return false, err
	}
	if n != s.size {
		return false, nil
	}
	return !s.hashed || bytes.Equal(h.Sum(nil), s.sum[:]), nil
}

var (
	// errChanged: the file is not what the tool read (or, for write, what
	// it found) when the call began; nothing was written.
	errChanged = errors.New("changed since it was read")
	// errChangedWhileSaving: another program wrote to the file in the
	// instant between the last check and the rename; the new content is
	// in place, but that other write went to the replaced copy.
	errChangedWhileSaving = errors.New("changed while the new content was being saved")
	// errOpenForWriting: the new content is in place, but another program
	// held the file open for writing all along; what it writes from now
	// on goes to the replaced copy.
	errOpenForWriting = errors.New("open for writing in another program")
)

// replaceMessage words a failed replaceFile for the model. The two
// change errors get the wording the tools promise; others say what failed.
func replaceMessage(display string, err error) string {
	switch {
	case errors.Is(err, errChanged):
		return fmt.Sprintf("%s changed since it was read; read it again", display)
	case errors.Is(err, errOpenForWriting):
		return fmt.Sprintf("%s was saved, but another program has it open for writing: what that program writes from now on goes to the replaced copy and is lost; read it again", display)
	case errors.Is(err, errChangedWhileSaving):
		return fmt.Sprintf("%s changed while it was being saved: the new content is in place, but what another program wrote in that instant went to the replaced copy and is lost; read it again", display)
	}
	return fmt.Sprintf("write %s: %v", display, err)
}

// checkOpen compares the open file f with want.
func checkOpen(f *os.File, want fileState) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("check %s before writing: %w", f.Name(), err)
	}
	if !want.sameFile(fi) {
		return errChanged
	}
	if want.hashed {
		same, err := want.sameContent(io.NewSectionReader(f, 0, want.size+1))
		if err != nil {
			return fmt.Errorf("check %s before writing: %w", f.Name(), err)
		}
		if !same {
			return errChanged
		}
	}
	return nil
}
