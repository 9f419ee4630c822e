package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// TestInteractiveSteering: in line mode, a line typed while a call runs
// steers the turn (it reaches the model in the very next request, after
// the call's result), /followup queues a prompt that runs once the turn
// is done, a command such as /exit waits for both, and an approval
// question still takes the typed answer.
func TestInteractiveSteering(t *testing.T) {
	bin := wispBinary(t)
	srv, err := fake.Start(fake.Script{Turns: []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"touch started; sleep 2"}`)}}},
		{Text: "steered answer"},
		{Text: "follow-up answer"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w := newSignalWorld(t, bin, nil)
	w.env = append(w.env, "ANTHROPIC_BASE_URL="+srv.URL(), "WISP_TRUST=0")
	master, screen, exited, cmd := w.startOnTerminal(t, "start")
	w.waitFile(t, "started", exited, screen)
	// /exit typed while the call runs waits for the turn and its
	// follow-up; it is neither dropped nor sent to the model.
	io.WriteString(master, "look at the README too\n/followup now summarise\n/exit\n")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("wisp: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("wisp did not exit")
	}
	out := screen.String()
	for _, want := range []string{"(steering: sent to the model after the running step)", "(queued: runs once this turn is done)", "› now summarise", "steered answer", "follow-up answer", "(command: runs once this turn is done"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	second := string(reqs[1].Body)
	res, steer := strings.Index(second, `"tool_result"`), strings.Index(second, "look at the README too")
	if res < 0 || steer < res {
		t.Errorf("the steer is not right after the call's result in the next request:\n%s", second)
	}
	if !strings.Contains(string(reqs[2].Body), "now summarise") {
		t.Errorf("the follow-up did not run as the third request")
	}
	if _, err := os.Stat(filepath.Join(w.work, "started")); err != nil {
		t.Error("the approved command did not run")
	}
}
