package tui

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/frontend/tui/history"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/transcript"
	"github.com/wisp-agent/wisp/internal/trust"
)

// Session is what the screen asks of a session; *host.Session is one.
type Session interface {
	Prompt(ctx context.Context, text string) (chat.Message, error)
	Steer(text string) error
	FollowUp(text string) error
	Cancel() []string
	Queued() host.Queue
	Compact(ctx context.Context, instructions string) error
	SetModel(name string) error
	Provider() (name, model string)
	ID() string
	Tools() []tool.Spec
	MCPStatus() []mcp.Status
	InspectApprovals() string
	InspectStatus() string
	InitAgentsMD() string
	Saved() ([]chat.Message, error)
	Sessions() ([]transcript.Summary, error)
	Fork(before int) (string, error)
	CallTool(ctx context.Context, name string, args json.RawMessage) (tool.Result, error)
	// RunTyped runs a line the person typed (!command), audited as theirs.
	RunTyped(ctx context.Context, line string) (tool.Result, error)
	TranscriptBroken() bool
	Failed() string
}

// Timings a person feels.
const (
	quitWindow = 1500 * time.Millisecond // Ctrl+C twice within this quits
	tickEvery  = 100 * time.Millisecond  // spinner and elapsed time
)

// spinnerFrames turn while the model or a tool works.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// ending says how the screen was left, for Main to finish the session.
type ending struct {
	reason string    // "exit", "interrupted", a signal's name
	sig    os.Signal // the signal that ended it, if one did
	// next, when set, is the session to open next (/new, /resume,
	// /fork).
	next *host.Options
	// failed says why the session cannot go on (its audit log failed).
	failed string
}

// pending is a steer or a follow-up that waits for the running turn.
type pending struct {
	follow bool
	text   string
}

// Model is the whole screen: the conversation, the input, the dialog,
// the footer. Its Update is the only place the screen's state changes.
type Model struct {
	s    Session
	ctx  context.Context
	st   styles
	conf Config

	width, height int
	conv          conversation
	input         textarea.Model
	hist          *history.History
	frame         int
	now           func() time.Time

	busy      bool
	busySince time.Time
	cancel    context.CancelFunc
	turns     *sync.WaitGroup
	ticking   bool

	dialogs  []*dialog
	pendings []pending
	scroll   int
	expanded bool
	ctrlC    time.Time

	model, sessionID, sandbox string
	ctxTokens                 int64
	compl                     completion
	files                     []string
	filesAsked                bool
	// shellOut holds the output of !commands, sent with the next prompt.
	shellOut []string

	end     ending
	signals <-chan os.Signal
}

// Config is what the screen knows beyond its session.
type Config struct {
	Workdir  string
	WispHome string
	NoColor  bool
	// Window is the model's context window in tokens, 0 when unknown.
	Window int
	// Options are the session's options, the base of /new and /resume.
	Options host.Options
	// Sys is the process's world, for /skills and /trust.
	Sys host.IO
	// First is a prompt to send at once.
	First string
	// Notes are lines to show before anything else.
	Notes []string
}

// newModel builds the screen for s.
func newModel(ctx context.Context, s Session, conf Config) *Model {
	m := &Model{s: s, ctx: ctx, conf: conf, st: newStyles(conf.NoColor), conv: newConversation(),
		now: time.Now, turns: &sync.WaitGroup{}, width: 80, height: 24}
	m.input = newInput(conf.NoColor)
	// The history belongs to the project (its git root), so that its
	// subfolders share it.
	m.hist = history.Load(history.Path(conf.WispHome, trust.ProjectRoot(conf.Workdir)))
	if conf.WispHome == "" {
		m.hist = &history.History{}
	}
	_, m.model = s.Provider()
	m.sessionID = s.ID()
	m.sandbox = sandboxOf(s.InspectStatus())
	if saved, err := s.Saved(); err == nil && len(saved) > 0 {
		classes := map[string]string{}
		for _, t := range s.Tools() {
			classes[t.Name] = string(t.Class)
		}
		m.conv.loadMessages(saved, func(name string) string { return classes[name] })
		m.conv.add(entryNote, "(resumed session "+m.sessionID+")")
	}
	for _, n := range conf.Notes {
		m.conv.add(entryNote, n)
	}
	m.layout()
	return m
}

