package sdk_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/sdk"
)

// open starts a session on the fake provider; it is closed with the test.
func open(t *testing.T, opts sdk.Options) *sdk.Session {
	t.Helper()
	var stderr bytes.Buffer
	if opts.Stderr == nil {
		opts.Stderr = &stderr
	}
	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	return s
}

func fakeFor(t *testing.T, turns ...fake.Turn) (sdk.Options, *fake.Server) {
	t.Helper()
	opts, srv, stop := fakeModel(turns...)
	t.Cleanup(stop)
	return opts, srv
}

// needSandbox stops a test that needs Landlock where it is missing: a
// failure under CI, a skip elsewhere.
func needSandbox(t *testing.T) {
	t.Helper()
	if _, ok := sandbox.Available(); ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Landlock is not available: the sandbox cannot be tested")
	}
	t.Skip("Landlock is not available here")
}

// A program that did not call Init cannot be the sandbox helper: its
// session refuses every command call with an error that says why, asks
// nobody, and runs nothing, unsandboxed or not.
func TestNoHelperRefusesCommands(t *testing.T) {
	restore := sdk.ActAsNonHelper()
	defer restore()
	opts, srv := fakeFor(t,
		fake.Turn{Text: "Writing.", ToolCalls: []fake.ToolCall{call("bash", `{"command":"touch made-by-bash"}`)}},
		fake.Turn{Text: "{{last_tool_result}}"},
	)
	opts.Tools = []string{"bash", "write"}
	asked := 0
	opts.Approver = func(context.Context, sdk.ApprovalRequest) sdk.Approval { asked++; return sdk.Approval{Allow: true} }
	var stderr bytes.Buffer
	opts.Stderr = &stderr
	s := open(t, opts)
	res, err := s.Prompt(context.Background(), "make a file")
	if err != nil {
		t.Fatalf("Prompt: %v", err)
	}
	const why = "command tools are refused: the sandbox helper cannot start (sdk.Init was not called first in main"
	if !strings.Contains(res.Text, why) {
		t.Errorf("the model was told %q, want it to contain %q", res.Text, why)
	}
	if !strings.Contains(stderr.String(), why) {
		t.Errorf("stderr %q does not warn %q", stderr.String(), why)
	}
	if asked != 0 {
		t.Errorf("the approver was asked %d times about a call that cannot run", asked)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, "made-by-bash")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// File tools need no helper: without Init they still work.
func TestNoHelperKeepsFileTools(t *testing.T) {
	restore := sdk.ActAsNonHelper()
	defer restore()
	opts, _ := fakeFor(t,
		fake.Turn{ToolCalls: []fake.ToolCall{call("write", `{"path":"a.txt","content":"x\n"}`)}},
		fake.Turn{Text: "{{last_tool_result}}"},
	)
	opts.Tools = []string{"write"}
	opts.Approver = func(context.Context, sdk.ApprovalRequest) sdk.Approval { return sdk.Approval{Allow: true} }
	s := open(t, opts)
	if _, err := s.Prompt(context.Background(), "write"); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(opts.Dir, "a.txt")); err != nil || string(data) != "x\n" {
		t.Errorf("a.txt = %q, %v", data, err)
	}
}

// An approved command from an embedding program is confined: it cannot
// write outside the workspace.
func TestBashIsSandboxed(t *testing.T) {
	needSandbox(t)
	home := os.Getenv("HOME")
	outside := filepath.Join(home, "escaped")
	opts, _ := fakeFor(t,
		fake.Turn{ToolCalls: []fake.ToolCall{call("bash", `{"command":"touch `+outside+` inside"}`)}},
		fake.Turn{Text: "{{last_tool_result}}"},
	)
	opts.Tools = []string{"bash"}
	opts.Approver = func(context.Context, sdk.ApprovalRequest) sdk.Approval { return sdk.Approval{Allow: true} }
	s := open(t, opts)
	res, err := s.Prompt(context.Background(), "escape")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a sandboxed command wrote %s (%v); it said %q", outside, err, res.Text)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, "inside")); err != nil {
		t.Errorf("the command did not write its workspace: %v; it said %q", err, res.Text)
	}
}

