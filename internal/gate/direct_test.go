package gate

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

// Each direct call gets its own id, as each model call has.
func TestRunDirectIDsAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		var id string
		_, err := RunDirect(context.Background(), "mcp_", Call{Name: "read"}, func(_ context.Context, c Call) (tool.Result, error) {
			id = c.ID
			return tool.Result{}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if seen[id] || !strings.HasPrefix(id, "mcp_") {
			t.Fatalf("call id %q repeated or unprefixed", id)
		}
		seen[id] = true
	}
}

// RunDirect hands the gate {} for empty arguments, refuses malformed ones
// without calling it, and turns a call that could not be made into a
// tool error naming the tool.
func TestRunDirectArguments(t *testing.T) {
	tests := []struct {
		name, args string
		runErr     error
		wantArgs   string // what the gate got; "" for not called
		wantResult string
	}{
		{"empty", "", nil, "{}", ""},
		{"null", "null", nil, "{}", ""},
		{"malformed", "{", nil, "", "error: malformed arguments for read: not valid JSON"},
		{"failed", `{"path":"a"}`, errors.New("boom"), `{"path":"a"}`, "error: read failed: boom"},
	}
	for _, tt := range tests {
		var got string
		res, err := RunDirect(context.Background(), "x_", Call{Name: "read", Args: json.RawMessage(tt.args)}, func(_ context.Context, c Call) (tool.Result, error) {
			got = string(c.Args)
			return tool.Result{}, tt.runErr
		})
		if err != nil || got != tt.wantArgs || !strings.HasPrefix(res.Content, tt.wantResult) {
			t.Errorf("%s: gate got %q, result %q (%v); want %q, %q", tt.name, got, res.Content, err, tt.wantArgs, tt.wantResult)
		}
	}
}
