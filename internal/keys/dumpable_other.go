//go:build unix && !linux

package keys

import "os"

// nonDumpable has no portable counterpart outside Linux; there the
// environment hand-over is the protection.
func nonDumpable() error { return nil }

func self() (string, error) { return os.Executable() }
