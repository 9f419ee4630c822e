//go:build linux

package conceal

import (
	"os"

	"golang.org/x/sys/unix"
)

// Hide mounts over one path: an empty read-only tmpfs over a folder,
// /dev/null over a file (a link is covered where it leads).
func Hide(p string, dir bool) error {
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if dir {
		return unix.Mount("tmpfs", p, "tmpfs", flags|unix.MS_RDONLY, "size=4k,nr_inodes=1,mode=0555")
	}
	return unix.Mount(os.DevNull, p, "", unix.MS_BIND, "")
}
