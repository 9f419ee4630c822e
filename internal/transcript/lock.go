package transcript

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// BusyError says a session is open in another wisp. PID is that
// process's id as it wrote it in the lock file (0 when it could not be
// read).
type BusyError struct {
	ID   string
	Path string
	PID  int
}

func (e *BusyError) Error() string {
	who := "another wisp"
	if e.PID > 0 {
		who = fmt.Sprintf("another wisp (pid %d)", e.PID)
	}
	return fmt.Sprintf("session %s is open in %s", Escape(e.ID), who)
}

// lockSuffix names a transcript's lock file: "<transcript>.lock".
const lockSuffix = ".lock"

// sessionLock is the one-writer lock of a transcript: an exclusive flock
// on a file beside it that holds the owner's pid. The kernel drops the
// flock when the process dies however it dies, so a lock file left by a
// killed wisp is simply taken over.
type sessionLock struct {
	f    *os.File
	path string
}

// lockSession takes the lock of the transcript at path or reports who
// holds it. id names the session in the error.
func lockSession(path, id string) (*sessionLock, error) {
	lp := path + lockSuffix
	for range 10 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("session: lock %s: %w", Escape(lp), err)
		}
		err = tryLock(f)
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid := holder(f)
			_ = f.Close()
			return nil, &BusyError{ID: id, Path: path, PID: pid}
		}
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("session: lock %s: %w", Escape(lp), err)
		}
		// The owner before us removes the file as it lets go; if that
		// happened between our open and our flock we hold a lock on a
		// file nobody else can find, so start again.
		if !samePath(f, lp) {
			_ = f.Close()
			continue
		}
		if err := writePID(f); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("session: lock %s: %w", Escape(lp), err)
		}
		return &sessionLock{f: f, path: lp}, nil
	}
	return nil, fmt.Errorf("session: lock %s: the lock file keeps being replaced", Escape(lp))
}

// tryLock takes the flock without waiting on a wisp that keeps it, but
// rides out the moment a listing (Holder) holds it shared.
func tryLock(f *os.File) error {
	var err error
	for range 5 {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
	return err
}

func samePath(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}

// holder reads the pid the lock's owner wrote. The owner writes it just
// after taking the lock, so an empty file is read again briefly.
func holder(f *os.File) int {
	for range 20 {
		data, err := io.ReadAll(io.NewSectionReader(f, 0, 64))
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
				return pid
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}

// release removes the lock file and lets go of the lock, in that order,
// so no one can take a lock on a file that is about to vanish unnoticed
// (lockSession checks for that).
func (l *sessionLock) release() {
	if l == nil {
		return
	}
	_ = os.Remove(l.path)
	_ = l.f.Close()
}

// Holder returns the pid of the wisp that has the transcript at path
// open, or 0 when none has.
func Holder(path string) int {
	f, err := os.Open(path + lockSuffix)
	if err != nil {
		return 0
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
		return 0
	}
	return holder(f)
}
