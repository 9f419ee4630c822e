package frontend

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/shell"
)

// terminal plays the person: each time a question ends (a write ending in
// ": " after "Allow? "), it types the next scripted answer. When the
// script runs out it closes the input if closeAtEnd, or calls onDry.
type terminal struct {
	mu         sync.Mutex
	out        strings.Builder
	answers    []string
	in         chan string
	closeAtEnd bool
	onDry      func()
	asked      int
}

func newTerminal(answers ...string) *terminal {
	return &terminal{answers: answers, in: make(chan string, 16)}
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out.Write(p)
	s := string(p)
	if !strings.Contains(s, "Allow? ") || !strings.HasSuffix(s, ": ") {
		return len(p), nil
	}
	t.asked++
	switch {
	case len(t.answers) > 0:
		t.in <- t.answers[0]
		t.answers = t.answers[1:]
	case t.closeAtEnd:
		close(t.in)
	case t.onDry != nil:
		t.onDry()
	}
	return len(p), nil
}

func (t *terminal) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

func testCtx(t *testing.T) context.Context {
	// A backstop so a broken Prompt fails instead of hanging; no test
	// expects to reach it.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var moderateReq = ApprovalQuestion{
	Tool:    "bash",
	Line:    "git status && git push origin main",
	Part:    "git push origin main",
	Level:   shell.Moderate,
	Reasons: []string{"publishes commits to a remote"},
	Pattern: "git push",
}

func TestPromptAnswers(t *testing.T) {
	dangerous := moderateReq
	dangerous.Level = shell.Dangerous
	tests := []struct {
		name    string
		req     ApprovalQuestion
		answers []string
		want    ApprovalAnswer
		asked   int
	}{
		{"y", moderateReq, []string{"y"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeOnce}, 1},
		{"YES", moderateReq, []string{"YES"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeOnce}, 1},
		{"once", moderateReq, []string{" once "}, ApprovalAnswer{Allow: true, Scope: approval.ScopeOnce}, 1},
		{"s", moderateReq, []string{"s"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeSession}, 1},
		{"Session", moderateReq, []string{"Session"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeSession}, 1},
		{"p", moderateReq, []string{"P"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeProject}, 1},
		{"project", moderateReq, []string{"project"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeProject}, 1},
		{"a", moderateReq, []string{"a"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeAlways}, 1},
		{"always", moderateReq, []string{"ALWAYS"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeAlways}, 1},
		{"n", moderateReq, []string{"n"}, ApprovalAnswer{Reason: ReasonDenied}, 1},
		{"no", moderateReq, []string{"No"}, ApprovalAnswer{Reason: ReasonDenied}, 1},
		{"empty is no", moderateReq, []string{""}, ApprovalAnswer{Reason: ReasonDenied}, 1},
		{"n and a reason", moderateReq, []string{"n use rg instead"}, ApprovalAnswer{Reason: ReasonDenied, Note: "use rg instead"}, 1},
		{"no, and a reason", moderateReq, []string{"No, use  rg\tinstead "}, ApprovalAnswer{Reason: ReasonDenied, Note: "use rg instead"}, 1},
		{"n: reason", moderateReq, []string{"n: not on main"}, ApprovalAnswer{Reason: ReasonDenied, Note: "not on main"}, 1},
		{"no with only punctuation is a plain no", moderateReq, []string{"no,"}, ApprovalAnswer{Reason: ReasonDenied}, 1},
		{"dangerous n and a reason", dangerous, []string{"n push to a branch"}, ApprovalAnswer{Reason: ReasonDenied, Note: "push to a branch"}, 1},
		{"a yes takes no reason", moderateReq, []string{"y because", "nope", "n"}, ApprovalAnswer{Reason: ReasonDenied}, 3},
		{"control characters in a reason", moderateReq, []string{"n a\x1b[2Jb"}, ApprovalAnswer{Reason: ReasonDenied, Note: "a [2Jb"}, 1},
		{"garbage asks again", moderateReq, []string{"maybe", "yess", "s"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeSession}, 3},
		{"dangerous once", dangerous, []string{"y"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeOnce}, 1},
		{"dangerous refuses session", dangerous, []string{"s", "y"}, ApprovalAnswer{Allow: true, Scope: approval.ScopeOnce}, 2},
		{"dangerous refuses project", dangerous, []string{"p", "always", "n"}, ApprovalAnswer{Reason: ReasonDenied}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerminal(tt.answers...)
			got, err := AskApproval(testCtx(t), term.in, term, tt.req)
			if err != nil {
				t.Fatalf("Prompt: %v", err)
			}
			if got != tt.want {
				t.Errorf("Prompt = %+v, want %+v\n%s", got, tt.want, term.text())
			}
			if term.asked != tt.asked {
				t.Errorf("asked %d times, want %d\n%s", term.asked, tt.asked, term.text())
			}
		})
	}
}

