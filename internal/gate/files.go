package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/tool"
)

// runMutating runs a file-changing tool and audits the write it made.
func (g *Gate) runMutating(ctx context.Context, cl *callLog, t tool.Tool, env tool.Env) (tool.Result, error) {
	var target struct {
		Path string `json:"path"`
	}
	c := cl.c
	_ = json.Unmarshal(c.Args, &target)
	abs := ""
	existed := false
	if target.Path != "" {
		abs = target.Path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(env.Workdir, abs)
		}
		_, err := os.Lstat(abs)
		existed = err == nil
	}
	// What was decided is on disk before the file changes, or it does not.
	if !cl.flush() {
		res, _ := g.refused()
		return res, nil
	}
	res, err := t.Run(ctx, &env, c.Args)
	if err == nil && !res.IsError && abs != "" {
		var size int64
		if fi, err := os.Stat(abs); err == nil {
			size = fi.Size()
		}
		cl.add(audit.FileWrite{Tool: t.Spec().Name, Path: abs, Bytes: size, Created: !existed})
	}
	return res, err
}
