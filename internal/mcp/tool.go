package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wisp-agent/wisp/internal/tool"
)

// Defaults for a call when the gate hands no limits.
const (
	defaultCallTimeout = 60 * time.Second
	defaultOutputBytes = 50 * 1024
	defaultOutputLines = 2000
	// subjectArgs bounds the arguments shown in an approval question.
	subjectArgs = 400
)

// remoteTool is one tool of an MCP server.
type remoteTool struct {
	srv         *server
	remote      string // the name on the server
	name        string // the name the model sees
	description string
	schema      json.RawMessage
	class       tool.Class
}

// Spec describes the tool; its class comes from tool_safety alone.
func (t *remoteTool) Spec() tool.Spec {
	return tool.Spec{Name: t.name, Description: t.description, Schema: t.schema, Class: t.class}
}

// Describe states the limits a call runs under.
func (t *remoteTool) Describe() (limits []string, example string) {
	return []string{
		fmt.Sprintf("tool %s of MCP server %s, which runs outside wisp's sandbox", t.remote, t.srv.cfg.Name),
		"timeout: commandTimeoutSeconds (60 s by default)",
		"text output bound 50 KB / 2,000 lines (outputLimit), head kept; images and resources as notes",
	}, ""
}

// Invocation is the call as the gate shows it: the tool's name and its
// arguments, cut.
func (t *remoteTool) Invocation(args json.RawMessage) (tool.Invocation, error) {
	if _, err := decodeArgs(args); err != nil {
		return tool.Invocation{}, err
	}
	var b bytes.Buffer
	shown := string(args)
	if json.Compact(&b, args) == nil {
		shown = b.String()
	}
	if len(shown) > subjectArgs {
		shown = shown[:subjectArgs] + "…"
	}
	return tool.Invocation{Server: t.srv.cfg.Name, Tool: t.remote, Subject: t.name + " " + shown}, nil
}

// decodeArgs takes a call's arguments: a JSON object, or nothing.
func decodeArgs(args json.RawMessage) (map[string]any, error) {
	out := map[string]any{}
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		return out, nil
	}
	if err := json.Unmarshal(args, &out); err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object")
	}
	return out, nil
}

// Run calls the tool on its server within the command timeout and
// renders the result as bounded text.
func (t *remoteTool) Run(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	in, err := decodeArgs(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	session := t.srv.live()
	if session == nil {
		return tool.Errorf("MCP server %s is not available: %s", t.srv.cfg.Name, t.srv.status().Error), nil
	}
	timeout := env.CommandTimeout
	if timeout <= 0 {
		timeout = defaultCallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := session.CallTool(cctx, &sdk.CallToolParams{Name: t.remote, Arguments: in})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return tool.Errorf("the call was cancelled"), nil
	case cctx.Err() != nil:
		return tool.Errorf("MCP server %s did not answer within %s", t.srv.cfg.Name, timeout), nil
	default:
		return t.failed(err), nil
	}
	bytesMax, linesMax := env.OutputBytes, env.OutputLines
	if bytesMax <= 0 {
		bytesMax = defaultOutputBytes
	}
	if linesMax <= 0 {
		linesMax = defaultOutputLines
	}
	return tool.Result{Content: bound(render(res), bytesMax, linesMax), IsError: res.IsError}, nil
}

// failed words a call that got no result. The server's own error
// message is the model's to read, as a command's output would be; a
// broken connection marks the server failed, worded by what wisp saw.
func (t *remoteTool) failed(err error) tool.Result {
	var wire *jsonrpc.Error
	if errors.As(err, &wire) {
		return tool.Errorf("MCP server %s: %s", t.srv.cfg.Name, bound(wire.Message, 2000, 20))
	}
	why := "the connection to the server broke during a call"
	switch {
	case t.srv.frameTooLarge():
		why = fmt.Sprintf("the server sent a protocol frame larger than %s", sizeText(t.srv.frames.max()))
	case t.srv.cfg.URL != "":
		why = t.srv.httpFailure(why)
	case t.srv.waitExit(exitWait):
		why = "the server process stopped during a call"
	}
	t.srv.fail(why)
	return tool.Errorf("MCP server %s failed: %s", t.srv.cfg.Name, why)
}

// exitWait is how long a broken call waits to see the process end.
const exitWait = 500 * time.Millisecond

// live is the server's session while it is ready.
func (srv *server) live() *sdk.ClientSession {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.state != StateReady {
		return nil
	}
	return srv.session
}

// render turns a result into text: text content as it is, images, audio
// and resources as one-line notes, structured content as JSON when
// there is nothing else.
func render(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes, not shown]", orUnknown(c.MIMEType), len(c.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource link %s: %s]", c.Name, c.URI)
		case *sdk.EmbeddedResource:
			b.WriteString(resourceNote(c.Resource))
		default:
			b.WriteString("[content of an unknown type, not shown]")
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(raw)
		}
	}
	return b.String()
}

func resourceNote(r *sdk.ResourceContents) string {
	if r == nil {
		return "[embedded resource, empty]"
	}
	size, what := len(r.Text), "text"
	if len(r.Blob) > 0 {
		size, what = len(r.Blob), "binary"
	}
	return fmt.Sprintf("[embedded resource %s (%s, %s, %d bytes), not shown]", r.URI, orUnknown(r.MIMEType), what, size)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "of unknown type"
	}
	return mime
}

// bound keeps the head of s within maxBytes and maxLines, cut at a
// character, and says what was left out.
func bound(s string, maxBytes, maxLines int) string {
	total := len(s)
	cut := false
	if n := lineEnd(s, maxLines); n < len(s) {
		s, cut = s[:n], true
	}
	if len(s) > maxBytes {
		n := maxBytes
		for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
			n--
		}
		s, cut = s[:n], true
	}
	if !cut {
		return s
	}
	return fmt.Sprintf("%s\n[output cut: %d of %d bytes shown (output bound %d bytes, %d lines)]", strings.TrimRight(s, "\n"), len(s), total, maxBytes, maxLines)
}

// lineEnd is the offset just past the first n lines of s.
func lineEnd(s string, n int) int {
	off := 0
	for i := 0; i < n; i++ {
		j := strings.IndexByte(s[off:], '\n')
		if j < 0 {
			return len(s)
		}
		off += j + 1
	}
	return off
}
