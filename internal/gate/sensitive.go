package gate

import "github.com/wisp-agent/wisp/internal/workspace"

// sensitiveWrite reports whether a file tool's write to rel (a path
// relative to the workspace, as the model gave it) lands in a place that
// runs automatically outside the sandbox, and why (workspace.RunsOutside).
func sensitiveWrite(rel string) (reason string, ok bool) { return workspace.RunsOutside(rel) }
