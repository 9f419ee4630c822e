//go:build !unix

package filespace

import (
	"io"
	"io/fs"
	"os"
)

// Outside Unix the Walker (used by grep and find) holds each folder as an
// *os.Root, which keeps every open inside it.

type rootDir struct{ root *os.Root }

// openWalkRoot opens the folder rel of the workspace through root.
func openWalkRoot(root *os.Root, rel string) (dirHandle, error) {
	r, err := root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return &rootDir{root: r}, nil
}

func (d *rootDir) list() ([]fs.DirEntry, error) {
	f, err := d.root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (d *rootDir) close() error { return d.root.Close() }

func (d *rootDir) OpenDir(name string) (dirHandle, error) {
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return &rootDir{root: r}, nil
}

func (d *rootDir) ReadFile(name string, buf *[]byte, max int64) ([]byte, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	size := fi.Size()
	if size > max {
		return nil, ErrTooBig
	}
	if int64(cap(*buf)) < size {
		*buf = make([]byte, size+size/4)
	}
	data := (*buf)[:size]
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	return data[:n], nil
}
