//go:build unix

package filespace

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// On Unix the Walker (used by grep and find) holds each folder as a file
// descriptor and opens entries with openat(2) relative to it, O_NOFOLLOW
// and one name at a time, so no open can leave the folder, as with
// os.Root. Files are read with raw syscalls: an *os.File costs several
// more per open (non-blocking mode set and cleared, a poller
// registration that fails for disk files), which is most of grep's time
// over a big tree of small files.

type fdDir struct {
	f  *os.File // owns fd; lists the folder
	fd int
}

// openWalkRoot opens the folder rel of the workspace through root. Linux
// starts a walk from an openat2 descriptor instead (space_linux.go).
func openWalkRoot(root *os.Root, rel string) (dirHandle, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		f.Close()
		if err == nil {
			err = errors.New("not a folder")
		}
		return nil, err
	}
	return &fdDir{f: f, fd: int(f.Fd())}, nil
}

func (d *fdDir) list() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

func (d *fdDir) close() error { return d.f.Close() }

func (d *fdDir) OpenDir(name string) (dirHandle, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	return &fdDir{f: f, fd: fd}, nil
}

// ReadFile reads the regular file name whole into *buf (grown as needed
// and kept for the next call). Files over max bytes give ErrTooBig;
// anything but a regular file gives ErrNotRegular.
func (d *fdDir) ReadFile(name string, buf *[]byte, max int64) ([]byte, error) {
	// O_NONBLOCK: a FIFO swapped in after listing must not block the open.
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY)
	if err != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "fstat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, ErrNotRegular
	}
	size := st.Size
	if size > max {
		return nil, ErrTooBig
	}
	if int64(cap(*buf)) < size {
		*buf = make([]byte, size+size/4)
	}
	data := (*buf)[:size]
	n := 0
	for n < len(data) {
		m, err := unix.Read(fd, data[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			break // the file shrank
		}
		n += m
	}
	return data[:n], nil
}

func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
