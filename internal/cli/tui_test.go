package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/provider/fake"
)

// tmuxScreen is the real wisp binary on the full screen, in a tmux of
// its own: keys go in with send-keys, the screen comes out with
// capture-pane.
type tmuxScreen struct {
	t    *testing.T
	sock string
}

func (s *tmuxScreen) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxScreen) screen() string { return s.tmux("capture-pane", "-p", "-t", "wisp") }

// send types text literally, then presses the named keys.
func (s *tmuxScreen) send(text string, keys ...string) {
	s.t.Helper()
	if text != "" {
		s.tmux("send-keys", "-t", "wisp", "-l", text)
	}
	if len(keys) > 0 {
		s.tmux(append([]string{"send-keys", "-t", "wisp"}, keys...)...)
	}
}

// waitFor waits until the screen shows want, or until done says true.
func (s *tmuxScreen) waitFor(what string, done func(screen string) bool) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := s.screen()
		if done(scr) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %s:\n%s", what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *tmuxScreen) waitText(want string) {
	s.t.Helper()
	s.waitFor(strconvQuote(want), func(scr string) bool { return strings.Contains(scr, want) })
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestFullScreenEndToEnd runs wisp on the full screen against the fake
// provider: the trust question is answered, an approval dialog allows a
// command, a steer typed while the command runs reaches the model right
// after the call's result, a second dialog allows a write; then the
// file is on disk and the transcript holds the steer.
func TestFullScreenEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is needed for the full-screen test (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
	bin := wispBinary(t)
	srv, err := fake.Start(fake.Script{Turns: []fake.Turn{
		{Text: "Starting.", ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(`{"command":"touch started; sleep 3"}`)}}},
		{Text: "Writing the file.", ToolCalls: []fake.ToolCall{{Name: "write", Input: json.RawMessage(`{"path":"hello.txt","content":"hello from wisp\n"}`)}}},
		{Text: "All **done**."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	base := t.TempDir()
	home, work := filepath.Join(base, "home"), filepath.Join(base, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exitFile := filepath.Join(base, "exit")
	script := "#!/bin/sh\ncd " + shellQuote(work) + "\nenv -i PATH=\"$PATH\" HOME=" + shellQuote(home) +
		" WISP_HOME=" + shellQuote(filepath.Join(home, ".wisp")) + " WISP_PROVIDER=anthropic ANTHROPIC_API_KEY=test-key" +
		" ANTHROPIC_BASE_URL=" + shellQuote(srv.URL()) + " TERM=xterm-256color " + shellQuote(bin) + " 2>" + shellQuote(filepath.Join(base, "stderr")) +
		"\necho $? > " + shellQuote(exitFile) + "\nsleep 60\n"
	runSh := filepath.Join(base, "run.sh")
	if err := os.WriteFile(runSh, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &tmuxScreen{t: t, sock: filepath.Join(base, "tmux.sock")}
	s.tmux("new-session", "-d", "-s", "wisp", "-x", "100", "-y", "30", runSh)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })

	s.waitText("Do you trust the files in " + work + "? [y/n]")
	s.send("y")
	s.waitText("Ask wisp")
	s.send("please start", "Enter")
	s.waitText("Approval needed: bash")
	s.waitText("touch started; sleep 3")
	s.send("y")
	waitForFile(t, filepath.Join(work, "started"))
	s.send("look at the README too", "Enter")
	s.waitText("Approval needed: write")
	s.send("y")
	s.waitText("All done.")
	s.send("/quit", "Enter")
	s.waitFor("wisp's exit", func(string) bool { _, err := os.Stat(exitFile); return err == nil })

	if code, _ := os.ReadFile(exitFile); strings.TrimSpace(string(code)) != "0" {
		stderr, _ := os.ReadFile(filepath.Join(base, "stderr"))
		t.Fatalf("exit code %s; stderr:\n%s", code, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(work, "hello.txt")); err != nil || string(got) != "hello from wisp\n" {
		t.Errorf("hello.txt: %q, %v", got, err)
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
	transcripts, _ := filepath.Glob(filepath.Join(home, ".wisp", "sessions", "*", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(home, ".wisp", "sessions", "*.jsonl"))
	transcripts = append(transcripts, more...)
	if len(transcripts) != 1 {
		t.Fatalf("transcripts %q, want one", transcripts)
	}
	tr, _ := os.ReadFile(transcripts[0])
	for _, want := range []string{"please start", "look at the README too", "hello.txt", "All **done**."} {
		if !strings.Contains(string(tr), want) {
			t.Errorf("the transcript lacks %q", want)
		}
	}
	if trusted, _ := os.ReadFile(filepath.Join(home, ".wisp", "trust.json")); !strings.Contains(string(trusted), work) {
		t.Errorf("the trust answer was not kept: %s", trusted)
	}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
