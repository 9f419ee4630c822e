package tool

import "encoding/json"

// Invocation is one call of a remote tool as the gate shows and audits
// it.
type Invocation struct {
	// Server and Tool name the MCP server (as configured) and the tool's
	// name on it.
	Server, Tool string
	// Subject is what the person asked sees: the tool and its arguments.
	Subject string
}

// Remote is implemented by tools that run in a process wisp does not
// sandbox and that are not a shell line (a tool of an MCP server): the
// gate cannot classify what they do, so a call of one that is not class
// read is asked about, as its Invocation shows it.
type Remote interface {
	Invocation(args json.RawMessage) (Invocation, error)
}