// newInput is the prompt editor: Enter sends, Shift+Enter, Alt+Enter or
// Ctrl+J start a new line.
func newInput(noColor bool) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.Placeholder = "Ask wisp… (/ for commands, @ for files, ! for a shell command)"
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 8
	ta.CharLimit = 0
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	n := lipgloss.NewStyle()
	state := textarea.StyleState{Base: n, Text: n, CursorLine: n, EndOfBuffer: n, Prompt: n,
		Placeholder: n.Faint(true), LineNumber: n, CursorLineNumber: n, Selection: n.Reverse(true)}
	// A cursor that does not blink needs no timer; without colour it
	// is drawn reversed in the text's own colour.
	cur := ta.Styles().Cursor
	cur.Blink = false
	if noColor {
		cur.Color = nil
	}
	ta.SetStyles(textarea.Styles{Focused: state, Blurred: state, Cursor: cur})
	ta.Focus()
	return ta
}

// sandboxOf picks the sandbox line out of the session's status.
func sandboxOf(status string) string {
	for l := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(l, "sandbox: "); ok {
			return v
		}
	}
	return ""
}

// Init starts the first prompt, if one was given, and the walk of the
// workspace's files for the picker is left until @ is typed.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.waitSignal()}
	if strings.TrimSpace(m.conf.First) != "" {
		cmds = append(cmds, m.submit(m.conf.First))
	}
	return tea.Batch(cmds...)
}

// Messages the screen sends itself.
type (
	tickMsg     struct{}
	turnDoneMsg struct {
		err       error
		cancelled bool
	}
	infoMsg   struct{ text string }
	errMsg    struct{ text string }
	signalMsg struct{ sig os.Signal }
	// shellDoneMsg is a !command's end: its line and what it printed.
	shellDoneMsg struct {
		line, output string
		isError      bool
	}
	compactDoneMsg struct{ err error }
)

// Update takes one message and changes the screen.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(20, msg.Width), max(8, msg.Height)
		m.conv.invalidateAll()
		m.layout()
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if len(m.dialogs) > 0 {
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.layout()
		return m, cmd
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scrollBy(3)
		case tea.MouseWheelDown:
			m.scrollBy(-3)
		}
		return m, nil
	case tickMsg:
		m.frame++
		if m.busy || m.anyRunning() {
			return m, m.tick()
		}
		m.ticking = false
		return m, nil
	case askMsg:
		return m, m.openDialog(msg)
	case askGoneMsg:
		m.closeDialog(msg.reply)
		return m, nil
	case turnDoneMsg:
		return m, m.turnDone(msg)
	case signalMsg:
		return m, m.onSignal(msg.sig)
	}
	return m, m.updateMore(msg)
}

// updateMore handles the session's messages and the results of the
// screen's own commands.
func (m *Model) updateMore(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case infoMsg:
		m.conv.add(entryNote, msg.text)
	case errMsg:
		m.conv.add(entryError, msg.text)
	case filesMsg:
		m.files = msg.files
		m.refreshCompletion()
	case shellDoneMsg:
		m.shellDone(msg)
		return m.quitIfLeaving()
	case compactDoneMsg:
		m.busy, m.cancel = false, nil
		if msg.err != nil {
			m.conv.add(entryError, "could not compact: "+msg.err.Error())
		} else {
			m.conv.add(entryNote, "(the conversation so far is now a summary)")
		}
		return m.quitIfLeaving()
	default:
		return m.onSession(msg)
	}
	return nil
}

// quitIfLeaving ends the program once the work that a quit waited for
// is done.
func (m *Model) quitIfLeaving() tea.Cmd {
	if m.end.reason != "" {
		return tea.Quit
	}
	return nil
}

// tick keeps the spinner turning while something works.
func (m *Model) tick() tea.Cmd {
	m.ticking = true
	return tea.Tick(tickEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *Model) startTicking() tea.Cmd {
	if m.ticking {
		return nil
	}
	return m.tick()
}

func (m *Model) anyRunning() bool {
	for _, e := range m.conv.calls {
		if e.card.running {
			return true
		}
	}
	return false
}

// scrollBy moves the conversation up (n > 0) or down.
func (m *Model) scrollBy(n int) {
	m.scroll = max(0, m.scroll+n)
}
