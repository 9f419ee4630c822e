package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// An answer sent twice for the first question of a shell line must not
// answer the second question, which the client has not seen: each
// approval_request is numbered within its call, and only the question
// waiting now can be answered.
func TestApproveAnswersOnlyTheWaitingQuestion(t *testing.T) {
	srv, err := fake.Start(fake.Script{Turns: []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"touch a && mkdir b"}`)}}},
		{Text: "done"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"),
		"WISP_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL()}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"]); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{AllowTools: []string{"bash"}, MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: "rpc", Events: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var (
		mu        sync.Mutex
		asks      []int
		parts     []string
		decisions []bool
		dupErr    error
	)
	defer s.Subscribe(func(e event.Event) {
		switch e := e.(type) {
		case event.ApprovalRequest:
			mu.Lock()
			asks = append(asks, e.Ask)
			parts = append(parts, e.Part)
			mu.Unlock()
			if e.Ask == 1 {
				// The client answers yes, and (a double click) again.
				if err := s.Approve(e.CallID, 0, true, approval.ScopeOnce, ""); err != nil {
					t.Errorf("first answer: %v", err)
				}
				err := s.Approve(e.CallID, 1, true, approval.ScopeOnce, "")
				mu.Lock()
				dupErr = err
				mu.Unlock()
				return
			}
			if err := s.Approve(e.CallID, e.Ask, false, approval.ScopeOnce, "not b"); err != nil {
				t.Errorf("answer to question %d: %v", e.Ask, err)
			}
		case event.ApprovalDecision:
			mu.Lock()
			decisions = append(decisions, e.Approved)
			mu.Unlock()
		}
	})()
	if _, err := s.Prompt(context.Background(), "touch them"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asks) != 2 || asks[0] != 1 || asks[1] != 2 {
		t.Fatalf("questions numbered %v, want [1 2]", asks)
	}
	if len(parts) != 2 || parts[0] != "touch a" || parts[1] != "mkdir b" {
		t.Errorf("the questions name the parts %q, want [touch a, mkdir b]", parts)
	}
	if len(decisions) != 2 || !decisions[0] || decisions[1] {
		t.Errorf("decisions %v: the second question must end as the client answered it (no)", decisions)
	}
	if !errors.Is(dupErr, ErrNoApproval) {
		t.Errorf("a second answer to question 1 was taken: %v", dupErr)
	}
}
