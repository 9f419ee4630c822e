package builtin

import (
	"encoding/json"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

func TestBuiltinSpecs(t *testing.T) {
	tests := []struct {
		tool     tool.Tool
		name     string
		class    tool.Class
		maxBytes int
	}{
		{CurrentDate(), "current_date", tool.Read, 250},
		{SystemInfo(), "system_info", tool.Read, 250},
		{Notify(nil), "notify", tool.Read, 250},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.tool.Spec()
			if s.Name != tc.name || s.Class != tc.class {
				t.Fatalf("spec %s %s", s.Name, s.Class)
			}
			if s.Description == "" || len(s.Description) > tc.maxBytes {
				t.Fatalf("description is %d bytes, want 1..%d", len(s.Description), tc.maxBytes)
			}
			var schema struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s.Schema, &schema); err != nil || schema.Type != "object" || schema.Properties == nil {
				t.Fatalf("schema %s: %v", s.Schema, err)
			}
		})
	}
}
