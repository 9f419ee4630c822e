package gate

import (
	"context"
	"os"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/tool"
)

// runMutating runs a file-changing tool and audits each write it made.
func (g *Gate) runMutating(ctx context.Context, cl *callLog, t tool.Tool, env tool.Env, subject tool.Subject) (tool.Result, error) {
	abs := make([]string, len(subject.Paths))
	existed := make([]bool, len(subject.Paths))
	for i, p := range subject.Paths {
		abs[i] = p
		if !filepath.IsAbs(p) {
			abs[i] = filepath.Join(env.Workdir, p)
		}
		_, err := os.Lstat(abs[i])
		existed[i] = err == nil
	}
	// What was decided is on disk before the file changes, or it does not.
	if !cl.flush() {
		res, _ := g.refused()
		return res, nil
	}
	res, err := t.Run(ctx, &env, cl.c.Args)
	if err != nil || res.IsError {
		return res, err
	}
	for i, p := range abs {
		var size int64
		if fi, err := os.Stat(p); err == nil {
			size = fi.Size()
		}
		cl.add(audit.FileWrite{Tool: t.Spec().Name, Path: p, Bytes: size, Created: !existed[i]})
	}
	return res, nil
}
