package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
)

func TestInputSendsAndEdits(t *testing.T) {
	tests := []struct {
		name string
		do   func(m *Model)
		want []string // prompts sent
	}{
		{"enter sends the prompt", func(m *Model) {
			typeText(m, "hello")
			press(m, tea.KeyEnter, 0)
		}, []string{"hello"}},
		{"a bracketed paste is one prompt", func(m *Model) {
			run(m, tea.PasteMsg{Content: "line one\nline two\nline three"})
			press(m, tea.KeyEnter, 0)
		}, []string{"line one\nline two\nline three"}},
		{"shift+enter and alt+enter start a new line", func(m *Model) {
			typeText(m, "a")
			press(m, tea.KeyEnter, tea.ModShift)
			typeText(m, "b")
			press(m, tea.KeyEnter, tea.ModAlt)
			typeText(m, "c")
			press(m, tea.KeyEnter, 0)
		}, []string{"a\nb\nc"}},
		{"an empty line sends nothing", func(m *Model) {
			press(m, tea.KeyEnter, 0)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeSession{}
			m := testModel(t, f, 80, 24, true)
			tt.do(m)
			if !slices.Equal(f.prompts, tt.want) {
				t.Errorf("prompts %q, want %q", f.prompts, tt.want)
			}
		})
	}
}

func TestHistoryIsKeptPerProjectAcrossSessions(t *testing.T) {
	f := &fakeSession{}
	m := testModel(t, f, 80, 24, true)
	for _, p := range []string{"first", "second"} {
		typeText(m, p)
		press(m, tea.KeyEnter, 0)
	}
	// A new screen on the same project and wisp home.
	m2 := newModel(context.Background(), f, m.conf)
	m2.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	typeText(m2, "draft")
	press(m2, tea.KeyUp, 0)
	if v := m2.input.Value(); v != "second" {
		t.Fatalf("↑ gives %q, want the last prompt", v)
	}
	press(m2, tea.KeyUp, 0)
	if v := m2.input.Value(); v != "first" {
		t.Fatalf("↑↑ gives %q", v)
	}
	press(m2, tea.KeyDown, 0)
	press(m2, tea.KeyDown, 0)
	if v := m2.input.Value(); v != "draft" {
		t.Fatalf("↓ back past the newest gives %q, want the draft", v)
	}
	// Another project has its own history.
	other := m.conf
	other.Workdir = t.TempDir()
	m3 := newModel(context.Background(), f, other)
	press(m3, tea.KeyUp, 0)
	if v := m3.input.Value(); v != "" {
		t.Fatalf("another project recalls %q", v)
	}
}

// busyModel is a screen whose turn runs until the test ends it.
func busyModel(t *testing.T) (*Model, *fakeSession) {
	f := &fakeSession{block: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-f.block:
		default:
			close(f.block)
		}
	})
	m := testModel(t, f, 80, 24, true)
	typeText(m, "work")
	press(m, tea.KeyEnter, 0)
	if !m.busy {
		t.Fatal("the turn did not start")
	}
	return m, f
}

func TestWhileWorking(t *testing.T) {
	t.Run("enter steers and shows it pending", func(t *testing.T) {
		m, f := busyModel(t)
		typeText(m, "use rg")
		press(m, tea.KeyEnter, 0)
		if !slices.Equal(f.steers, []string{"use rg"}) {
			t.Fatalf("steers %q", f.steers)
		}
		if fr := ansi.Strip(m.Frame()); !strings.Contains(fr, "steer (pending): use rg") || !strings.Contains(fr, "queue 1") {
			t.Fatalf("the steer is not shown pending:\n%s", fr)
		}
		// The session takes it at the next boundary.
		f.mu.Lock()
		f.steers = nil
		f.mu.Unlock()
		run(m, toolResultMsg{id: "c1", tool: "bash", mark: "✓"})
		if fr := ansi.Strip(m.Frame()); strings.Contains(fr, "(pending)") || !strings.Contains(fr, "› use rg") {
			t.Fatalf("the taken steer is not in the conversation:\n%s", fr)
		}
	})
	t.Run("/followup queues a follow-up", func(t *testing.T) {
		m, f := busyModel(t)
		typeText(m, "/followup then test")
		press(m, tea.KeyEnter, 0)
		if !slices.Equal(f.follows, []string{"then test"}) {
			t.Fatalf("follow-ups %q", f.follows)
		}
		if !strings.Contains(ansi.Strip(m.Frame()), "follow-up (pending): then test") {
			t.Fatalf("not shown pending:\n%s", m.Frame())
		}
	})
	t.Run("/quit cancels the turn and leaves once it has ended", func(t *testing.T) {
		m, f := busyModel(t)
		typeText(m, "/quit")
		m.compl = completion{}
		if press(m, tea.KeyEnter, 0) {
			t.Fatal("quit before the turn ended")
		}
		if f.cancelled != 1 {
			t.Fatal("the turn was not cancelled")
		}
		if !run(m, turnDoneMsg{cancelled: true}) || m.end.reason != "exit" {
			t.Fatalf("did not quit once the turn ended (end %+v)", m.end)
		}
	})
	t.Run("esc cancels and gives back what waited", func(t *testing.T) {
		m, f := busyModel(t)
		f.dropped = []string{"a steer not sent"}
		press(m, tea.KeyEscape, 0)
		if f.cancelled != 1 {
			t.Fatalf("Cancel called %d times", f.cancelled)
		}
		if v := m.input.Value(); v != "a steer not sent" {
			t.Fatalf("the dropped steer is not back in the input: %q", v)
		}
	})
}

