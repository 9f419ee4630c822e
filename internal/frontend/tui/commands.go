package tui

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"
	"github.com/wisp-agent/wisp/internal/skills"
	"github.com/wisp-agent/wisp/internal/trust"
)

// slashCommand is one of the commands typed with a leading /.
type slashCommand struct {
	name, args, help string
}

// commands are the slash commands, in the order /help lists them.
var commands = []slashCommand{
	{"/help", "", "what every command does"},
	{"/new", "", "start a new session in this folder"},
	{"/resume", "[ID]", "list this folder's sessions, or open one"},
	{"/fork", "", "branch this session into a new one and continue there"},
	{"/compact", "[instructions]", "replace the conversation so far with a summary"},
	{"/model", "[NAME]", "show the model, or use another from the next request"},
	{"/tools", "", "the tools the model sees"},
	{"/mcp", "", "your MCP servers: state, tools, failures"},
	{"/skills", "", "the skills a session here gets"},
	{"/trust", "[status|allow|revoke|forget]", "whether this project's own files are read"},
	{"/approvals", "", "the remembered approvals"},
	{"/init", "", "write a starter AGENTS.md"},
	{"/followup", "TEXT", "run TEXT once the running turn is done"},
	{"/quit", "", "leave wisp"},
}

// commandTakesNoArgs says the typed command runs as it is when chosen
// from the list.
func commandTakesNoArgs(v string) bool {
	name := strings.TrimSpace(v)
	for _, c := range commands {
		if c.name == name {
			return c.args == "" || strings.HasPrefix(c.args, "[")
		}
	}
	return false
}

// command runs a slash command.
func (m *Model) command(line string) tea.Cmd {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	if m.busy && name != "/followup" && name != "/help" && name != "/quit" {
		m.conv.add(entryNote, name+" waits for the running turn to end (Esc cancels it)")
		return nil
	}
	switch name {
	case "/help":
		m.conv.add(entryNote, helpText())
	case "/quit", "/exit":
		return m.quit("exit")
	case "/followup":
		return m.followUp(arg)
	case "/new":
		return m.switchTo(m.fresh())
	case "/resume":
		return m.resume(arg)
	case "/fork":
		return m.fork()
	case "/compact":
		return m.compact(arg)
	case "/model":
		m.setModel(arg)
	case "/tools":
		m.conv.add(entryNote, m.toolsText())
	case "/mcp":
		m.conv.add(entryNote, mcpText(m.s.MCPStatus()))
	case "/skills":
		return m.skillsCmd()
	case "/trust":
		m.conv.add(entryNote, m.trustText(arg))
	case "/approvals":
		m.conv.add(entryNote, strings.TrimRight(m.s.InspectApprovals(), "\n"))
	case "/init":
		m.conv.add(entryNote, m.s.InitAgentsMD())
	default:
		m.conv.add(entryError, "unknown command "+name+" (/help lists them)")
	}
	return nil
}

func helpText() string {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "%-10s %-12s %s\n", c.name, c.args, c.help)
	}
	b.WriteString("!COMMAND   runs COMMAND through the gate; its output goes with your next prompt\n")
	b.WriteString("@          picks a file · Enter sends · Shift+Enter or Alt+Enter: new line · ↑/↓ history\n")
	b.WriteString("while wisp works: Enter steers it · Esc cancels · Ctrl+C cancels, twice quits\n")
	b.WriteString("PgUp/PgDn or the wheel scroll · Ctrl+O expands long output")
	return b.String()
}

func (m *Model) followUp(text string) tea.Cmd {
	switch {
	case text == "":
		m.conv.add(entryNote, "usage: /followup TEXT")
	case !m.busy:
		return m.startTurn(text)
	default:
		if err := m.s.FollowUp(text); err != nil {
			m.conv.add(entryError, "not queued: "+err.Error())
			return nil
		}
		m.pendings = append(m.pendings, pending{follow: true, text: text})
	}
	return nil
}

// fresh are the options of a new session in this folder.
func (m *Model) fresh() host.Options {
	o := m.conf.Options
	o.Continue, o.Resume, o.Fork, o.KeepTurns = false, "", false, 0
	return o
}

// switchTo leaves this session for another; Main opens it.
func (m *Model) switchTo(o host.Options) tea.Cmd {
	m.end.next = &o
	return m.quit("exit")
}

func (m *Model) resume(id string) tea.Cmd {
	if id != "" {
		o := m.fresh()
		o.Resume = id
		return m.switchTo(o)
	}
	list, err := m.s.Sessions()
	if err != nil {
		m.conv.add(entryError, err.Error())
		return nil
	}
	if len(list) == 0 {
		m.conv.add(entryNote, "no other sessions in this folder")
		return nil
	}
	var b strings.Builder
	b.WriteString("sessions in this folder, newest first (/resume ID opens one):\n")
	for i, s := range list {
		if i == 20 {
			fmt.Fprintf(&b, "… and %d more", len(list)-20)
			break
		}
		fmt.Fprintf(&b, "%s  %s  %d messages  %s\n", s.ID, s.Time.Format("2006-01-02 15:04"), s.Messages, render.Clean(frontend.OneLine(s.FirstPrompt, 60)))
	}
	m.conv.add(entryNote, strings.TrimRight(b.String(), "\n"))
	return nil
}

func (m *Model) fork() tea.Cmd {
	saved, err := m.s.Saved()
	if err == nil {
		var id string
		if id, err = m.s.Fork(len(saved)); err == nil {
			o := m.fresh()
			o.Resume = id
			return m.switchTo(o)
		}
	}
	m.conv.add(entryError, "could not fork: "+err.Error())
	return nil
}

