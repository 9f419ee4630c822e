// Package durable holds the two file operations wisp's stores share: a
// private file replaced atomically, and an append-only JSON Lines file
// whose torn last line (left by a writer that died mid-line) is cut off.
// It knows nothing of what the files hold.
package durable

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data, mode 0600: a temporary file beside
// it, synced, then renamed over it, so no reader ever sees half a file.
// The caller serialises writers (a file lock) when several may write.
func WriteFile(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err == nil {
		if _, err = tmp.Write(data); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CutTornTail truncates f, of the given size, after its last newline when
// it does not end in one, and returns the size left. The caller holds the
// lock that every writer takes.
func CutTornTail(f *os.File, size int64) (int64, error) {
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, fmt.Errorf("read tail: %w", err)
	}
	if last[0] == '\n' {
		return size, nil
	}
	buf := make([]byte, 64<<10)
	end, keep := size, int64(0)
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return 0, fmt.Errorf("read tail: %w", err)
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			keep = start + int64(i) + 1
			break
		}
		end = start
	}
	if err := f.Truncate(keep); err != nil {
		return 0, fmt.Errorf("cut torn tail: %w", err)
	}
	return keep, nil
}
