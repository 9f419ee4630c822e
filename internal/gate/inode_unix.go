//go:build unix

package gate

import (
	"io/fs"
	"syscall"
)

// identity tells a file replaced by rename from the one it replaced
// (the inode), and one rewritten with its size and modification time put
// back (the change time, which no call can set).
func identity(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), st.Ctim.Nano()
	}
	return 0, 0
}
