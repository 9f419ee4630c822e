package rpc

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"
)

// command is one entry of the table: its name, what it does, its
// parameters (a pointer to the zero struct: the table get_commands and
// docs/rpc.md are checked against), and its handler.
type command struct {
	name, summary string
	params        any
	data          any // the zero value of what it answers with
	needsSession  bool
	run           func(srv *server, req request) (any, *Error)
}

// cmd makes a command whose handler gets its parameters decoded.
func cmd[P, D any](name, summary string, h func(srv *server, p *P) (D, *Error)) command {
	var zero D
	return command{name: name, summary: summary, params: new(P), data: zero, needsSession: true,
		run: func(srv *server, req request) (any, *Error) {
			p := new(P)
			if err := decodeParams(req, p); err != nil {
				return nil, err
			}
			d, err := h(srv, p)
			if err != nil {
				return nil, err
			}
			return d, nil
		}}
}

type (
	noParams      struct{}
	messageParams struct {
		Message string `json:"message" rpc:"required"`
	}
	approveParams struct {
		CallID   string `json:"call_id" rpc:"required"`
		Ask      int    `json:"ask"`
		Approved *bool  `json:"approved" rpc:"required"`
		Scope    string `json:"scope"`
		Note     string `json:"note"`
		// Session is the approval_request's session: when given, an
		// answer meant for another session (one switched away from) is
		// refused instead of answering this one's question of the same id.
		Session *string `json:"session"`
	}
	pageParams struct {
		Offset int `json:"offset"`
		Limit  int `json:"limit"`
	}
	switchParams struct {
		SessionID string `json:"session_id" rpc:"required"`
	}
	forkParams struct {
		MessageIndex *int `json:"message_index"`
	}
	compactParams struct {
		Instructions string `json:"instructions"`
	}
	modelParams struct {
		Model string `json:"model" rpc:"required"`
	}
)

// commandTable is every command, and their names in the order
// get_commands lists them.
func commandTable() (map[string]command, []string) {
	list := []command{
		cmd("prompt", "start a run of the message; answers at once, the run's events follow", (*server).prompt),
		cmd("steer", "send the message to the live run at its next boundary", (*server).steer),
		cmd("follow_up", "queue the message to run once the live run ends", (*server).followUp),
		cmd("cancel", "cancel the live run and drop its queue; answers once the run has ended", (*server).cancel),
		cmd("approve", "answer an approval_request: approved, and for how long (scope)", (*server).approve),
		cmd("get_state", "the session, its provider and model, the run, the queue, the usage", (*server).getState),
		cmd("get_messages", "the conversation as --resume would load it, a page at a time", (*server).getMessages),
		cmd("get_sessions", "this folder's sessions, newest first, as wisp sessions lists them", (*server).getSessions),
		cmd("new_session", "close the session and start a new one", (*server).newSession),
		cmd("switch_session", "close the session and resume another", (*server).switchSession),
		cmd("fork", "branch the session into a new one, before a prompt or whole", (*server).fork),
		cmd("get_queue", "the steering and follow-up messages waiting", (*server).getQueue),
		cmd("clear_queue", "drop the waiting messages", (*server).clearQueue),
		cmd("compact", "summarize the conversation into a checkpoint", (*server).compact),
		cmd("set_model", "the model later requests ask for", (*server).setModel),
		cmd("get_tools", "the tools the model sees", (*server).getTools),
		cmd("get_mcp_status", "the user's MCP servers: state, tools, failure (no reconnecting)", (*server).getMCPStatus),
		cmd("get_commands", "these commands and their fields", (*server).getCommands),
		cmd("shutdown", "close the session and exit 0", (*server).shutdown),
	}
	table := map[string]command{}
	var order []string
	for _, c := range list {
		if c.name == "new_session" || c.name == "get_commands" || c.name == "shutdown" {
			c.needsSession = false
		}
		table[c.name] = c
		order = append(order, c.name)
	}
	return table, order
}

// empty is the data of a command that has nothing to say but yes.
type empty struct{}

func (srv *server) prompt(p *messageParams) (empty, *Error) {
	if strings.TrimSpace(p.Message) == "" {
		return empty{}, failure(CodeInvalidParams, "prompt needs a non-empty \"message\"")
	}
	s := srv.sess
	if !srv.idle() {
		return empty{}, busyRun()
	}
	// The answer goes out before the run's first event can.
	resp := srv.later()
	resp.Success, resp.Data = true, empty{}
	wait, err := s.Start(srv.ctx, p.Message, func() { srv.out.send(encode(resp)) })
	if errors.Is(err, host.ErrBusy) {
		return empty{}, busyRun()
	}
	if err != nil {
		return empty{}, failure(CodeFailed, "%v", err)
	}
	done := make(chan struct{})
	srv.run = done
	go func() {
		defer close(done)
		_, err := wait()
		// The run's failure went out as its agent_end; what is left is
		// what only the session knows (a transcript that failed).
		if err = s.Finish(err); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(srv.cfg.Stderr, "wisp: the run ended with: %v\n", err)
		}
	}()
	return empty{}, errLater
}

