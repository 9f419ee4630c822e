// Package filespace is the file tools' confined view of the workspace:
// paths resolved through workspace.Guard (outside the workspace and
// protected paths refused), opens that never follow a symlink (openat2
// RESOLVE_BENEATH on Linux, an *os.Root elsewhere), the tree walk behind
// grep and find, and ReplaceFile, which writes a file atomically and
// refuses when the file changed since it was read.
//
// It must never follow a symlink, open anything outside the workspace
// root, or list or write a protected path; it holds no model-facing
// wording beyond the error messages its callers pass on.
package filespace

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// The file tools (read, write, edit, grep, find, ls) share this space.
//
// Every file tool resolves the model's path with workspace.Guard.Resolve,
// which gives the clear refusal (outside the workspace, protected), and
// then does its I/O on the resolved path relative to a handle on the
// workspace root. Resolve returns a path with every symlink resolved, so
// the I/O never needs to follow one: on Linux each open refuses any
// symlink it meets (space_linux.go), so a command running meanwhile
// that swaps a checked folder for a symlink (into .git, or out of the
// workspace) makes the call fail instead of redirecting it. Elsewhere an
// *os.Root keeps the I/O inside the workspace (space_other.go).

// Space is one call's view of the workspace: the guard, the resolved
// root, and a handle on that root for confined I/O.
type Space struct {
	guard workspace.Guard
	real  string
	at    spaceRoot // per platform: space_linux.go, space_other.go
}

// Open opens the space of env.Workdir, with env.Protected as its
// protected paths. The caller closes it.
func Open(env *tool.Env) (*Space, error) {
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
	return &Space{guard: workspace.Guard{Root: real, Protected: env.Protected}, real: real, at: at}, nil
}

// Close releases the handle on the workspace root.
func (s *Space) Close() error { return s.at.close() }

// Resolve returns p relative to the workspace root, slash-separated ("."
// for the root itself). A refusal comes back as the model's message.
func (s *Space) Resolve(p string) (rel string, msg string) {
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

// Protected reports whether a walked entry must be left out.
func (s *Space) Protected(rel string) bool {
	return s.guard.Protected != nil && s.guard.Protected(filepath.Join(s.real, filepath.FromSlash(rel)))
}

// tempName is the name of the temporary file that ReplaceFile writes
// next to base before renaming it over base.
func tempName(base string) (string, error) {
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return "", err
	}
	return "." + base + ".wisp-" + hex.EncodeToString(suffix[:]) + ".tmp", nil
}

// DisplayPath is how a tool shows a workspace-relative path to the model.
func DisplayPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// JoinRel joins a workspace-relative folder and a name.
func JoinRel(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// ReadFile reads the regular file rel whole; over max bytes is ErrTooBig.
func (s *Space) ReadFile(rel string, max int64) ([]byte, error) {
	f, err := s.OpenRegular(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, ErrTooBig
	}
	return data, nil
}

// State is what a file tool saw of a file when it read it: which file
// it was (device and inode, through os.SameFile), its size and change
// time, and a hash of the bytes read. Just before the new content lands,
// the file is compared with it again, so a change another program made
// meanwhile is refused rather than silently overwritten.
type State struct {
	info  fs.FileInfo
	size  int64
	mtime int64 // nanoseconds
	// sum is the SHA-256 of the content; hashed says it was taken.
	sum    [sha256.Size]byte
	hashed bool
}

// Size is the file's size when it was read.
func (s State) Size() int64 { return s.size }

// StateOf is the State of the file fi describes, without a content hash.
func StateOf(fi fs.FileInfo) State {
	return State{info: fi, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
}

// WithContent adds the hash of the content read to s.
func (s State) WithContent(data []byte) State {
	s.sum, s.hashed = sha256.Sum256(data), true
	return s
}

// SameFile reports whether fi is still the file s describes, as far as
// its metadata tells: the same inode, size and modification time.
func (s State) SameFile(fi fs.FileInfo) bool {
	return os.SameFile(s.info, fi) && fi.Size() == s.size && fi.ModTime().UnixNano() == s.mtime
}

// sameContent reads r (the file s describes, opened again) and compares
// its bytes with the hash s holds; without a hash only the size counts.
func (s State) sameContent(r io.Reader) (bool, error) {
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
	// ErrChanged: the file is not what the tool read (or, for write, what
	// it found) when the call began; nothing was written.
	ErrChanged = errors.New("changed since it was read")
	// errChangedWhileSaving: another program wrote to the file in the
	// instant between the last check and the rename; the new content is
	// in place, but that other write went to the replaced copy.
	errChangedWhileSaving = errors.New("changed while the new content was being saved")
	// errOpenForWriting: the new content is in place, but another program
	// held the file open for writing all along; what it writes from now
	// on goes to the replaced copy.
	errOpenForWriting = errors.New("open for writing in another program")
)

// ReplaceMessage words a failed ReplaceFile for the model. The two
// change errors get the wording the tools promise; others say what failed.
func ReplaceMessage(display string, err error) string {
	switch {
	case errors.Is(err, ErrChanged):
		return fmt.Sprintf("%s changed since it was read; read it again", display)
	case errors.Is(err, errOpenForWriting):
		return fmt.Sprintf("%s was saved, but another program has it open for writing: what that program writes from now on goes to the replaced copy and is lost; read it again", display)
	case errors.Is(err, errChangedWhileSaving):
		return fmt.Sprintf("%s changed while it was being saved: the new content is in place, but what another program wrote in that instant went to the replaced copy and is lost; read it again", display)
	}
	return fmt.Sprintf("write %s: %v", display, err)
}

// checkOpen compares the open file f with want.
func checkOpen(f *os.File, want State) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("check %s before writing: %w", f.Name(), err)
	}
	if !want.SameFile(fi) {
		return ErrChanged
	}
	if want.hashed {
		same, err := want.sameContent(io.NewSectionReader(f, 0, want.size+1))
		if err != nil {
			return fmt.Errorf("check %s before writing: %w", f.Name(), err)
		}
		if !same {
			return ErrChanged
		}
	}
	return nil
}

// overwrite rewrites an open file in place: overwrite, then cut, so the
// file is never empty on the way; then sync.
func overwrite(f *os.File, data []byte) error {
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}
