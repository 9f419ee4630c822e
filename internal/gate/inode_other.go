//go:build !unix

package gate

import "io/fs"

func identity(fs.FileInfo) (uint64, int64) { return 0, 0 }
