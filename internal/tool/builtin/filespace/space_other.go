//go:build !linux

package filespace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Outside Linux (no openat2) the file tools do their I/O through an
// *os.Root on the workspace root, which keeps every open inside it. It
// follows a symlink that stays inside the root, so a command swapping a
// checked folder for a link into .git while a tool runs is not caught
// here as it is on Linux (space_linux.go).

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

// Stat returns what rel is.
func (s *Space) Stat(rel string) (fs.FileInfo, error) { return s.at.root.Stat(rel) }

// OpenRegular opens the regular file rel for reading without blocking on
// a FIFO that may have taken the place of the file the caller checked.
func (s *Space) OpenRegular(rel string) (*os.File, error) {
	f, err := s.at.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = ErrNotRegular
		}
		return nil, err
	}
	return f, nil
}

// OpenDir opens the folder rel for listing.
func (s *Space) OpenDir(rel string) (*os.File, error) { return s.at.root.Open(rel) }

// openWalkDir opens the folder rel as the start of a walk.
func (s *Space) openWalkDir(rel string) (dirHandle, error) { return openWalkRoot(s.at.root, rel) }

// ReplaceFile writes data as the whole content of rel: by a temporary
// file renamed over it, or in place for a file with several hard links,
// after checking that the file is still the one read describes (or, when
// read is nil, the one this call first found). See the Linux version for
// the full contract; here the check after the rename is left out, since
// some systems refuse to rename over a file held open.
func (s *Space) ReplaceFile(rel string, data []byte, read *State) (created bool, err error) {
	root := s.at.root
	mode := fs.FileMode(0o644)
	fi, err := root.Lstat(rel)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("%s is a folder", rel)
	case err == nil && !fi.Mode().IsRegular():
		return false, &fs.PathError{Op: "write", Path: rel, Err: ErrNotRegular}
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	switch {
	case created && read != nil:
		return false, ErrChanged
	case created:
	case read != nil && !read.SameFile(fi):
		return false, ErrChanged
	case read == nil:
		found := StateOf(fi)
		read = &found
	}
	if !created && LinkCount(fi) > 1 {
		return false, s.writeInPlace(rel, data, *read)
	}
	dir := path.Dir(rel)
	if created && dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create folder %s: %w", dir, err)
		}
	}
	tmp, err := s.writeTemp(rel, data, mode)
	if err != nil {
		return false, err
	}
	if err := s.checkBeforeRename(rel, created, read); err != nil {
		_ = root.Remove(tmp)
		return false, err
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

// writeTemp writes data to a fresh temporary file beside rel, synced and
// closed, and returns its path relative to the root.
func (s *Space) writeTemp(rel string, data []byte, mode fs.FileMode) (string, error) {
	root := s.at.root
	name, err := tempName(path.Base(rel))
	if err != nil {
		return "", err
	}
	tmp := path.Join(path.Dir(rel), name)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w", err)
	}
	step := "write"
	if _, err = f.Write(data); err == nil {
		if step, err = "chmod", f.Chmod(mode); err == nil {
			step, err = "sync", f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		step, err = "close", cerr
	}
	if err != nil {
		_ = root.Remove(tmp)
		return "", fmt.Errorf("%s: %w", step, err)
	}
	return tmp, nil
}

// checkBeforeRename is the last look at rel before the rename: still
// absent when it was absent, else still the file want describes.
func (s *Space) checkBeforeRename(rel string, created bool, want *State) error {
	if created {
		if _, err := s.at.root.Lstat(rel); err == nil {
			return ErrChanged
		}
		return nil
	}
	f, err := s.at.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ErrChanged
	}
	defer f.Close()
	return checkOpen(f, *want)
}

// writeInPlace rewrites rel through its own inode, for a file with
// several hard links that a rename would split.
func (s *Space) writeInPlace(rel string, data []byte, want State) error {
	f, err := s.at.root.OpenFile(rel, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ErrChanged
	}
	defer f.Close()
	if err := checkOpen(f, want); err != nil {
		return err
	}
	return overwrite(f, data)
}
