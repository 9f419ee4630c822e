//go:build unix

package filespace

import (
	"io/fs"
	"syscall"
)

// LinkCount is how many names (hard links) the file fi has; 1 when the
// system does not say.
func LinkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