func TestPromptShowsRequest(t *testing.T) {
	dangerous := moderateReq
	dangerous.Level = shell.Dangerous
	whole := moderateReq
	whole.Part = whole.Line
	tests := []struct {
		name   string
		req    ApprovalQuestion
		want   []string
		absent []string
	}{
		{"moderate, part differs", moderateReq,
			[]string{
				"Approval needed: bash\n",
				"  line:     git status && git push origin main\n",
				"  command:  git push origin main\n",
				"  risk:     moderate (publishes commits to a remote)\n",
				"  covers:   git push\n",
				"Allow? [y]once [s]ession [p]roject 30d [a]lways 30d [n]o (n REASON tells the model why): ",
			}, nil},
		{"part same as line", whole, []string{"line:"}, []string{"command:"}},
		{"dangerous offers once only", dangerous,
			[]string{"risk:     dangerous", "Allow? [y]once [n]o (n REASON tells the model why): "}, []string{"[s]ession", "[p]roject", "[a]lways"}},
		{"terminal escapes are shown, not obeyed",
			ApprovalQuestion{Tool: "bash", Line: "echo ok\x1b[2K\rrm -rf ~ \u202e", Level: shell.Dangerous},
			[]string{`echo ok\x1b[2K\x0drm -rf ~ \u202e`}, []string{"\x1b", "\r", "\u202e"}},
		{"OSC, bell, backspace and C1 are shown",
			ApprovalQuestion{Tool: "bash", Line: "ls\x1b]52;c;cm0gLXJmIH4=\x07\b\u009b2J", Level: shell.Moderate},
			[]string{`ls\x1b]52;c;cm0gLXJmIH4=\x07\x08\x9b2J`}, []string{"\x1b", "\x07", "\b", "\u009b"}},
		{"multi-line line shows its newlines and stays indented",
			ApprovalQuestion{Tool: "bash", Line: "cat <<EOF\nhi\nEOF", Level: shell.Safe},
			[]string{"  line:     cat <<EOF\\n\n            hi\\n\n            EOF\n"}, nil},
		{"a hidden second command is visibly on its own line",
			ApprovalQuestion{Tool: "bash", Line: "ls\nrm -rf ~", Level: shell.Dangerous},
			[]string{`  line:     ls\n` + "\n" + `            rm -rf ~`}, nil},
		{"tool without part", ApprovalQuestion{Tool: "write", Line: "write internal/x.go (12 lines)", Level: shell.Moderate, Pattern: "tool:write"},
			[]string{"Approval needed: write", "covers:   tool:write"}, []string{"command:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerminal("n")
			if _, err := AskApproval(testCtx(t), term.in, term, tt.req); err != nil {
				t.Fatal(err)
			}
			out := term.text()
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Errorf("output has %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestPromptEndsWithoutAnswer(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, term *terminal) context.Context
		want  string
	}{
		{"deadline passes", func(t *testing.T, term *terminal) context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, ReasonTimeout},
		{"cancelled while asking", func(t *testing.T, term *terminal) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			term.onDry = cancel
			return ctx
		}, ReasonCancelled},
		{"deadline already passed", func(t *testing.T, term *terminal) context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			t.Cleanup(cancel)
			return ctx
		}, ReasonTimeout},
		{"input closed", func(t *testing.T, term *terminal) context.Context {
			term.closeAtEnd = true
			return context.Background()
		}, ReasonInputClosed},
		{"input closed after garbage", func(t *testing.T, term *terminal) context.Context {
			term.answers = []string{"what"}
			term.closeAtEnd = true
			return context.Background()
		}, ReasonInputClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerminal()
			ctx := tt.setup(t, term)
			got, err := AskApproval(ctx, term.in, term, moderateReq)
			if err != nil {
				t.Fatalf("Prompt: %v", err)
			}
			if got.Allow || got.Reason != tt.want {
				t.Errorf("Prompt = %+v, want a denial for %q\n%s", got, tt.want, term.text())
			}
		})
	}
}

func TestPromptIgnoresTypeAhead(t *testing.T) {
	term := newTerminal("n")
	term.in <- "a" // typed before the question appeared
	got, err := AskApproval(testCtx(t), term.in, term, moderateReq)
	if err != nil {
		t.Fatal(err)
	}
	if got.Allow {
		t.Fatalf("type-ahead approved the command: %+v", got)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("terminal gone") }

func TestPromptWriteError(t *testing.T) {
	in := make(chan string, 1)
	in <- "y"
	got, err := AskApproval(testCtx(t), in, failingWriter{}, moderateReq)
	if err == nil || got.Allow {
		t.Fatalf("Prompt = %+v, %v; want a denial and an error", got, err)
	}
}
