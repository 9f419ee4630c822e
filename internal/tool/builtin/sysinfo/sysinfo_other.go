//go:build !linux

package sysinfo

import (
	"fmt"
	"runtime"

	"github.com/wisp-agent/wisp/internal/tool"
)

func Collect(string, *tool.Env) ([]string, error) {
	return nil, fmt.Errorf("not available on %s", runtime.GOOS)
}
