//go:build !linux

package builtin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Outside Linux (no openat2) the file tools do their I/O through an
// *os.Root on the workspace root, which keeps every open inside it. It
// follows a symlink that stays inside the root, so a command swapping a
// checked folder for a link into .git while a tool runs is not caught
// here as it is on Linux (fileutil_linux.go).

// spaceRoot is the workspace root held open for one call.
type spaceRoot struct{ root *os.Root }

func openSpaceRoot(real string) (spaceRoot, error) {
	root, err := os.OpenRoot(real)
	if err != nil {
		return spaceRoot{}, err
	}
	return spaceRoot{root: root}, nil
}

func (r *spaceRoot) close() error { return r.root.Close() }

// stat returns what rel is.
func (s *fileSpace) stat(rel string) (fs.FileInfo, error) { return s.at.root.Stat(rel) }

// openRegular opens the regular file rel for reading without blocking on
// a FIFO that may have taken the place of the file the caller checked.
func (s *fileSpace) openRegular(rel string) (*os.File, error) {
	f, err := s.at.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errNotRegular
		}
		return nil, err
	}
	return f, nil
}

// openDir opens the folder rel for listing.
func (s *fileSpace) openDir(rel string) (*os.File, error) { return s.at.root.Open(rel) }

// openWalkDir opens the folder rel as the start of a walk.
func (s *fileSpace) openWalkDir(rel string) (dirHandle, error) { return openWalkRoot(s.at.root, rel) }

// writeFileAtomic replaces rel with data: a temporary file in the same
// folder is written, synced and renamed over the target, so a reader never
// sees half a file. An existing file keeps its mode; a new one gets 0644
// and any missing parent folders. created says whether the file did not
// exist before.
func (s *fileSpace) writeFileAtomic(rel string, data []byte) (created bool, err error) {
	root := s.at.root
	mode := fs.FileMode(0o644)
	fi, err := root.Stat(rel)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("%s is a folder", rel)
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	dir := path.Dir(rel)
	if created && dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create folder %s: %w", dir, err)
		}
	}
	name, err := tempName(path.Base(rel))
	if err != nil {
		return false, err
	}
	tmp := path.Join(dir, name)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, fmt.Errorf("create temporary file: %w", err)
	}
	fail := func(what string, err error) (bool, error) {
		f.Close()
		_ = root.Remove(tmp)
		return false, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail("chmod", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := f.Close(); err != nil {
		_ = root.Remove(tmp)
		return false, fmt.Errorf("close: %w", err)
	}
	if err := root.Rename(tmp, rel); err != nil {
		_ = root.Remove(tmp)
		return false, fmt.Errorf("rename into place: %w", err)
	}
	// Sync the folder so the rename itself survives a crash.
	if d, err := root.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return created, nil
}
