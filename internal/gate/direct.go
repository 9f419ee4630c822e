package gate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp/internal/tool"
)

// RunDirect makes one call that no model asked for (a client of wisp mcp
// serve, a command the person typed, a wisp's step) the way the agent
// makes the model's: empty arguments are {}, malformed ones a tool
// error, and the call goes through run (the gate) under a fresh id that
// starts with prefix. A refusal or a failure of the tool comes back as a
// Result with IsError set; the error is for a call that could not be made.
func RunDirect(ctx context.Context, prefix string, c Call, run func(context.Context, Call) (tool.Result, error)) (tool.Result, error) {
	if len(c.Args) == 0 || string(c.Args) == "null" {
		c.Args = json.RawMessage("{}")
	}
	if !json.Valid(c.Args) {
		return tool.Errorf("malformed arguments for %s: not valid JSON", c.Name), nil
	}
	// An id of its own, without shared state: the audit and the
	// approval questions key on it, like the model's call ids.
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return tool.Result{}, fmt.Errorf("make a call id: %w", err)
	}
	c.ID = prefix + hex.EncodeToString(b[:])
	res, err := run(ctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("cancelled: %v", err), nil
		}
		return tool.Errorf("%s failed: %v", c.Name, err), nil
	}
	return res, nil
}