func TestCtrlC(t *testing.T) {
	t.Run("once cancels the turn, twice within 1.5s quits", func(t *testing.T) {
		m, f := busyModel(t)
		if press(m, 'c', tea.ModCtrl) {
			t.Fatal("one Ctrl+C quit")
		}
		if f.cancelled != 1 {
			t.Fatal("one Ctrl+C did not cancel the turn")
		}
		m.now = func() time.Time { return fixedNow.Add(time.Second) }
		if !press(m, 'c', tea.ModCtrl) || m.end.reason != "interrupted" {
			t.Fatalf("a second Ctrl+C within 1.5s did not quit (end %+v)", m.end)
		}
	})
	t.Run("two far apart do not quit", func(t *testing.T) {
		m := testModel(t, &fakeSession{}, 80, 24, true)
		press(m, 'c', tea.ModCtrl)
		m.now = func() time.Time { return fixedNow.Add(2 * time.Second) }
		if press(m, 'c', tea.ModCtrl) {
			t.Fatal("Ctrl+C 2s apart quit")
		}
	})
}

// ask opens the approval dialog for req and returns where the answer
// goes.
func ask(m *Model, req gate.Request) chan gate.Answer {
	reply := make(chan gate.Answer, 1)
	ctx, cancel := context.WithCancel(context.Background())
	_ = cancel
	m.Update(askMsg{req: req, reply: reply, ctx: ctx})
	return reply
}

func TestApprovalDialog(t *testing.T) {
	moderate := gate.Request{Tool: "bash", Class: tool.Command, Subject: "git push", Part: "git push", Level: shell.Moderate, Reasons: []string{"reaches the network"}, Pattern: "git push"}
	dangerousReq := gate.Request{Tool: "bash", Class: tool.Command, Subject: "rm -rf /", Level: shell.Dangerous, Reasons: []string{"deletes"}}
	tests := []struct {
		name  string
		req   gate.Request
		keys  string
		allow bool
		scope approval.Scope
	}{
		{"y allows once", moderate, "y", true, approval.ScopeOnce},
		{"s for the session", moderate, "s", true, approval.ScopeSession},
		{"p for the project", moderate, "p", true, approval.ScopeProject},
		{"a always", moderate, "a", true, approval.ScopeAlways},
		{"n says no", moderate, "n", false, ""},
		{"other keys do nothing", moderate, "xq!y", true, approval.ScopeOnce},
		{"a dangerous line offers no remembered scope", dangerousReq, "spay", true, approval.ScopeOnce},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testModel(t, &fakeSession{}, 80, 24, true)
			reply := ask(m, tt.req)
			typeText(m, tt.keys)
			select {
			case a := <-reply:
				if a.Allow != tt.allow || a.Scope != tt.scope {
					t.Errorf("answer %+v, want allow %v scope %q", a, tt.allow, tt.scope)
				}
			default:
				t.Fatal("no answer")
			}
			if m.input.Value() != "" {
				t.Errorf("keys reached the input while the dialog was open: %q", m.input.Value())
			}
			if len(m.dialogs) != 0 {
				t.Error("the dialog stayed open")
			}
		})
	}
}

