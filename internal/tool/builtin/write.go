package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
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

var _ tool.Mutator = writeTool{}

// Write returns the write tool: creates or replaces a whole file,
// atomically.
func Write() tool.Tool { return writeTool{} }

func (writeTool) Spec() tool.Spec {
	return tool.Spec{Name: "write", Description: strings.TrimSpace(writeDescription), Schema: writeSchema, Class: tool.Mutating}
}

// Describe states the limits write enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (writeTool) Describe() (limits []string, example string) {
	return []string{"atomic (temporary file, then rename)", "inside the working directory; protected paths refused", "asks for approval"},
		"Create a CONTRIBUTING.md that explains how to run the tests."
}

// Subject names the file a call writes, its size and its new content,
// for the gate to judge and show before anything is written.
func (writeTool) Subject(raw json.RawMessage) (tool.Subject, error) {
	a, msg := decodeWriteArgs(raw)
	if msg != "" {
		return tool.Subject{}, errors.New(msg)
	}
	content := *a.Content
	lines := strings.Split(content, "\n")
	for i := range lines {
		lines[i] = "+ " + lines[i]
	}
	return tool.Subject{
		Paths:   []string{a.Path},
		Summary: fmt.Sprintf("%d bytes, %d lines", len(content), strings.Count(content, "\n")+1),
		Preview: strings.Join(lines, "\n"),
	}, nil
}

// decodeWriteArgs decodes and checks a call's arguments; the message is
// for the model, empty when they are good.
func decodeWriteArgs(raw json.RawMessage) (writeArgs, string) {
	var a writeArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return a, msg
	}
	switch {
	case a.Path == "":
		return a, "path is required"
	case a.Content == nil:
		return a, "content is required (use \"\" for an empty file)"
	}
	return a, ""
}

func (writeTool) Run(ctx context.Context, env *tool.Env, raw json.RawMessage) (tool.Result, error) {
	a, msg := decodeWriteArgs(raw)
	if msg != "" {
		return tool.Errorf("%s", msg), nil
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
