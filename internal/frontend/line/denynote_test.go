package line

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/shell"
)

// typist answers the approval question with one line once it is shown.
type typist struct {
	answeringTerminal
	answer string
}

func (t *typist) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if !t.answered && strings.Contains(t.b.String(), "Allow? ") {
		t.answered = true
		go func() { t.lines <- t.answer }()
	}
	return len(p), nil
}

// TestTerminalApproverPassesTheNote: the reason typed after n reaches the
// gate as the answer's note; a plain n carries none.
func TestTerminalApproverPassesTheNote(t *testing.T) {
	tests := []struct{ typed, note string }{
		{"n use rg instead", "use rg instead"},
		{"no, not on main", "not on main"},
		{"n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typed, func(t *testing.T) {
			term := &typist{answeringTerminal: answeringTerminal{lines: make(chan string)}, answer: tt.typed}
			ap := terminalApprover(term.lines, term, func() {})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ans, err := ap.Approve(ctx, gate.Request{Tool: "bash", Subject: "grep -r foo .", Level: shell.Moderate})
			if err != nil || ans.Allow || ans.Note != tt.note {
				t.Errorf("answer %+v, %v; want a denial with note %q", ans, err, tt.note)
			}
		})
	}
}
