package mcp

import "time"

// Limits of the MCP client (tools-and-safety.md, "MCP tools").
const (
	MaxServers        = 16
	MaxPages          = 64
	MaxToolsPerServer = 64
	MaxTools          = 256
	// MaxServerDefinitionBytes and MaxDefinitionBytes bound the tool
	// definitions (name, description, schemas, annotations as JSON) of
	// one server and of all servers together.
	MaxServerDefinitionBytes = 1 << 20
	MaxDefinitionBytes       = 4 << 20
	// MaxFrameBytes bounds one protocol frame, checked while it is read,
	// before it is parsed.
	MaxFrameBytes = 2 << 20
	// ConnectTimeout bounds a server's start, handshake and discovery.
	ConnectTimeout = 10 * time.Second
	// MaxNameLen is the longest tool name the providers accept.
	MaxNameLen = 64
)

// Limits are the bounds one start runs under; tests shrink them.
type Limits struct {
	Servers, Pages, ToolsPerServer, Tools  int
	ServerDefinitionBytes, DefinitionBytes int
	FrameBytes                             int
	ConnectTimeout                         time.Duration
}

// DefaultLimits are the documented limits.
func DefaultLimits() Limits {
	return Limits{
		Servers: MaxServers, Pages: MaxPages, ToolsPerServer: MaxToolsPerServer, Tools: MaxTools,
		ServerDefinitionBytes: MaxServerDefinitionBytes, DefinitionBytes: MaxDefinitionBytes,
		FrameBytes: MaxFrameBytes, ConnectTimeout: ConnectTimeout,
	}
}
