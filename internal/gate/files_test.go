package gate

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

func TestFileSubjectAndPreview(t *testing.T) {
	tests := []struct {
		name, tool string
		subject    tool.Subject
		want       string
	}{
		{"path, then size", "write", tool.Subject{Paths: []string{".git/commondir"}, Summary: "500 bytes, 1 lines"}, `write ".git/commondir" (500 bytes, 1 lines)`},
		{"no summary", "edit", tool.Subject{Paths: []string{"a.go"}}, `edit "a.go"`},
		{"a path is quoted", "edit", tool.Subject{Paths: []string{"a\" (2 edits)"}, Summary: "1 edits"}, `edit "a\" (2 edits)" (1 edits)`},
		{"every path", "move", tool.Subject{Paths: []string{"a", "b"}}, `move "a" "b"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fileSubject(tc.tool, tc.subject); got != tc.want {
				t.Errorf("subject %q, want %q", got, tc.want)
			}
		})
	}
	if p := boundPreview("+ a\n+ b"); p != "+ a\n+ b" {
		t.Errorf("short preview changed: %q", p)
	}
	many := strings.TrimSuffix(strings.Repeat("+ l\n", 51), "\n")
	if p := boundPreview(many); strings.Count(p, "\n") != previewLines || !strings.HasSuffix(p, "(31 more lines)") {
		t.Errorf("preview not bounded:\n%s", p)
	}
}