func TestDialogShowsControlCharacters(t *testing.T) {
	m := testModel(t, &fakeSession{}, 80, 24, true)
	ask(m, gate.Request{Tool: "bash", Class: tool.Command, Subject: "ls\x1b[8m\rrm -rf ~", Level: shell.Dangerous, Reasons: []string{"deletes files"}})
	fr := m.Frame()
	if !strings.Contains(fr, `ls\x1b[8m\x0drm -rf ~`) {
		t.Errorf("the line is not shown with its escapes visible:\n%s", fr)
	}
	if strings.Contains(fr, "[s]ession") || !strings.Contains(fr, "[y]once") {
		t.Errorf("a dangerous line offers the wrong scopes:\n%s", fr)
	}
	if strings.Contains(fr, "\r") || strings.Contains(fr, "\x1b[8m") {
		t.Errorf("a raw control sequence reached the frame: %q", fr)
	}
}

func TestNoRawEscapesFromModelOrTools(t *testing.T) {
	m := testModel(t, &fakeSession{}, 80, 24, false)
	nasty := "hi\x1b]52;c;AAAA\x07 \x1b[2J\x1b[31mred\x1b[0m \x1b]0;title\x07\rover\x08x\x1bPq#0\x1b\\"
	run(m, deltaMsg{text: nasty})
	run(m, assistantEnd{})
	run(m, toolCallMsg{id: "c1", tool: "bash\x1b[5m", class: "command", args: `{"command":"echo \u001b[31mx"}`})
	run(m, toolResultMsg{id: "c1", tool: "bash", result: nasty, mark: "✓"})
	fr := m.Frame()
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x1b[31m", "\x1b[5m", "\r", "\x08", "\x07", "\x1bP"} {
		if strings.Contains(fr, bad) {
			t.Errorf("the frame holds %q:\n%q", bad, fr)
		}
	}
	if !strings.Contains(ansi.Strip(fr), "red") {
		t.Errorf("the text itself is gone:\n%s", fr)
	}
}

func TestStreamingThenMarkdown(t *testing.T) {
	m := testModel(t, &fakeSession{}, 80, 24, true)
	run(m, assistantMsg{})
	for _, d := range []string{"# Plan\n\n", "- one **bold**\n", "- two `code`\n"} {
		run(m, deltaMsg{text: d})
	}
	run(m, deltaMsg{text: "and `more"})
	if fr := ansi.Strip(m.Frame()); !strings.Contains(fr, "• two code") || !strings.Contains(fr, "and `more") {
		t.Fatalf("the streaming answer is not shown as it arrives (markdown for whole lines, the last as typed):\n%s", fr)
	}
	run(m, assistantEnd{usage: &usageInfo{input: 1500, output: 500}})
	fr := ansi.Strip(m.Frame())
	if strings.Contains(fr, "# Plan") || !strings.Contains(fr, "• one bold") || !strings.Contains(fr, "and `more") {
		t.Fatalf("the finished answer is not drawn as markdown:\n%s", fr)
	}
	if !strings.Contains(fr, "ctx 2.0k (1%)") {
		t.Errorf("the footer does not show the context use:\n%s", fr)
	}
}

func TestScrollback(t *testing.T) {
	m := testModel(t, &fakeSession{}, 80, 24, true)
	for i := range 100 {
		m.conv.add(entryNote, "line "+strings.Repeat("x", i%5)+" #"+itoa(i))
	}
	if fr := ansi.Strip(m.Frame()); !strings.Contains(fr, "#99") || strings.Contains(fr, "#00\n") {
		t.Fatalf("the newest lines are not at the bottom:\n%s", fr)
	}
	for range 30 {
		press(m, tea.KeyPgUp, 0)
	}
	if fr := ansi.Strip(m.Frame()); !strings.Contains(fr, " #00\n") || strings.Contains(fr, "#99") {
		t.Fatalf("PgUp did not reach the top:\n%s", fr)
	}
	run(m, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	for range 40 {
		press(m, tea.KeyPgDown, 0)
	}
	if m.scroll != 0 || !strings.Contains(m.Frame(), "#99") {
		t.Fatalf("PgDn did not come back (scroll %d)", m.scroll)
	}
	run(m, tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.scroll != 3 {
		t.Fatalf("the wheel scrolled %d lines, want 3", m.scroll)
	}
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

func TestResumedSessionShownInFull(t *testing.T) {
	f := &fakeSession{saved: []chat.Message{
		chat.UserText("fix the build"),
		{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: "Looking."}, {Type: chat.ToolUse, ID: "t1", Name: "bash", Input: []byte(`{"command":"go build ./..."}`)}}},
		{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: "t1", Text: "ok"}}},
		{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: "It builds."}}},
	}}
	m := testModel(t, f, 80, 24, true)
	fr := ansi.Strip(m.Frame())
	for _, want := range []string{"› fix the build", "Looking.", "bash $ go build ./...", "command", "It builds.", "resumed session"} {
		if !strings.Contains(fr, want) {
			t.Errorf("the resumed session lacks %q:\n%s", want, fr)
		}
	}
}

