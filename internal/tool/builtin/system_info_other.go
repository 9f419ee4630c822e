//go:build !linux

package builtin

import (
	"fmt"
	"runtime"

	"github.com/wisp-agent/wisp/internal/tool"
)

func sysinfoCollect(string, *tool.Env) ([]string, error) {
	return nil, fmt.Errorf("not available on %s", runtime.GOOS)
}
