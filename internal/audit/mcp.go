package audit

import "fmt"

// The kinds of line a call of an MCP server's tool adds.
const (
	KindMCPRequest = "mcp.request"
	KindMCPResult  = "mcp.result"
)

// MCPRequest is a call about to go to an MCP server, written once the
// gate let it run.
type MCPRequest struct {
	Server string `json:"server"`
	// Tool is the tool's name on the server; the tool.call line has the
	// name the model used.
	Tool string `json:"tool"`
}

// MCPResult is what an MCP server answered, before the result was
// bounded for the model.
type MCPResult struct {
	Server     string `json:"server"`
	Tool       string `json:"tool"`
	IsError    bool   `json:"is_error"`
	DurationMS int64  `json:"duration_ms"`
}

func (MCPRequest) Kind() string { return KindMCPRequest }
func (MCPResult) Kind() string  { return KindMCPResult }

func (d MCPRequest) bounded(c *cutter) Details {
	d.Server, d.Tool = c.str(d.Server), c.str(d.Tool)
	return d
}

func (d MCPResult) bounded(c *cutter) Details {
	d.Server, d.Tool = c.str(d.Server), c.str(d.Tool)
	return d
}

func (d MCPRequest) summary() string { return d.Server + " " + d.Tool }

func (d MCPResult) summary() string {
	s := fmt.Sprintf("%s %s %dms", d.Server, d.Tool, d.DurationMS)
	if d.IsError {
		s += " error"
	}
	return s
}
