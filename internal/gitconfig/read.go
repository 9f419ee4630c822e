package gitconfig

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// ReadRegular reads at most max bytes of the regular file at path,
// following links. Anything else is an error, never a wait or an
// endless read: a repository's files are the workspace's to plant, and
// a .git or commondir that is a FIFO or a link to /dev/zero would hang
// or exhaust whoever reads it like a file.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s holds more than %d bytes", path, max)
	}
	return data, nil
}
