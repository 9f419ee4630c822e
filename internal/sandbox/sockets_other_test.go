//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// socketProbe exists on Linux alone, where the sandbox filters sockets.
func socketProbe(kind string) int {
	fmt.Fprintf(os.Stderr, "no socket probe %q on this system\n", kind)
	return 2
}

// netProbe exists on Linux alone, where the auto-run profile exists.
func netProbe(kind string) int { return socketProbe(kind) }
