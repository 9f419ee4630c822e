package durable

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Scratch is a private folder for one process's temporary files, such as
// the full output of a command that outgrew what is kept in memory. It
// lives in a shared temporary folder under a name that starts with a
// prefix. While the process runs it holds a lock (flock) on a file
// inside, which the kernel drops when the process dies however it dies;
// Close removes the folder, and a folder whose lock is free is removed by
// the next OpenScratch with the same prefix.
type Scratch struct {
	dir  string
	lock *os.File
}

// scratchLock is the lock file inside a scratch folder.
const scratchLock = ".lock"

// OpenScratch removes the scratch folders in parent that processes which
// died left behind, then makes a new one for this process: parent/prefix
// + pid + "-" + random. The folder is set up (its lock file created and
// locked) under a hidden name and only then renamed to that name, so a
// folder under the prefix whose lock is free always belongs to a process
// that is gone.
func OpenScratch(parent, prefix string) (*Scratch, error) {
	// A leftover that cannot be removed does not stop this run.
	_, _ = RemoveStaleScratch(parent, prefix)
	var suffix [4]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, fmt.Errorf("scratch folder: %w", err)
	}
	name := prefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(suffix[:])
	setup := filepath.Join(parent, "."+name+".new")
	if err := os.Mkdir(setup, 0o700); err != nil {
		return nil, fmt.Errorf("create scratch folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(setup, scratchLock), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		if err = lockFile(lock, true); err != nil {
			lock.Close()
		}
	}
	dir := filepath.Join(parent, name)
	if err == nil {
		if err = os.Rename(setup, dir); err != nil {
			lock.Close()
		}
	}
	if err != nil {
		_ = os.RemoveAll(setup)
		return nil, fmt.Errorf("set up scratch folder %s: %w", dir, err)
	}
	return &Scratch{dir: dir, lock: lock}, nil
}

// Dir is the scratch folder.
func (s *Scratch) Dir() string { return s.dir }

// Close removes the folder and everything in it.
func (s *Scratch) Close() error {
	if s == nil || s.lock == nil {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.lock.Close()
	s.lock = nil
	if err != nil {
		return fmt.Errorf("remove scratch folder: %w", err)
	}
	return nil
}

// RemoveStaleScratch removes the scratch folders in parent named with
// prefix whose owner is gone (the lock inside is free, or missing), and
// folders left half set up (hidden, older than StaleAge). Folders of
// other users and symlinks are never touched. It returns how many it
// removed.
func RemoveStaleScratch(parent, prefix string) (int, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, fmt.Errorf("list %s for stale scratch folders: %w", parent, err)
	}
	cutoff := time.Now().Add(-StaleAge)
	removed := 0
	var first error
	for _, e := range entries {
		name := e.Name()
		settingUp := strings.HasPrefix(name, "."+prefix) && strings.HasSuffix(name, ".new")
		if !e.IsDir() || !(strings.HasPrefix(name, prefix) || settingUp) {
			continue
		}
		dir := filepath.Join(parent, name)
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() || !ownedBySelf(fi) {
			continue
		}
		if settingUp && fi.ModTime().After(cutoff) || !settingUp && !abandoned(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			if first == nil {
				first = fmt.Errorf("remove stale scratch folder: %w", err)
			}
			continue
		}
		removed++
	}
	return removed, first
}

// abandoned reports whether no live process holds the scratch folder.
func abandoned(dir string) bool {
	f, err := os.OpenFile(filepath.Join(dir, scratchLock), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	// Taking the lock means its holder is gone; it is dropped with f.
	return lockFile(f, false) == nil
}