func TestSlashCommands(t *testing.T) {
	tests := []struct {
		line  string
		check func(t *testing.T, m *Model, f *fakeSession, quit bool)
	}{
		{"/model other-model", func(t *testing.T, m *Model, f *fakeSession, _ bool) {
			if f.model != "other-model" || !strings.Contains(m.footer(), "other-model") {
				t.Errorf("model %q, footer %q", f.model, m.footer())
			}
		}},
		{"/new", func(t *testing.T, m *Model, _ *fakeSession, quit bool) {
			if !quit || m.end.next == nil || m.end.next.Resume != "" || m.end.next.Model != "fake-model" {
				t.Errorf("quit %v next %+v", quit, m.end.next)
			}
		}},
		{"/resume feedbeef", func(t *testing.T, m *Model, _ *fakeSession, quit bool) {
			if !quit || m.end.next == nil || m.end.next.Resume != "feedbeef" {
				t.Errorf("quit %v next %+v", quit, m.end.next)
			}
		}},
		{"/resume", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "feedbeef") {
				t.Errorf("no session list:\n%s", m.Frame())
			}
		}},
		{"/fork", func(t *testing.T, m *Model, f *fakeSession, quit bool) {
			if !quit || m.end.next == nil || m.end.next.Resume != "newid" {
				t.Errorf("quit %v next %+v", quit, m.end.next)
			}
		}},
		{"/compact keep the plan", func(t *testing.T, _ *Model, f *fakeSession, _ bool) {
			if !slices.Equal(f.compacted, []string{"keep the plan"}) {
				t.Errorf("compacted %q", f.compacted)
			}
		}},
		{"/tools", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if fr := m.Frame(); !strings.Contains(fr, "bash") || !strings.Contains(fr, "read") {
				t.Errorf("no tools:\n%s", fr)
			}
		}},
		{"/mcp", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "no MCP servers are configured") {
				t.Errorf("no MCP status:\n%s", m.Frame())
			}
		}},
		{"/approvals", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "no remembered approvals") {
				t.Errorf("no approvals:\n%s", m.Frame())
			}
		}},
		{"/init", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "wrote AGENTS.md") {
				t.Errorf("no /init:\n%s", m.Frame())
			}
		}},
		{"/trust", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "undecided") {
				t.Errorf("no trust status:\n%s", m.Frame())
			}
		}},
		{"/skills", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "no skills") {
				t.Errorf("no skills listing:\n%s", m.Frame())
			}
		}},
		{"/help", func(t *testing.T, m *Model, _ *fakeSession, _ bool) {
			if !strings.Contains(m.Frame(), "/approvals") {
				t.Errorf("no help:\n%s", m.Frame())
			}
		}},
		{"/quit", func(t *testing.T, m *Model, _ *fakeSession, quit bool) {
			if !quit || m.end.reason != "exit" {
				t.Errorf("quit %v end %+v", quit, m.end)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			f := &fakeSession{}
			m := testModel(t, f, 100, 40, true)
			typeText(m, tt.line)
			m.compl = completion{}
			quit := press(m, tea.KeyEnter, 0)
			tt.check(t, m, f, quit)
		})
	}
}

func TestCompletion(t *testing.T) {
	m := testModel(t, &fakeSession{}, 80, 24, true)
	typeText(m, "/mo")
	if !slices.Equal(m.compl.items, []string{"/model"}) {
		t.Fatalf("completion %q", m.compl.items)
	}
	press(m, tea.KeyTab, 0)
	if v := m.input.Value(); v != "/model " {
		t.Fatalf("tab gives %q", v)
	}
}

