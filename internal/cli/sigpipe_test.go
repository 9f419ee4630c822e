package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// TestClosedStdoutLosesNothing: the reader of --mode json's stdout goes
// away while a command runs (`| head -1`, a client that crashed). wisp
// is not killed by SIGPIPE at its next write: the finished command's
// result is in the transcript, and the run ends as usual.
func TestClosedStdoutLosesNothing(t *testing.T) {
	bin := wispBinary(t)
	for _, mode := range []string{"json", "rpc"} {
		t.Run(mode, func(t *testing.T) {
			w := newSignalWorld(t, bin, []fake.Turn{
				{Text: "Working.", ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"touch started; sleep 1; touch finished"}`)}}},
				{Text: "done"},
			})
			args := []string{"-p", "go", "--mode", "json", "--allow-tool", "bash", "--yes"}
			if mode == "rpc" {
				args = []string{"--mode", "rpc", "--yes"}
			}
			cmd := w.command(t, args...)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if mode == "rpc" {
				in, err := cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				defer in.Close()
				go in.Write([]byte(`{"id":"1","type":"prompt","message":"go"}` + "\n"))
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Read one line, then go away.
			if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			out.Close()
			w.waitFile(t, "finished", exited, &strings.Builder{})
			if mode == "rpc" {
				// The run goes on to its end, then stdin's end closes the session.
				time.Sleep(500 * time.Millisecond)
				cmd.Process.Signal(os.Interrupt)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("wisp did not end")
			}
			files, _ := filepath.Glob(filepath.Join(w.home, ".wisp", "sessions", "*", "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("transcripts: %q", files)
			}
			data, _ := os.ReadFile(files[0])
			if !strings.Contains(string(data), `"tool_result"`) {
				t.Errorf("the finished command's result is not in the transcript:\n%s", data)
			}
			if mode == "json" && !strings.Contains(string(data), `"agent_end"`) {
				t.Errorf("the run did not end in the transcript:\n%s", data)
			}
		})
	}
}
