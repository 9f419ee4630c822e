//go:build unix

package builtin

import (
	"io/fs"
	"syscall"
)

// linkCount is how many names (hard links) the file fi has; 1 when the
// system does not say.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
