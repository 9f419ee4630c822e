//go:build unix

package gate

import (
	"io/fs"
	"syscall"
)

// inode tells a file replaced by rename from the one it replaced when
// both have the same size and time.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