func (m *Model) compact(instructions string) tea.Cmd {
	m.busy, m.busySince = true, m.now()
	m.conv.add(entryNote, "compacting the conversation…")
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	s, turns := m.s, m.turns
	turns.Add(1)
	return tea.Batch(func() tea.Msg {
		defer turns.Done()
		defer cancel()
		return compactDoneMsg{err: s.Compact(ctx, instructions)}
	}, m.startTicking())
}

func (m *Model) setModel(name string) {
	if name == "" {
		p, model := m.s.Provider()
		m.conv.add(entryNote, "model: "+p+"/"+model+" (/model NAME changes it)")
		return
	}
	if err := m.s.SetModel(name); err != nil {
		m.conv.add(entryError, err.Error())
		return
	}
	m.model = name
	m.conv.add(entryNote, "model: "+name+" from the next request")
}

func (m *Model) toolsText() string {
	var b strings.Builder
	for _, t := range m.s.Tools() {
		fmt.Fprintf(&b, "%-16s %-9s %s\n", t.Name, t.Class, frontend.OneLine(t.Description, 60))
	}
	return strings.TrimRight(b.String(), "\n")
}

// mcpText is /mcp: the servers as the session has them now; nothing is
// reconnected.
func mcpText(list []mcp.Status) string {
	if len(list) == 0 {
		return "no MCP servers are configured (mcp_servers in ~/.wisp/settings.json)"
	}
	var b bytes.Buffer
	if err := mcp.WriteStatus(&b, list); err != nil {
		return err.Error()
	}
	return strings.TrimRight(b.String(), "\n")
}

// skillsCmd lists the skills as `wisp skills` does.
func (m *Model) skillsCmd() tea.Cmd {
	ctx, sys := m.ctx, m.conf.Sys
	sys.Workdir = m.conf.Workdir
	return func() tea.Msg {
		sys.Stderr = &bytes.Buffer{}
		_, p, err := host.LoadQuietly(ctx, sys)
		if err != nil {
			return errMsg{text: err.Error()}
		}
		if len(p.Skills.Skills) == 0 {
			return infoMsg{text: "no skills: add folders with a SKILL.md under ~/.wisp/skills, ~/.agents/skills, or (in a trusted project) .wisp/skills or .agents/skills"}
		}
		var b bytes.Buffer
		if err := skills.List(&p.Skills, &b); err != nil {
			return errMsg{text: err.Error()}
		}
		return infoMsg{text: strings.TrimRight(b.String(), "\n")}
	}
}

// trustText is /trust VERB, as `wisp trust VERB` says it; a change
// applies from the next session.
func (m *Model) trustText(verb string) string {
	if verb == "" {
		verb = "status"
	}
	sys := m.conf.Sys
	cfg, err := host.LoadConfig(sys.Getenv)
	if err != nil {
		return err.Error()
	}
	path, _ := trust.Locate(cfg.Paths.Home, sys.Getenv("WISP_TRUST_FILE"))
	store, err := trust.Open(path)
	if err != nil {
		return err.Error()
	}
	root := trust.ProjectRoot(m.conf.Workdir)
	before, _ := store.Status(root)
	var out bytes.Buffer
	err = trust.Command(strings.Fields(verb), &out, &out, store, sys.Getenv("WISP_TRUST"), m.conf.Workdir)
	if after, serr := store.Status(root); err == nil && serr == nil && after != before {
		sys.Workdir = m.conf.Workdir
		host.AuditConfigChange(cfg, sys, audit.ConfigChange{File: cfg.Paths.Pretty(path), Key: root, Old: string(before), New: string(after)})
		out.WriteString("(applies from the next session: /new)\n")
	}
	if err != nil {
		out.WriteString(err.Error())
	}
	return strings.TrimRight(out.String(), "\n")
}

// shell runs a !command the person typed through the session's gate:
// policy, classifier, approval, sandbox and audit, as any command.
// Its output goes with the next prompt, so that the model sees it.
func (m *Model) shell(line string) tea.Cmd {
	if line == "" {
		m.conv.add(entryNote, "usage: !COMMAND")
		return nil
	}
	if m.busy {
		m.conv.add(entryNote, "!commands wait for the running turn to end (Esc cancels it)")
		return nil
	}
	m.conv.add(entryUser, "!"+line)
	ctx, cancel := context.WithCancel(m.ctx)
	m.busy, m.busySince, m.cancel = true, m.now(), cancel
	s, turns := m.s, m.turns
	turns.Add(1)
	return tea.Batch(func() tea.Msg {
		defer turns.Done()
		defer cancel()
		res, err := s.RunTyped(ctx, line)
		if err != nil {
			return shellDoneMsg{line: line, output: err.Error(), isError: true}
		}
		return shellDoneMsg{line: line, output: res.Content, isError: res.IsError}
	}, m.startTicking())
}

func (m *Model) shellDone(msg shellDoneMsg) {
	m.busy, m.cancel = false, nil
	out := strings.TrimRight(msg.output, "\n")
	c := &card{tool: "!", args: "", done: true, result: out, isError: msg.isError, mark: "✓"}
	if msg.isError {
		c.mark = "✗"
	}
	c.class = "command, typed by you"
	e := &entry{kind: entryTool, card: c}
	c.tool = "$ " + msg.line
	m.conv.entries = append(m.conv.entries, e)
	m.shellOut = append(m.shellOut, fmt.Sprintf("I ran `%s` in the workspace; its output:\n```\n%s\n```", msg.line, out))
}
