package gate

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFileSubjectAndPreview(t *testing.T) {
	long := strings.Repeat("x", 500)
	tests := []struct {
		name, args, subject, preview string
	}{
		{"write shows the path first", `{"content":"` + long + `","path":".git/commondir"}`, `write ".git/commondir" (500 bytes, 1 lines)`, "+ xxx"},
		{"edit", `{"path":"a.go","old_text":"a\nb","new_text":"c"}`, `write "a.go"`, "- a\n- b\n+ c"},
		{"edits", `{"path":"a.go","edits":[{"old_text":"a","new_text":"b"},{"old_text":"c","new_text":"d"}]}`, `write "a.go" (2 edits)`, "- a\n+ b\n…\n- c\n+ d"},
		{"no path", `{"x":1}`, `write {"x":1}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fileSubject("write", json.RawMessage(tc.args)); got != tc.subject {
				t.Errorf("subject %q, want %q", got, tc.subject)
			}
			if got := filePreview(json.RawMessage(tc.args)); !strings.HasPrefix(got, tc.preview) {
				t.Errorf("preview %q, want prefix %q", got, tc.preview)
			}
		})
	}
	many := `{"path":"a","content":"` + strings.Repeat(`l\n`, 50) + `"}`
	if p := filePreview(json.RawMessage(many)); strings.Count(p, "\n") != previewLines || !strings.HasSuffix(p, "(31 more lines)") {
		t.Errorf("preview not bounded:\n%s", p)
	}
}
