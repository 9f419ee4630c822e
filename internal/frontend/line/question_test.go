package line

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/shell"
)

// TestQuestionStartsClean: whatever the model left on the terminal (a
// colour, the hidden attribute, half a line), the approval question is
// written after a reset, on a line of its own, with the line's control
// characters shown as escapes.
func TestQuestionStartsClean(t *testing.T) {
	tests := []struct {
		name, before string
	}{
		{"hidden attribute mid-line", "I will now run\x1b[8m"},
		{"colour left on", "\x1b[31mred text"},
		{"half an OSC", "text\x1b]52;c;AAAA"},
		{"nothing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &answeringTerminal{lines: make(chan string)}
			scr := frontend.NewScreen(b, true)
			frontend.LineMode(scr, b)(event.MessageDelta{Delta: tt.before})
			ap := terminalApprover(b.lines, b, scr.Settle)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ans, err := ap.Approve(ctx, gate.Request{Tool: "bash", Subject: "ls\x1b[8m\rrm -rf ~\nx", Level: shell.Moderate})
			if err != nil || ans.Allow || ans.Reason != "denied" {
				t.Fatalf("answer %+v, %v; want the typed no", ans, err)
			}
			out := b.String()
			at := strings.Index(out, "Approval needed")
			if at < 0 {
				t.Fatalf("no question:\n%q", out)
			}
			head := out[:at]
			if strings.Contains(out, "\x1b[8m") || !strings.HasSuffix(head, "\x1b[0m") && !strings.HasSuffix(head, "\x1b[0m\n") {
				t.Errorf("the question does not start from a reset:\n%q", out)
			}
			if strings.TrimSuffix(head, "\x1b[0m") != "" && !strings.Contains(head, "\n") {
				t.Errorf("the question starts mid-line:\n%q", out)
			}
			if q := out[at:]; !strings.Contains(q, `ls\x1b[8m\x0drm -rf ~\n`) || strings.ContainsAny(q, "\x1b\r") {
				t.Errorf("the line is not shown with visible escapes:\n%q", q)
			}
		})
	}
}

// answeringTerminal records what is written to it and types "n" once a
// question has been asked.
type answeringTerminal struct {
	mu       sync.Mutex
	b        strings.Builder
	lines    chan string
	answered bool
}

func (a *answeringTerminal) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.b.Write(p)
	if !a.answered && strings.Contains(a.b.String(), "Allow? ") {
		a.answered = true
		go func() { a.lines <- "n" }()
	}
	return len(p), nil
}

func (a *answeringTerminal) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.b.String()
}
