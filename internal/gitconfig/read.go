package gitconfig

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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

// GitDirOf is the git folder dir/.git names: the folder itself, or the
// one a gitfile ("gitdir: PATH") points at, relative paths taken from
// dir; "" when there is none. A .git that is neither a folder nor a
// small regular file is none (ReadRegular).
func GitDirOf(dir string) string {
	dot := filepath.Join(dir, ".git")
	fi, err := os.Stat(dot)
	switch {
	case err != nil:
		return ""
	case fi.IsDir():
		return dot
	}
	data, err := ReadRegular(dot, 4096)
	if err != nil {
		return ""
	}
	return GitfileTarget(dir, data)
}

// GitfileTarget reads a gitfile's "gitdir:" line, relative to dir.
func GitfileTarget(dir string, data []byte) string {
	line, _, _ := strings.Cut(string(data), "\n")
	d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok || strings.TrimSpace(d) == "" {
		return ""
	}
	d = strings.TrimSpace(d)
	if !filepath.IsAbs(d) {
		d = filepath.Join(dir, d)
	}
	return d
}

// WithCommon returns dir and, for a linked worktree or a submodule
// sharing another repository's objects, the common folder its commondir
// names, when that is a folder.
func WithCommon(dir string) []string {
	dirs := []string{dir}
	if c, err := ReadRegular(filepath.Join(dir, "commondir"), 4096); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		if fi, err := os.Stat(common); err == nil && fi.IsDir() && common != dir {
			dirs = append(dirs, common)
		}
	}
	return dirs
}
