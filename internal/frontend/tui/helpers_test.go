package tui

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/transcript"
)

var update = flag.Bool("update", false, "rewrite the golden frames under testdata/")

// fakeSession records what the screen asks of it.
type fakeSession struct {
	mu        sync.Mutex
	prompts   []string
	steers    []string
	follows   []string
	cancelled int
	dropped   []string
	model     string
	calls     []string
	forked    int
	compacted []string
	saved     []chat.Message
	// block, when set, holds Prompt until it is closed or the context
	// ends.
	block chan struct{}
}

func (f *fakeSession) Prompt(ctx context.Context, text string) (chat.Message, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, text)
	b := f.block
	f.mu.Unlock()
	if b != nil {
		select {
		case <-b:
		case <-ctx.Done():
			return chat.Message{}, ctx.Err()
		}
	}
	return chat.Message{}, nil
}

func (f *fakeSession) Steer(text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.steers = append(f.steers, text)
	return nil
}

func (f *fakeSession) FollowUp(text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.follows = append(f.follows, text)
	return nil
}

func (f *fakeSession) Cancel() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled++
	d := f.dropped
	f.dropped = nil
	return d
}

func (f *fakeSession) Queued() host.Queue {
	f.mu.Lock()
	defer f.mu.Unlock()
	return host.Queue{Steer: append([]string{}, f.steers...), FollowUp: append([]string{}, f.follows...)}
}

func (f *fakeSession) Compact(_ context.Context, instructions string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.compacted = append(f.compacted, instructions)
	return nil
}

func (f *fakeSession) SetModel(name string) error { f.model = name; return nil }
func (f *fakeSession) Provider() (string, string) { return "fake", "fake-model" }
func (f *fakeSession) ID() string                 { return "0123456789abcdef" }
func (f *fakeSession) Tools() []tool.Spec {
	return []tool.Spec{{Name: "bash", Class: tool.Command, Description: "run a shell command"}, {Name: "read", Class: tool.Read, Description: "read a file"}}
}
func (f *fakeSession) MCPStatus() []mcp.Status        { return nil }
func (f *fakeSession) InspectApprovals() string       { return "no remembered approvals\n" }
func (f *fakeSession) InspectStatus() string          { return "wisp x\nsandbox: landlock abi 7\n" }
func (f *fakeSession) InitAgentsMD() string           { return "wrote AGENTS.md" }
func (f *fakeSession) Saved() ([]chat.Message, error) { return f.saved, nil }
func (f *fakeSession) Sessions() ([]transcript.Summary, error) {
	return []transcript.Summary{{ID: "feedbeef", Time: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Messages: 4, FirstPrompt: "fix the build"}}, nil
}
func (f *fakeSession) Fork(before int) (string, error) { f.forked = before; return "newid", nil }
func (f *fakeSession) CallTool(_ context.Context, name string, args json.RawMessage) (tool.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, name+" "+string(args))
	return tool.Result{Content: "exit_code: 0\nstdout:\nhello\n"}, nil
}
func (f *fakeSession) RunTyped(ctx context.Context, line string) (tool.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "typed "+line)
	return tool.Result{Content: "exit_code: 0\nstdout:\nhello\n"}, nil
}
func (f *fakeSession) TranscriptBroken() bool { return false }
func (f *fakeSession) Failed() string         { return "" }

// fixedNow is the clock of every test screen.
var fixedNow = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// testModel is a screen of width×height on f, its clock stopped.
func testModel(t testing.TB, f *fakeSession, width, height int, noColor bool) *Model {
	t.Helper()
	home := t.TempDir()
	m := newModel(context.Background(), f, Config{Workdir: t.TempDir(), WispHome: home, NoColor: noColor, Window: 200000,
		Options: host.Options{Model: "fake-model"}, Sys: host.IO{Getenv: func(k string) string {
			switch k {
			case "HOME":
				return home
			case "WISP_HOME":
				return filepath.Join(home, ".wisp")
			}
			return ""
		}}})
	m.now = func() time.Time { return fixedNow }
	m.Update(tea.WindowSizeMsg{Width: width, Height: height})
	return m
}

// run feeds msg to the screen and then what its commands produce, as
// the program would; commands that do not finish within a moment (the
// spinner's tick, a dialog's wait) are left. It says whether the screen
// asked to quit.
func run(m *Model, msg tea.Msg) (quit bool) {
	_, cmd := m.Update(msg)
	drain(m, cmd, 0, &quit)
	return quit
}

func drain(m *Model, cmd tea.Cmd, depth int, quit *bool) {
	if cmd == nil || depth > 20 {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(150 * time.Millisecond):
		return
	}
	switch msg := msg.(type) {
	case nil, tickMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c, depth+1, quit)
		}
	case tea.QuitMsg:
		*quit = true
	default:
		_, next := m.Update(msg)
		drain(m, next, depth+1, quit)
	}
}

// typeText types s key by key.
func typeText(m *Model, s string) {
	for _, r := range s {
		run(m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func press(m *Model, code rune, mod tea.KeyMod) bool {
	return run(m, tea.KeyPressMsg{Code: code, Mod: mod})
}

// golden compares a frame with testdata/NAME.golden; -update rewrites
// it. Escapes are stored as ␛ so that the file reads in an editor.
func golden(t *testing.T, name, frame string) {
	t.Helper()
	got := strings.ReplaceAll(frame, "\x1b", "␛") + "\n"
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the golden frame (go test -update writes it): %v", err)
	}
	if got != string(want) {
		t.Errorf("frame %s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}
