package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
)

//go:embed find.md
var findDescription string

var findSchema = json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},"required":["pattern"]}`)

const findMaxResults = 1000

type findArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type findTool struct{}

// Find returns the find tool: a glob search over the workspace tree.
func Find() tool.Tool { return findTool{} }

func (findTool) Spec() tool.Spec {
	return tool.Spec{Name: "find", Description: strings.TrimSpace(findDescription), Schema: findSchema, Class: tool.Read}
}

// Describe states the limits find enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (findTool) Describe() (limits []string, example string) {
	return []string{fmt.Sprintf("at most %s paths", tool.Thousands(findMaxResults)), "respects .gitignore"},
		"List all the Go test files under internal/."
}

// pathGlob matches a walked entry against a find or grep glob: without a
// slash against the name alone, with one against the path below the
// search folder.
type pathGlob struct {
	pattern  string
	anchored bool
	start    string // search folder, workspace-relative, "" for the root
}

func newPathGlob(pattern, start string) (pathGlob, string) {
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return pathGlob{}, fmt.Sprintf("invalid glob %q", pattern)
	}
	if start == "." {
		start = ""
	}
	return pathGlob{pattern: pattern, anchored: strings.Contains(pattern, "/"), start: start}, ""
}

func (g pathGlob) match(e filespace.Entry) bool {
	if !g.anchored {
		return doublestar.MatchUnvalidated(g.pattern, e.Name)
	}
	sub := e.Rel
	if g.start != "" {
		sub = strings.TrimPrefix(sub, g.start+"/")
	}
	return doublestar.MatchUnvalidated(g.pattern, sub)
}

func (findTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a findArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	if a.Pattern == "" {
		return tool.Errorf("pattern is required"), nil
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
		return tool.Errorf("%s is a file, not a folder", a.Path), nil
	}
	glob, msg := newPathGlob(a.Pattern, rel)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
	}

	// One worker walks in name order, so a capped result is the same
	// first 1000 every time.
	var found []string
	w := &filespace.Walker{Space: space, Workers: 1}
	w.OnEntry = func(e filespace.Entry) bool {
		if glob.match(e) {
			name := e.Rel
			if e.Type.IsDir() {
				name += "/"
			} else if e.Type&fs.ModeSymlink != 0 {
				name += "@"
			}
			found = append(found, name)
			if len(found) > findMaxResults {
				w.Halt()
			}
		}
		return true
	}
	if err := w.Walk(ctx, rel); err != nil {
		return tool.Errorf("%s", statMessage(a.Path, err)), nil
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if len(found) == 0 {
		return tool.Result{Content: fmt.Sprintf("no matches for %s under %s\n", a.Pattern, filespace.DisplayPath(rel))}, nil
	}
	capped := len(found) > findMaxResults
	if capped {
		found = found[:findMaxResults]
	}
	slices.Sort(found)
	var b strings.Builder
	for _, f := range found {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	if capped {
		fmt.Fprintf(&b, "[results capped at %d; narrow the pattern or path]\n", findMaxResults)
	}
	if n := w.Unreadable.Load(); n > 0 {
		fmt.Fprintf(&b, "[%s could not be read]\n", plural(int(n), "folder", "folders"))
	}
	return tool.Result{Content: b.String()}, nil
}
