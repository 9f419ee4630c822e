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
	// Network says the call itself reaches the network (a web fetch, a
	// search, a remote agent): the gate asks about it whatever the
	// approval threshold and the tool's class, since nothing that runs
	// unasked may reach the network. A remembered approval of the tool
	// may still answer.
	Network bool
}

// Remote is implemented by tools that run in a process wisp does not
// sandbox and that are not a shell line (a tool of an MCP server): the
// gate cannot classify what they do, so a call of one that is not class
// read is asked about, as its Invocation shows it.
type Remote interface {
	Invocation(args json.RawMessage) (Invocation, error)
}
