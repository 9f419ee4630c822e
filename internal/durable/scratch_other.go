//go:build !unix

package durable

import (
	"errors"
	"io/fs"
	"os"
)

// lockFile has no portable form here; a scratch folder left by a dead
// process is then only removed by hand.
func lockFile(f *os.File, wait bool) error {
	if wait {
		return nil
	}
	return errors.New("locks are not supported here")
}

func ownedBySelf(fs.FileInfo) bool { return true }
