// Package durable holds the file operations wisp's stores share: a
// private file replaced atomically (and the removal of the temporary
// files a writer killed mid-write leaves behind), an append-only JSON
// Lines file whose torn last line (left by a writer that died mid-line)
// is cut off, and a private scratch folder for one process's temporary
// files. It knows nothing of what the files hold.
package durable

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteFile replaces path with data, mode 0600: a temporary file beside
// it, synced, then renamed over it, so no reader ever sees half a file.
// The caller serialises writers (a file lock) when several may write.
func WriteFile(path string, data []byte) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(path))
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

// StaleAge is how old a temporary file of WriteFile must be before
// RemoveStaleTemps takes it for a leftover: far longer than any write
// takes, so a write in progress in another process is never touched.
const StaleAge = time.Minute

func tempPattern(path string) string { return "." + filepath.Base(path) + ".*.tmp" }

// isTempOf reports whether name is one of the temporary files WriteFile
// makes for a file called base: "." + base + "." + digits + ".tmp".
func isTempOf(name, base string) bool {
	mid, ok := strings.CutPrefix(name, "."+base+".")
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, ".tmp")
	if !ok || mid == "" {
		return false
	}
	return strings.Trim(mid, "0123456789") == ""
}

// RemoveStaleTemps removes the temporary files that WriteFile left beside
// path when the process writing it died between creating and renaming
// them, once they are older than olderThan. Stores call it where they
// load, so leftovers go on the next start. It returns how many it removed;
// a missing folder is not an error.
func RemoveStaleTemps(path string, olderThan time.Duration) (int, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, fmt.Errorf("list %s for stale temporary files: %w", dir, err)
	}
	removed := 0
	var first error
	cutoff := time.Now().Add(-olderThan)
	for _, e := range entries {
		if !e.Type().IsRegular() || !isTempOf(e.Name(), base) {
			continue
		}
		fi, err := e.Info()
		if err != nil || fi.ModTime().After(cutoff) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
			if first == nil {
				first = fmt.Errorf("remove stale temporary file: %w", err)
			}
			continue
		}
		removed++
	}
	return removed, first
}
