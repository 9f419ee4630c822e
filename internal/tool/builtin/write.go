package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
	"github.com/wisp-agent/wisp/internal/tool/builtin/filetext"
)

//go:embed write.md
var writeDescription string

var writeSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

type writeTool struct{}

// Write returns the write tool: creates or replaces a whole file,
// atomically.
func Write() tool.Tool { return writeTool{} }

func (writeTool) Spec() tool.Spec {
	return tool.Spec{Name: "write", Description: strings.TrimSpace(writeDescription), Schema: writeSchema, Class: tool.Mutating}
}

func (writeTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a writeArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	switch {
	case a.Path == "":
		return tool.Errorf("path is required"), nil
	case a.Content == nil:
		return tool.Errorf("content is required (use \"\" for an empty file)"), nil
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
	if rel == "." {
		return tool.Errorf("%s is the workspace folder, not a file", a.Path), nil
	}
	data := []byte(*a.Content)
	created, err := space.ReplaceFile(rel, data, nil)
	if err != nil {
		return tool.Errorf("%s", filespace.ReplaceMessage(a.Path, err)), nil
	}
	verb := "overwrote"
	if created {
		verb = "created"
	}
	return tool.Result{Content: fmt.Sprintf("%s %s (%s, %s)", verb, rel,
		plural(len(data), "byte", "bytes"), plural(filetext.CountLines(data), "line", "lines"))}, nil
}