// Nothing of the embedder's ~/.wisp is read unless Home names it, and the
// private home goes with Close.
func TestPrivateHome(t *testing.T) {
	wispHome := filepath.Join(os.Getenv("HOME"), ".wisp")
	if err := os.MkdirAll(wispHome, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(wispHome) })
	// A settings file that would make the session fail were it read.
	if err := os.WriteFile(filepath.Join(wispHome, "settings.json"), []byte(`{"model": "not a model!"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, _ := fakeFor(t, fake.Turn{Text: "ok"})
	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		t.Fatalf("the default session read ~/.wisp: %v", err)
	}
	if _, err := s.Prompt(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(os.Getenv("HOME"), ".cache", "wisp-sdk-home-*"))
	if len(left) != 0 {
		t.Errorf("Close left the private home behind: %v", left)
	}
	opts.Home = wispHome
	if _, err := sdk.NewSession(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "not a model!") {
		t.Errorf("with Home set, its settings were not read: %v", err)
	}
}

// The API key goes to the provider and nowhere else; the process's key
// variables are not used.
func TestAPIKeyIsExplicit(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "from-the-environment")
	opts, srv := fakeFor(t, fake.Turn{Text: "ok"})
	opts.APIKey = "sk-explicit-key-0123456789"
	s := open(t, opts)
	if _, err := s.Prompt(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	var sent strings.Builder
	for name, vals := range srv.Requests()[0].Header {
		sent.WriteString(name + ": " + strings.Join(vals, ",") + "\n")
	}
	if !strings.Contains(sent.String(), opts.APIKey) || strings.Contains(sent.String(), "from-the-environment") {
		t.Errorf("the provider did not get the explicit key alone:\n%s", sent.String())
	}
}

// A follow-up queued during a run runs after it, before Prompt returns;
// a second Prompt while one runs is refused.
func TestFollowUpAndBusy(t *testing.T) {
	wait := gateTool{started: make(chan struct{}), release: make(chan struct{})}
	opts, _ := fakeFor(t,
		fake.Turn{ToolCalls: []fake.ToolCall{call("wait", `{}`)}},
		fake.Turn{Text: "first answer"},
		fake.Turn{Text: "follow-up answer"},
	)
	opts.Tools = []string{"wait"}
	opts.Extensions = func(api *sdk.ExtensionAPI) error { return api.RegisterTool(wait, nil) }
	s := open(t, opts)
	errs := make(chan error, 2)
	go func() {
		<-wait.started
		_, err := s.Prompt(context.Background(), "again")
		errs <- err
		errs <- s.FollowUp("and then this")
		close(wait.release)
	}()
	res, err := s.Prompt(context.Background(), "start")
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errs; !errors.Is(err, sdk.ErrBusy) {
		t.Errorf("a second Prompt while one runs: %v, want ErrBusy", err)
	}
	if err := <-errs; err != nil {
		t.Errorf("FollowUp: %v", err)
	}
	if res.Text != "follow-up answer" {
		t.Errorf("Prompt returned %q, want the follow-up's answer", res.Text)
	}
	if err := s.Steer("late"); !errors.Is(err, sdk.ErrIdle) {
		t.Errorf("Steer with no run: %v, want ErrIdle", err)
	}
}

// A reader that does not read does not hold the session up: Prompt
// returns, every event but the deltas arrives in order, and the deltas,
// coalesced, still carry the whole text.
func TestEventsSlowReader(t *testing.T) {
	words := strings.Repeat("word ", 3000)
	opts, _ := fakeFor(t,
		fake.Turn{Text: "Looking.", ToolCalls: []fake.ToolCall{call("ls", `{"path":"."}`)}},
		fake.Turn{Text: words},
	)
	opts.Tools = []string{"ls"}
	s := open(t, opts)
	events := s.Events()
	res, err := s.Prompt(context.Background(), "go") // nobody reads meanwhile
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var types []string
	var text strings.Builder
	deltas := 0
	for e := range events {
		if e, ok := e.(sdk.MessageDeltaEvent); ok {
			deltas++
			if e.Turn == 2 {
				text.WriteString(e.Delta)
			}
			continue
		}
		types = append(types, string(e.Kind()))
	}
	want := "agent_start message_end turn_start message_start message_end tool_call tool_execution_start tool_execution_end tool_result message_end turn_end turn_start message_start message_end turn_end agent_end"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if strings.TrimSpace(text.String()) != strings.TrimSpace(words) || res.Text != strings.TrimSpace(words) {
		t.Errorf("the deltas carry %d bytes, the answer %d; want %d", text.Len(), len(res.Text), len(strings.TrimSpace(words)))
	}
	if deltas >= 3000 {
		t.Errorf("%d deltas reached a reader that fell behind: none were coalesced", deltas)
	}
}

// Compact summarises the conversation with the model's help, keeping the
// latest prompt; with nothing to summarise it says so.
func TestCompact(t *testing.T) {
	opts, srv := fakeFor(t,
		fake.Turn{Text: "first answer"},
		fake.Turn{Text: "second answer"},
		fake.Turn{Text: "Goal: answer twice."},
	)
	s := open(t, opts)
	if err := s.Compact(context.Background(), ""); !errors.Is(err, sdk.ErrNothingToCompact) {
		t.Errorf("Compact of an empty conversation: %v, want ErrNothingToCompact", err)
	}
	for _, p := range []string{"first", "second"} {
		if _, err := s.Prompt(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Compact(context.Background(), "mention the answers"); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Body), "mention the answers") {
		t.Errorf("the summary request did not carry the instructions (%d requests)", len(reqs))
	}
	var all strings.Builder
	for _, m := range s.Messages() {
		all.WriteString(m.TextOf() + "\n")
	}
	if !strings.Contains(all.String(), "Goal: answer twice.") || strings.Contains(all.String(), "first answer") {
		t.Errorf("after Compact the conversation is:\n%s", all.String())
	}
}

// Close ends a run in flight and waits for it; the session then refuses
// more work.
func TestCloseEndsALiveRun(t *testing.T) {
	wait := gateTool{started: make(chan struct{}), release: make(chan struct{})}
	opts, _ := fakeFor(t, fake.Turn{ToolCalls: []fake.ToolCall{call("wait", `{}`)}}, fake.Turn{Text: "never"})
	opts.Tools = []string{"wait"}
	opts.Extensions = func(api *sdk.ExtensionAPI) error { return api.RegisterTool(wait, nil) }
	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := s.Prompt(context.Background(), "wait forever")
		ended <- err
	}()
	<-wait.started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("a run that Close ended reported no error")
		}
	default:
		t.Fatal("Close returned before the run it ended")
	}
	if _, err := s.Prompt(context.Background(), "more"); !errors.Is(err, sdk.ErrClosed) {
		t.Errorf("Prompt after Close: %v, want ErrClosed", err)
	}
}

func TestUnknownTool(t *testing.T) {
	opts, _ := fakeFor(t)
	opts.Tools = []string{"nope"}
	_, err := sdk.NewSession(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), `unknown tool "nope" in sdk.Options.Tools`) {
		t.Errorf("NewSession with an unknown tool: %v", err)
	}
}
