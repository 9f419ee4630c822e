package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
)

//go:embed ls.md
var lsDescription string

var lsSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)

const lsMaxEntries = 500

type lsArgs struct {
	Path string `json:"path"`
}

type lsTool struct{}

// Ls returns the ls tool: one folder's entries, sorted.
func Ls() tool.Tool { return lsTool{} }

func (lsTool) Spec() tool.Spec {
	return tool.Spec{Name: "ls", Description: strings.TrimSpace(lsDescription), Schema: lsSchema, Class: tool.Read}
}

// Describe states the limits ls enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (lsTool) Describe() (limits []string, example string) {
	return []string{fmt.Sprintf("at most %d entries", lsMaxEntries)},
		"What is in the docs folder?"
}

func (lsTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a lsArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	if a.Path == "" {
		a.Path = "."
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	space, err := filespace.Open(env)
	if err != nil {
		return tool.Result{}, err
	}
	defer space.Close()
	rel, msg := space.Resolve(a.Path)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	fi, err := space.Stat(rel)
	if err != nil {
		return tool.Errorf("%s", statMessage(a.Path, err)), nil
	}
	if !fi.IsDir() {
		return tool.Errorf("%s is a file, not a folder; use read to see it", a.Path), nil
	}
	f, err := space.OpenDir(rel)
	if err != nil {
		return tool.Errorf("%s", statMessage(a.Path, err)), nil
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil && len(entries) == 0 {
		return tool.Errorf("list %s: %v", a.Path, err), nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if space.Protected(filespace.JoinRel(rel, e.Name())) {
			continue
		}
		names = append(names, e.Name()+typeMark(e.Type()))
	}
	slices.Sort(names)
	if len(names) == 0 {
		return tool.Result{Content: fmt.Sprintf("(%s is empty)", filespace.DisplayPath(a.Path))}, nil
	}
	var b strings.Builder
	for _, n := range names[:min(len(names), lsMaxEntries)] {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if len(names) > lsMaxEntries {
		fmt.Fprintf(&b, "[... %d more entries, %d in all; use find with a pattern to narrow]\n", len(names)-lsMaxEntries, len(names))
	}
	return tool.Result{Content: b.String()}, nil
}

// typeMark is the suffix ls -F puts after a name: / for folders, @ for
// symlinks (never followed, so a link out of the workspace shows only
// its name).
func typeMark(t fs.FileMode) string {
	switch {
	case t.IsDir():
		return "/"
	case t&fs.ModeSymlink != 0:
		return "@"
	}
	return ""
}