func busyRun() *Error {
	return failure(CodeBusy, "a run is in progress: send steer to redirect it, or follow_up to run the message after it")
}

func (srv *server) steer(p *messageParams) (queueView, *Error) {
	return srv.enqueue(p.Message, srv.sess.Steer)
}

func (srv *server) followUp(p *messageParams) (queueView, *Error) {
	return srv.enqueue(p.Message, srv.sess.FollowUp)
}

func (srv *server) enqueue(text string, add func(string) error) (queueView, *Error) {
	if strings.TrimSpace(text) == "" {
		return queueView{}, failure(CodeInvalidParams, "a non-empty \"message\" is needed")
	}
	// A run that has sent its agent_end takes no more messages, even
	// while the host is still putting it away.
	err := host.ErrIdle
	if !srv.idle() {
		err = add(text)
	}
	switch {
	case errors.Is(err, host.ErrIdle):
		return queueView{}, failure(CodeIdle, "no run is in progress: send prompt")
	case errors.Is(err, host.ErrQueueFull):
		return queueView{}, failure(CodeQueueFull, "%v", err)
	case err != nil:
		return queueView{}, failure(CodeFailed, "%v", err)
	}
	return queueData(srv.sess.Queued()), nil
}

// queueView is a queue on the wire: never null lists.
type queueView struct {
	Steering []string `json:"steering"`
	FollowUp []string `json:"follow_up"`
}

func queueData(q host.Queue) queueView {
	return queueView{Steering: append([]string{}, q.Steer...), FollowUp: append([]string{}, q.FollowUp...)}
}

// cancelled is cancel's data: whether a run was live, and the queued
// messages dropped with it.
type cancelled struct {
	Cancelled bool     `json:"cancelled"`
	Dropped   []string `json:"dropped"`
}

func (srv *server) cancel(*noParams) (cancelled, *Error) {
	live := srv.running()
	dropped := append([]string{}, srv.sess.Cancel()...)
	srv.settle()
	return cancelled{live, dropped}, nil
}

func (srv *server) approve(p *approveParams) (empty, *Error) {
	scope := approval.Scope(p.Scope)
	switch scope {
	case "":
		scope = approval.ScopeOnce
	case approval.ScopeOnce, approval.ScopeSession, approval.ScopeProject, approval.ScopeAlways:
	default:
		return empty{}, failure(CodeInvalidParams, "approve: \"scope\" must be once, session, project or always, not %q", p.Scope)
	}
	if p.Approved == nil {
		return empty{}, failure(CodeInvalidParams, "approve needs \"approved\": true or false")
	}
	if p.Session != nil && *p.Session != srv.sess.ID() {
		return empty{}, failure(CodeNoApproval, "%v: %q is a question of session %q, and the session now is %q", host.ErrNoApproval, p.CallID, *p.Session, srv.sess.ID())
	}
	err := srv.sess.Approve(p.CallID, p.Ask, *p.Approved, scope, p.Note)
	if errors.Is(err, host.ErrNoApproval) {
		return empty{}, failure(CodeNoApproval, "%v", err)
	}
	if err != nil {
		return empty{}, failure(CodeFailed, "%v", err)
	}
	return empty{}, nil
}

// state is get_state's data.
type state struct {
	SessionID string     `json:"session_id"`
	Provider  string     `json:"provider"`
	Model     string     `json:"model"`
	Running   bool       `json:"running"`
	Queue     queueView  `json:"queue"`
	Usage     chat.Usage `json:"usage"`
	Cwd       string     `json:"cwd"`
}

func (srv *server) getState(*noParams) (state, *Error) {
	s := srv.sess
	name, model := s.Provider()
	live := srv.running()
	return state{s.ID(), name, model, live, queueData(s.Queued()), srv.usageNow(live), s.Workdir()}, nil
}

// usageNow is the session's usage: the agent's while no run is live,
// else what the answers so far reported (the agent's count is the run's
// own while it works).
func (srv *server) usageNow(live bool) chat.Usage {
	if !live {
		return srv.sess.Usage()
	}
	srv.usageMu.Lock()
	defer srv.usageMu.Unlock()
	return srv.usage
}

// page is get_messages's data.
type page struct {
	Total    int            `json:"total"`
	Offset   int            `json:"offset"`
	Messages []chat.Message `json:"messages"`
}

func (srv *server) getMessages(p *pageParams) (page, *Error) {
	if p.Offset < 0 || p.Limit < 0 {
		return page{}, failure(CodeInvalidParams, "get_messages: \"offset\" and \"limit\" must not be negative")
	}
	msgs, err := srv.sess.Saved()
	if errors.Is(err, host.ErrBusy) {
		return page{}, failure(CodeBusy, "without a transcript (--no-session) the conversation is read between runs only")
	}
	if err != nil {
		return page{}, failure(CodeFailed, "%v", err)
	}
	total := len(msgs)
	from := min(p.Offset, total)
	to := total
	if p.Limit > 0 {
		to = min(from+p.Limit, total)
	}
	return page{total, from, append([]chat.Message{}, msgs[from:to]...)}, nil
}

