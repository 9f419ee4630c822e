package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/tool"
)

// catalogue is one server's tools, checked as a whole.
type catalogue struct {
	tools []*remoteTool
	// bytes is the size of the definitions as JSON.
	bytes int
}

// shownName is a remote tool name safe to put in a diagnostic.
var shownName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// discover lists a server's tools page by page within the limits and
// checks the catalogue. err is a transport failure (worded by the
// caller); why is a catalogue the limits or checks refuse.
func discover(ctx context.Context, session *sdk.ClientSession, srv *server, l Limits) (catalogue, string, error) {
	var defs []*sdk.Tool
	cursor, size := "", 0
	for page := 1; ; page++ {
		if page > l.Pages {
			return catalogue{}, fmt.Sprintf("the server lists its tools in more than %d pages", l.Pages), nil
		}
		res, err := session.ListTools(ctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			return catalogue{}, "", err
		}
		for _, d := range res.Tools {
			if len(defs) == l.ToolsPerServer {
				return catalogue{}, fmt.Sprintf("the server lists more than %d tools", l.ToolsPerServer), nil
			}
			if d == nil {
				return catalogue{}, fmt.Sprintf("tool definition %d is empty", len(defs)+1), nil
			}
			raw, err := json.Marshal(d)
			if err != nil {
				return catalogue{}, fmt.Sprintf("tool definition %d cannot be encoded", len(defs)+1), nil
			}
			if size += len(raw); size > l.ServerDefinitionBytes {
				return catalogue{}, fmt.Sprintf("the server's tool definitions pass %s", sizeText(l.ServerDefinitionBytes)), nil
			}
			defs = append(defs, d)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	cat, why := check(defs, srv)
	cat.bytes = size
	return cat, why, nil
}

// check turns definitions into tools: every one valid, no name twice,
// no two exposed names alike. The first problem refuses them all.
func check(defs []*sdk.Tool, srv *server) (catalogue, string) {
	var cat catalogue
	remote, exposed := map[string]bool{}, map[string]bool{}
	for i, d := range defs {
		at := fmt.Sprintf("tool definition %d", i+1)
		if shownName.MatchString(d.Name) {
			at += " (" + d.Name + ")"
		}
		if d.Name == "" {
			return catalogue{}, at + " has no name"
		}
		schema, ok := objectSchema(d.InputSchema)
		if !ok {
			return catalogue{}, at + ` has an input schema that is not a JSON Schema of "type": "object"`
		}
		if remote[d.Name] {
			return catalogue{}, at + " repeats a name listed before"
		}
		remote[d.Name] = true
		t := &remoteTool{srv: srv, remote: d.Name, name: ToolName(srv.cfg.Name, d.Name),
			description: d.Description, schema: schema, class: classOf(srv.cfg.ToolSafety[d.Name])}
		if exposed[t.name] {
			return catalogue{}, at + " would share its name " + t.name + " with another tool"
		}
		exposed[t.name] = true
		cat.tools = append(cat.tools, t)
	}
	return cat, ""
}

// objectSchema is a tool's input schema as JSON, when it is an object
// schema.
func objectSchema(s any) (json.RawMessage, bool) {
	raw, err := json.Marshal(s)
	if err != nil || !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return nil, false
	}
	var top struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(raw, &top) != nil || top.Type != "object" {
		return nil, false
	}
	return raw, true
}

// classOf is the class tool_safety assigns; anything else is command.
// A server's annotations are never read.
func classOf(safety string) tool.Class {
	switch safety {
	case "read":
		return tool.Read
	case "mutating":
		return tool.Mutating
	}
	return tool.Command
}
