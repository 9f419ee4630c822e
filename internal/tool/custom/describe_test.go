package custom

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestDescribe: a custom tool states its own limits and example for the
// catalogue (`wisp tools --markdown`, wisp://tools.md).
func TestDescribe(t *testing.T) {
	tests := []struct {
		name, config string
		limits       []string
		example      string
	}{
		{
			name:    "own timeout",
			config:  `[{"name":"t","description":"d","arguments":{"n":{"type":"integer"}},"command":"seq {n}","timeoutSeconds":10}]`,
			limits:  []string{"timeout 10s", "runs `seq {n}` through the gate: policy, classifier, approval, sandbox, output bound"},
			example: "Use t with n=42",
		},
		{
			name:    "session timeout, own folder",
			config:  `[{"name":"t","description":"d","command":"make","workingDirectory":"/srv/src"}]`,
			limits:  []string{"timeout: commandTimeoutSeconds", "runs in /srv/src", "runs `make` through the gate: policy, classifier, approval, sandbox, output bound"},
			example: "Use t",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := Parse(json.RawMessage(tc.config), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			limits, example := tools[0].Describe()
			if !slices.Equal(limits, tc.limits) || example != tc.example {
				t.Errorf("Describe() = %q, %q; want %q, %q", limits, example, tc.limits, tc.example)
			}
		})
	}
}