func TestFilePicker(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{
		".gitignore":            "build/\n*.log\n",
		"main.go":               "",
		"internal/tui/model.go": "",
		"build/out.bin":         "",
		"debug.log":             "",
		"sub/.gitignore":        "secret.txt\n",
		"sub/secret.txt":        "",
		"sub/open.txt":          "",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// picker's own tests check the walk and the ranking; this one, that
	// the screen offers and inserts what they find.
	m := testModel(t, &fakeSession{}, 80, 24, true)
	m.conf.Workdir = root
	typeText(m, "look at @mai")
	if len(m.compl.items) == 0 || m.compl.items[0] != "main.go" {
		t.Fatalf("picker %q", m.compl.items)
	}
	press(m, tea.KeyEnter, 0)
	if v := m.input.Value(); v != "look at @main.go " {
		t.Fatalf("the path is not inserted: %q", v)
	}
}

func TestBangCommandGoesThroughTheSession(t *testing.T) {
	f := &fakeSession{}
	m := testModel(t, f, 80, 24, true)
	typeText(m, "!echo hello")
	press(m, tea.KeyEnter, 0)
	if !slices.Equal(f.calls, []string{`typed echo hello`}) {
		t.Fatalf("calls %q", f.calls)
	}
	// The gate's question about it comes as events of a call the
	// screen never saw announced: they add no card of their own.
	run(m, askedMsg{id: "mcp_1", level: "moderate"})
	run(m, verdictMsg{id: "mcp_1", approved: true})
	cards := 0
	for _, e := range m.conv.entries {
		if e.kind == entryTool {
			cards++
		}
	}
	if cards != 1 || !strings.Contains(m.Frame(), "typed by you") {
		t.Fatalf("%d cards:\n%s", cards, m.Frame())
	}
	typeText(m, "what did it print?")
	press(m, tea.KeyEnter, 0)
	if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "hello") || !strings.HasSuffix(f.prompts[0], "what did it print?") {
		t.Fatalf("the output did not go with the next prompt: %q", f.prompts)
	}
}

func TestResize(t *testing.T) {
	m := testModel(t, &fakeSession{}, 80, 24, true)
	m.conv.add(entryAssistant, strings.Repeat("word ", 60))
	for _, size := range [][2]int{{80, 24}, {120, 40}, {40, 12}} {
		run(m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(m.Frame(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: a line of %d cells: %q", size[0], size[1], w, l)
			}
		}
	}
}

func TestRefusalsShownAsSuch(t *testing.T) {
	m := testModel(t, &fakeSession{}, 100, 30, true)
	run(m, toolCallMsg{id: "r1", tool: "bash", class: "command", args: `{"command":"rm -rf /etc"}`})
	run(m, toolResultMsg{id: "r1", tool: "bash", mark: "✗ refused: policy denies rm -rf", isError: true, refused: true})
	out := strings.Repeat("noise\n", 20) + "sandbox: the sandbox refused writing /etc/passwd: commands may write only inside the workspace\n"
	run(m, toolCallMsg{id: "s1", tool: "bash", class: "command", args: `{"command":"echo x > /etc/passwd"}`})
	run(m, toolResultMsg{id: "s1", tool: "bash", result: out, mark: "✗ exit 1", isError: true})
	fr := ansi.Strip(m.Frame())
	for _, want := range []string{"refused: policy denies rm -rf", "sandbox refused writing /etc/passwd"} {
		if !strings.Contains(fr, want) {
			t.Errorf("the frame lacks %q:\n%s", want, fr)
		}
	}
}

func TestDialogReasonAndScroll(t *testing.T) {
	t.Run("r, a reason, enter: a no the model reads", func(t *testing.T) {
		m := testModel(t, &fakeSession{}, 80, 24, true)
		reply := ask(m, gate.Request{Tool: "bash", Class: tool.Command, Subject: "grep -r foo .", Level: shell.Moderate})
		typeText(m, "ruse rg")
		press(m, tea.KeyBackspace, 0)
		typeText(m, "g instead")
		if fr := ansi.Strip(m.Frame()); !strings.Contains(fr, "no, because: use rg instead") {
			t.Fatalf("the reason is not shown as typed:\n%s", fr)
		}
		press(m, tea.KeyEnter, 0)
		a := <-reply
		if a.Allow || a.Note != "use rg instead" {
			t.Fatalf("answer %+v", a)
		}
	})
	t.Run("a question taller than the screen scrolls", func(t *testing.T) {
		m := testModel(t, &fakeSession{}, 80, 24, true)
		var line strings.Builder
		for i := range 40 {
			fmt.Fprintf(&line, "echo %d\n", i)
		}
		line.WriteString("rm -rf ~")
		ask(m, gate.Request{Tool: "bash", Class: tool.Command, Subject: line.String(), Level: shell.Dangerous})
		fr := ansi.Strip(m.Frame())
		if n := len(strings.Split(fr, "\n")); n != 24 {
			t.Fatalf("%d lines", n)
		}
		if !strings.Contains(fr, "Approval needed") || !strings.Contains(fr, "[y]once") || !strings.Contains(fr, "lines shown") {
			t.Fatalf("the title, the answers or the scroll note is off screen:\n%s", fr)
		}
		for range 10 {
			press(m, tea.KeyPgDown, 0)
		}
		if fr := ansi.Strip(m.Frame()); !strings.Contains(fr, "rm -rf ~") {
			t.Fatalf("the end of the line cannot be reached:\n%s", fr)
		}
	})
}
