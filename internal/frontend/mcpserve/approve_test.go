package mcpserve

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

func TestObjectSchema(t *testing.T) {
	tests := []struct {
		schema string
		want   bool
	}{
		{`{"type":"object","properties":{}}`, true},
		{`{"type":"string"}`, false},
		{`{}`, false},
		{`[]`, false},
		{`not json`, false},
		{``, false},
	}
	for _, tc := range tests {
		if got := objectSchema(json.RawMessage(tc.schema)); got != tc.want {
			t.Errorf("objectSchema(%q) = %v, want %v", tc.schema, got, tc.want)
		}
	}
}

// The question shows what would run and why it is asked, so that the
// client's user can answer without seeing wisp's terminal.
func TestQuestion(t *testing.T) {
	tests := []struct {
		name string
		req  gate.Request
		want []string
		not  []string
	}{
		{name: "command part", req: gate.Request{Tool: "bash", Class: tool.Command, Subject: "ls && rm -r build", Part: "rm -r build", Reasons: []string{"deletes files"}},
			want: []string{"bash (command): ls && rm -r build", "The part asked about: rm -r build", "Why: deletes files"}},
		{name: "whole line", req: gate.Request{Tool: "bash", Class: tool.Command, Subject: "touch x", Part: "touch x"},
			want: []string{"touch x"}, not: []string{"The part asked about", "Why:"}},
		{name: "file preview", req: gate.Request{Tool: "write", Class: tool.Mutating, Subject: "write a.txt", Preview: "+hello"},
			want: []string{"write (mutating)", "\n\n+hello"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := question(tc.req)
			for _, w := range tc.want {
				if !strings.Contains(q, w) {
					t.Errorf("question %q lacks %q", q, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(q, n) {
					t.Errorf("question %q has %q", q, n)
				}
			}
		})
	}
}
