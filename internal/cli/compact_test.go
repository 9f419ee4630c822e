package cli

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// TestInteractiveCompact: /compact with instructions asks the model for
// a summary and the next prompt goes out from it, without the older
// turns; /help names the command.
func TestInteractiveCompact(t *testing.T) {
	bin := wispBinary(t)
	srv, err := fake.Start(fake.Script{Turns: []fake.Turn{
		{Text: "answer one"}, {Text: "answer two"}, {Text: "## Goal\nSUMMARY-TEXT"}, {Text: "answer three"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w := newSignalWorld(t, bin, nil)
	w.env = append(w.env, "ANTHROPIC_BASE_URL="+srv.URL(), "WISP_TRUST=0")
	master, screen, exited, cmd := w.startOnTerminal(t)
	steps := []struct{ typed, want string }{
		{"OLDEST-QUESTION", "answer one"},
		{"LATEST-QUESTION", "answer two"},
		{"/compact keep the port numbers", "wisp: compacted the conversation (as asked): 2 messages summarised, the latest turn kept as it was"},
		{"NEXT-QUESTION", "answer three"},
		{"/help", "/compact [instructions]"},
		{"/mcp", "no MCP servers are configured"},
	}
	for _, st := range steps {
		io.WriteString(master, st.typed+"\n")
		// Done once the answer is out and the prompt is back: a line
		// typed while the turn runs would steer it instead.
		done := func() bool {
			_, after, ok := strings.Cut(screen.String(), st.want)
			return ok && strings.Contains(after, "› ")
		}
		deadline := time.Now().Add(20 * time.Second)
		for !done() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !done() {
			cmd.Process.Kill()
			t.Fatalf("after %q the screen lacks %q:\n%s", st.typed, st.want, screen.String())
		}
	}
	io.WriteString(master, "/exit\n")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("wisp: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("wisp did not exit")
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	summary, next := string(reqs[2].Body), string(reqs[3].Body)
	if !strings.Contains(summary, "Also: keep the port numbers") || !strings.Contains(summary, "OLDEST-QUESTION") || strings.Contains(summary, `"tools"`) {
		t.Errorf("the summary request:\n%s", summary)
	}
	if !strings.Contains(next, "SUMMARY-TEXT") || !strings.Contains(next, "LATEST-QUESTION") || strings.Contains(next, "OLDEST-QUESTION") {
		t.Errorf("the request after /compact:\n%s", next)
	}
}
