package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
	"github.com/wisp-agent/wisp/internal/tool/builtin/grepsearch"
)

//go:embed grep.md
var grepDescription string

var grepSchema = json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"},"ignore_case":{"type":"boolean"},"context":{"type":"integer","description":"lines around each match"}},"required":["pattern"]}`)

const (
	grepMaxMatches = 100
	grepMaxContext = 10
)

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
	Context    int    `json:"context"`
}

type grepTool struct{}

// Grep returns the grep tool: a parallel regexp search of the workspace.
func Grep() tool.Tool { return grepTool{} }

func (grepTool) Spec() tool.Spec {
	return tool.Spec{Name: "grep", Description: strings.TrimSpace(grepDescription), Schema: grepSchema, Class: tool.Read}
}

// Describe states the limits grep enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (grepTool) Describe() (limits []string, example string) {
	return []string{"RE2 syntax", fmt.Sprintf("at most %d matches, 500 characters a line, 50 KB in all", grepMaxMatches), "skips .git, binary and .gitignored files"},
		"Find every call to os.Exit in this repository."
}

func (grepTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a grepArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	switch {
	case a.Pattern == "":
		return tool.Errorf("pattern is required"), nil
	case a.Context < 0:
		return tool.Errorf("context must be 0 or more, got %d", a.Context), nil
	}
	if a.Path == "" {
		a.Path = "."
	}
	a.Context = min(a.Context, grepMaxContext)
	m, err := grepsearch.Compile(a.Pattern, a.IgnoreCase)
	if err != nil {
		return tool.Errorf("invalid pattern: %v", err), nil
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
	s := grepsearch.New(m, a.Context, grepMaxMatches)
	if fi.IsDir() {
		var glob pathGlob
		if a.Glob != "" {
			if glob, msg = newPathGlob(a.Glob, rel); msg != "" {
				return tool.Errorf("%s", msg), nil
			}
		}
		var keep func(filespace.Entry) bool
		if glob.pattern != "" {
			keep = glob.match
		}
		if err := s.Tree(ctx, space, rel, keep); err != nil {
			return tool.Errorf("%s", statMessage(a.Path, err)), nil
		}
	} else if !fi.Mode().IsRegular() {
		return tool.Errorf("%s is not a regular file", a.Path), nil
	} else {
		f, err := space.OpenRegular(rel)
		if err != nil {
			return tool.Errorf("%s", statMessage(a.Path, err)), nil
		}
		s.File(f, rel)
		f.Close()
		if s.Binary() {
			return tool.Result{Content: fmt.Sprintf("%s looks like a binary file; not searched", a.Path)}, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	return tool.Result{Content: s.Report()}, nil
}