func (srv *server) getQueue(*noParams) (queueView, *Error) { return queueData(srv.sess.Queued()), nil }

func (srv *server) clearQueue(*noParams) (queueView, *Error) {
	return queueData(srv.sess.ClearQueue()), nil
}

// compacted is compact's data: the messages the conversation holds now.
type compacted struct {
	Messages int `json:"messages"`
}

// compact runs on a goroutine of its own, as a run does, and answers
// when it is done: the model is asked for the summary, which takes as
// long as a turn, and cancel must reach it meanwhile.
func (srv *server) compact(p *compactParams) (compacted, *Error) {
	if !srv.idle() {
		return compacted{}, failure(CodeBusy, "a run is in progress: compact once it ends, or cancel it first")
	}
	s, resp := srv.sess, srv.later()
	done := make(chan struct{})
	srv.run = done
	srv.ending.Store(false)
	go func() {
		err := s.Compact(srv.ctx, p.Instructions)
		switch {
		case errors.Is(err, host.ErrBusy):
			resp.Error = failure(CodeBusy, "%v", err)
		case errors.Is(err, context.Canceled):
			resp.Error = failure(CodeFailed, "compact was cancelled; the conversation is as it was")
		case err != nil:
			resp.Error = failure(CodeFailed, "%v", err)
		default:
			n := 0
			if msgs, err := s.Saved(); err == nil {
				n = len(msgs)
			}
			resp.Success, resp.Data = true, compacted{Messages: n}
		}
		// Idle before the response goes out: a client that reads it and
		// switches sessions at once must not be told a run is live.
		close(done)
		srv.out.send(encode(resp))
	}()
	return compacted{}, errLater
}

// modelView is set_model's data.
type modelView struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

func (srv *server) setModel(p *modelParams) (modelView, *Error) {
	if !srv.idle() {
		return modelView{}, failure(CodeBusy, "a run is in progress: the model changes between runs (cancel it, or wait for its agent_end)")
	}
	err := srv.sess.SetModel(p.Model)
	var ue *host.UsageError
	switch {
	case errors.Is(err, host.ErrBusy):
		return modelView{}, failure(CodeBusy, "a run is in progress: the model changes between runs")
	case errors.As(err, &ue):
		return modelView{}, failure(CodeInvalidParams, "%s", ue.Msg)
	case err != nil:
		return modelView{}, failure(CodeFailed, "%v", err)
	}
	name, model := srv.sess.Provider()
	return modelView{name, model}, nil
}

// toolView is a tool on the wire.
type toolView struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Class       string `json:"class"`
	Schema      any    `json:"input_schema"`
}

// toolList is get_tools's data.
type toolList struct {
	Tools []toolView `json:"tools"`
}

func (srv *server) getTools(*noParams) (toolList, *Error) {
	out := []toolView{}
	for _, t := range srv.sess.Tools() {
		out = append(out, toolView{Name: t.Name, Description: t.Description, Class: string(t.Class), Schema: t.Schema})
	}
	return toolList{out}, nil
}

// mcpList is get_mcp_status's data.
type mcpList struct {
	Servers []mcp.Status `json:"servers"`
}

// getMCPStatus is the session's snapshot of its MCP servers; it never
// reconnects one.
func (srv *server) getMCPStatus(*noParams) (mcpList, *Error) {
	return mcpList{srv.sess.MCPStatus()}, nil
}

// fieldView is a command's parameter on the wire.
type fieldView struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
}

// commandView is a command on the wire.
type commandView struct {
	Name    string      `json:"name"`
	Summary string      `json:"summary"`
	Fields  []fieldView `json:"fields"`
}

// commandList is get_commands's data.
type commandList struct {
	Commands []commandView `json:"commands"`
}

func (srv *server) getCommands(*noParams) (commandList, *Error) {
	out := []commandView{}
	for _, n := range srv.order {
		out = append(out, describe(srv.commands[n]))
	}
	return commandList{out}, nil
}

// describe is a command's entry in get_commands.
func describe(c command) commandView {
	v := commandView{Name: c.name, Summary: c.summary, Fields: []fieldView{}}
	t := reflect.TypeOf(c.params).Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		kind := f.Type
		if kind.Kind() == reflect.Pointer {
			kind = kind.Elem()
		}
		typ := map[reflect.Kind]string{reflect.String: "string", reflect.Bool: "boolean", reflect.Int: "integer"}[kind.Kind()]
		v.Fields = append(v.Fields, fieldView{Name: name, Type: typ, Required: f.Tag.Get("rpc") == "required"})
	}
	return v
}

func (srv *server) shutdown(*noParams) (empty, *Error) { return empty{}, nil }
