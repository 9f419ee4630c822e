package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/sdk"
)

// fakeModel starts the in-repo fake provider answering with turns, and a
// new workspace; opts point a session at both, and stop ends them.
func fakeModel(turns ...fake.Turn) (opts sdk.Options, srv *fake.Server, stop func()) {
	srv, err := fake.Start(fake.Script{Turns: turns})
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "wisp-sdk-work-")
	if err != nil {
		panic(err)
	}
	opts = sdk.Options{Provider: "anthropic", BaseURL: srv.URL(), APIKey: "test-key", Dir: dir}
	return opts, srv, func() { srv.Close(); os.RemoveAll(dir) }
}

func call(name, input string) fake.ToolCall {
	return fake.ToolCall{Name: name, Input: json.RawMessage(input)}
}

func ExampleNewSession() {
	opts, _, stop := fakeModel(fake.Turn{Text: "Hello from the model."})
	defer stop()

	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	res, err := s.Prompt(context.Background(), "Say hello.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
	fmt.Println(res.SessionID != "", res.Usage.OutputTokens > 0)
	// Output:
	// Hello from the model.
	// true true
}

// A bash call from an embedding program runs in wisp's sandbox, whose
// helper is this program itself: its main calls sdk.Init first (here
// TestMain does). The line is not safe, so the Approver is asked.
func ExampleInit() {
	opts, _, stop := fakeModel(
		fake.Turn{Text: "Writing the note.", ToolCalls: []fake.ToolCall{call("bash", `{"command":"echo sandboxed > note.txt && cat note.txt"}`)}},
		fake.Turn{Text: "bash said: {{last_tool_result}}"},
	)
	defer stop()
	opts.Tools = []string{"bash"}
	opts.Approver = func(_ context.Context, req sdk.ApprovalRequest) sdk.Approval {
		fmt.Printf("approve %s %q (%s)? yes\n", req.Tool, req.Subject, req.Level)
		return sdk.Approval{Allow: true}
	}

	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	res, err := s.Prompt(context.Background(), "Write a note.")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
	// Output:
	// approve bash "echo sandboxed > note.txt && cat note.txt" (moderate)? yes
	// bash said: exit_code: 0
	// stdout:
	// sandboxed
}

// gateTool is a read-class extension tool that blocks until it is let go,
// so that the example can steer while a call is in flight.
type gateTool struct{ started, release chan struct{} }

func (gateTool) Spec() sdk.Spec {
	return sdk.Spec{Name: "wait", Description: "Waits for the build.", Class: sdk.Read, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (g gateTool) Run(ctx context.Context, _ *sdk.Env, _ json.RawMessage) (sdk.ToolResult, error) {
	close(g.started)
	select {
	case <-g.release:
		return sdk.ToolResult{Content: "the build is green"}, nil
	case <-ctx.Done():
		return sdk.ToolResult{}, ctx.Err()
	}
}

// A steering message sent while a tool call runs reaches the model right
// after that call's result, in the same request.
func ExampleSession_Steer() {
	opts, _, stop := fakeModel(
		fake.Turn{Text: "Waiting for the build.", ToolCalls: []fake.ToolCall{call("wait", `{}`)}},
		fake.Turn{Text: "The build is green; releasing now."},
	)
	defer stop()
	wait := gateTool{started: make(chan struct{}), release: make(chan struct{})}
	opts.Tools = []string{"wait"}
	opts.Extensions = func(api *sdk.ExtensionAPI) error { return api.RegisterTool(wait, nil) }

	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	go func() {
		<-wait.started
		if err := s.Steer("Release once it is green."); err != nil {
			fmt.Println(err)
		}
		close(wait.release)
	}()
	if _, err := s.Prompt(context.Background(), "Wait for the build."); err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range s.Messages() {
		var parts []string
		for _, b := range m.Content {
			switch b.Type {
			case sdk.BlockText:
				parts = append(parts, fmt.Sprintf("%q", b.Text))
			case sdk.BlockToolUse:
				parts = append(parts, "call "+b.Name)
			case sdk.BlockToolResult:
				parts = append(parts, fmt.Sprintf("result %q", b.Text))
			}
		}
		fmt.Printf("%s: %s\n", m.Role, strings.Join(parts, ", "))
	}
	// Output:
	// user: "Wait for the build."
	// assistant: "Waiting for the build.", call wait
	// user: result "the build is green", "Release once it is green."
	// assistant: "The build is green; releasing now."
}

// Events shows a run as it happens; a reader that falls behind gets
// message deltas joined, and every other event.
func ExampleSession_Events() {
	opts, _, stop := fakeModel(
		fake.Turn{Text: "Looking.", ToolCalls: []fake.ToolCall{call("ls", `{"path":"."}`)}},
		fake.Turn{Text: "Nothing here yet."},
	)
	defer stop()
	opts.Tools = []string{sdk.ToolsRead}

	s, err := sdk.NewSession(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	events := s.Events()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			switch e := e.(type) {
			case sdk.MessageDeltaEvent, sdk.MessageEndEvent:
			case sdk.ToolResultEvent:
				fmt.Println(e.Kind(), e.Tool, e.Outcome)
			default:
				fmt.Println(e.Kind())
			}
		}
	}()
	if _, err := s.Prompt(context.Background(), "What is here?"); err != nil {
		fmt.Println(err)
	}
	s.Close()
	<-done
	// Output:
	// agent_start
	// turn_start
	// message_start
	// tool_call
	// tool_execution_start
	// tool_execution_end
	// tool_result ls ok
	// turn_end
	// turn_start
	// message_start
	// turn_end
	// agent_end
}
