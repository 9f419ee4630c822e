// Package mcpserve serves a session's tools over MCP on stdio (`wisp mcp
// serve`): tools/list shows the tools `wisp tools` lists, tools/call runs
// each call through the session's gate, and two resources carry the
// catalogue. It is a frontend of host.Session: it must not run a model
// or call a tool except through Session.CallTool, and it writes nothing
// but MCP frames to its output.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/tool"
)

// The resources' addresses, as custom-tools.md names them.
const (
	ToolsURI   = "wisp://tools"
	ToolsMDURI = "wisp://tools.md"
)

// Serve answers one MCP client on in and out until it disconnects or ctx
// ends. Tools whose schema is not a JSON object (which MCP requires) are
// left out with a warning on stderr.
func Serve(ctx context.Context, s *host.Session, in io.Reader, out io.Writer, stderr io.Writer) error {
	srv := mcp.NewServer(&mcp.Implementation{Name: "wisp", Version: host.Version}, nil)
	for _, spec := range s.ServedTools() {
		if !objectSchema(spec.Schema) {
			fmt.Fprintf(stderr, "wisp: warning: tool %s is not served: its input schema is not a JSON object\n", spec.Name)
			continue
		}
		srv.AddTool(&mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: spec.Schema}, callHandler(s, spec.Name))
	}
	addResources(srv, s)
	err := srv.Run(ctx, &mcp.IOTransport{Reader: readCloser{in}, Writer: writeCloser{out}})
	if err != nil && ctx.Err() != nil {
		return nil
	}
	if err != nil {
		return fmt.Errorf("serve MCP on stdio: %w", err)
	}
	return nil
}

// callHandler runs a call through the session's gate; refusals and tool
// failures come back as isError results the client's model can read.
func callHandler(s *host.Session, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		res, err := s.CallTool(context.WithValue(ctx, sessionKey{}, req.Session), name, args)
		if err != nil {
			res = tool.Result{Content: err.Error(), IsError: true}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Content}}, IsError: res.IsError}, nil
	}
}

// addResources serves the catalogue as `wisp tools --json` and `wisp
// tools --markdown` print it, read afresh on each request.
func addResources(srv *mcp.Server, s *host.Session) {
	srv.AddResource(&mcp.Resource{URI: ToolsURI, Name: "tools", Description: "wisp's tool catalogue: schemas, classes, sources, limits", MIMEType: "application/json"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text, err := catalogJSON(s.Catalog())
			if err != nil {
				return nil, err
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ToolsURI, MIMEType: "application/json", Text: text}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: ToolsMDURI, Name: "tools.md", Description: "wisp's tools with their limits and an example prompt each", MIMEType: "text/markdown"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			text := tool.Markdown(s.Catalog())
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ToolsMDURI, MIMEType: "text/markdown", Text: text}}}, nil
		})
}

// catalogJSON encodes the catalogue exactly as `wisp tools --json` does.
func catalogJSON(infos []tool.Info) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(infos); err != nil {
		return "", fmt.Errorf("encode the tool catalogue: %w", err)
	}
	return b.String(), nil
}

// objectSchema says whether schema is a JSON object of type "object",
// the only input schema MCP allows (the SDK panics on any other).
func objectSchema(schema json.RawMessage) bool {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		return false
	}
	return m["type"] == "object"
}

// readCloser and writeCloser let the transport close its ends without
// closing the process's stdin and stdout under the rest of wisp.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
