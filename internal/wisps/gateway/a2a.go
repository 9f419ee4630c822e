package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// The A2A client is written here rather than taken from the A2A Go SDK
// (github.com/a2aproject/a2a-go): wisp needs one JSON-RPC method
// (message/send) over plain HTTP, one request and one reply, and the SDK
// is a whole client and server framework with transports wisp does not
// use; a small client also keeps the request exactly what the gate shows.

// Bounds of one invoke_agent call.
const (
	agentTimeout     = 120 * time.Second
	agentReadBytes   = 2 << 20
	agentTextBytes   = 50 * 1024
	agentSubjectText = 200
	agentUserAgent   = "wisp-a2a/1"
)

// Agent is invoke_agent: it sends one message to an agent of
// settings.json's a2a_agents with the A2A protocol's JSON-RPC
// message/send, and answers with the agent's reply, or with the task it
// started when the task has not ended yet (a dispatch does not wait for
// the remote work). While such a task is pending, a new dispatch is
// refused: a call to the task's agent asks it about the task instead
// (tasks/get) and reports how it stands. Its calls reach the network:
// the gate asks first. One Agent serves one session.
type Agent struct {
	Agents []config.A2AAgent
	// Getenv reads the variables headers_from names.
	Getenv func(string) string
	Client *http.Client

	mu      sync.Mutex
	pending *pendingTask
}

// pendingTask is a task an agent started that had not ended when last seen.
type pendingTask struct{ agent, id, state string }

// Spec describes invoke_agent.
func (a *Agent) Spec() tool.Spec {
	names := make([]string, 0, len(a.Agents))
	for _, ag := range a.Agents {
		names = append(names, ag.Name)
	}
	return tool.Spec{
		Name:        "invoke_agent",
		Description: "Send a message to a remote agent over the A2A protocol and return its reply (or the task it started). While a started task is pending no new message is sent: a call to its agent reports how the task stands. Agents: " + strings.Join(names, ", ") + ".",
		Schema:      json.RawMessage(`{"type":"object","properties":{"agent":{"type":"string","description":"an agent named in settings"},"skill":{"type":"string","description":"the agent's skill to use"},"message":{"type":"string","description":"the message text"}},"required":["agent","skill","message"],"additionalProperties":false}`),
		Class:       tool.Command,
	}
}

type agentArgs struct {
	Agent   string `json:"agent"`
	Skill   string `json:"skill"`
	Message string `json:"message"`
}

func (a *Agent) parse(args json.RawMessage) (agentArgs, config.A2AAgent, error) {
	var in agentArgs
	d := json.NewDecoder(bytes.NewReader(args))
	d.DisallowUnknownFields()
	if err := d.Decode(&in); err != nil {
		return in, config.A2AAgent{}, fmt.Errorf("invalid arguments for invoke_agent (it takes agent, skill and message): %v", err)
	}
	if in.Agent == "" || in.Skill == "" || strings.TrimSpace(in.Message) == "" {
		return in, config.A2AAgent{}, fmt.Errorf("missing required parameter: invoke_agent needs agent, skill and message")
	}
	i := slices.IndexFunc(a.Agents, func(c config.A2AAgent) bool { return c.Name == in.Agent })
	if i < 0 {
		return in, config.A2AAgent{}, fmt.Errorf("unknown agent %q: not configured in settings.json a2a_agents", in.Agent)
	}
	return in, a.Agents[i], nil
}

// HasAgent reports whether name is a configured agent.
func (a *Agent) HasAgent(name string) bool {
	return slices.ContainsFunc(a.Agents, func(c config.A2AAgent) bool { return c.Name == name })
}

// Invocation is what the person asked sees: the agent, skill and the
// start of the message.
func (a *Agent) Invocation(args json.RawMessage) (tool.Invocation, error) {
	in, ag, err := a.parse(args)
	if err != nil {
		return tool.Invocation{}, err
	}
	return tool.Invocation{Server: "a2a:" + ag.Name, Tool: in.Skill, Network: true,
		Subject: fmt.Sprintf("invoke_agent %s (skill %s): %s", ag.Name, in.Skill, clip(oneLine(in.Message), agentSubjectText))}, nil
}

// Run sends the message and reads the reply; with a task pending, it
// checks on that task instead and sends nothing new.
func (a *Agent) Run(ctx context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	in, ag, err := a.parse(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	a.mu.Lock()
	p := a.pending
	a.mu.Unlock()
	if p != nil {
		return a.checkPending(ctx, ag, *p), nil
	}
	body, err := sendRequest(in)
	if err != nil {
		return tool.Errorf("invoke_agent: %v", err), nil
	}
	res, task := a.post(ctx, ag, body)
	a.note(ag.Name, task)
	return res, nil
}

// checkPending answers a dispatch made while task p is pending. Only a
// call to p's own agent may reach the network (the person was asked
// about that agent): it asks the agent how the task stands, and clears
// it once it has ended. The new message is never sent.
func (a *Agent) checkPending(ctx context.Context, ag config.A2AAgent, p pendingTask) tool.Result {
	refused := fmt.Sprintf("invoke_agent: not sent: task %s of agent %s is pending (state: %s), and a new dispatch waits until it ends", p.id, p.agent, p.state)
	if ag.Name != p.agent {
		return tool.Errorf("%s; call invoke_agent for agent %s to check on it", refused, p.agent)
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "get-" + p.id, "method": "tasks/get", "params": map[string]any{"id": p.id}})
	if err != nil {
		return tool.Errorf("invoke_agent: %v", err)
	}
	res, task := a.post(ctx, ag, body)
	a.note(ag.Name, task)
	if task != nil && !terminal(task.Status.State) {
		return tool.Errorf("%s; it is still %s: check again later", refused, task.Status.State)
	}
	if task == nil {
		return tool.Errorf("%s; asking about it failed: %s", refused, strings.TrimPrefix(res.Content, "error: "))
	}
	res.Content = fmt.Sprintf("Task %s of agent %s has ended (%s); your new message was not sent, so send it again if it is still needed.\n%s", p.id, p.agent, task.Status.State, res.Content)
	return res
}

// note keeps the task a reply names as pending while it has not ended,
// and forgets the pending one once a reply says it ended.
func (a *Agent) note(agent string, task *a2aResult) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case task == nil:
	case !terminal(task.Status.State):
		a.pending = &pendingTask{agent: agent, id: task.ID, state: task.Status.State}
	case a.pending != nil && a.pending.id == task.ID:
		a.pending = nil
	}
}

// terminal says whether a task in this state has ended.
func terminal(state string) bool {
	switch state {
	case "completed", "failed", "rejected", "canceled":
		return true
	}
	return false
}

// post sends one JSON-RPC request to the agent and reads the reply: the
// call's result, and the task the reply names (nil for a message, an
// error or a failed exchange).
func (a *Agent) post(ctx context.Context, ag config.A2AAgent, body []byte) (tool.Result, *a2aResult) {
	ctx, cancel := context.WithTimeout(ctx, agentTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ag.URL, bytes.NewReader(body))
	if err != nil {
		return tool.Errorf("invoke_agent: %v", err), nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", agentUserAgent)
	if err := setHeadersFrom(req, ag.HeadersFrom, a.Getenv, "agent "+ag.Name); err != nil {
		return tool.Errorf("%v", err), nil
	}
	resp, err := (&Browse{Client: a.Client}).client().Do(req)
	if err != nil {
		return tool.Errorf("invoke_agent %s: connection failed: %v", ag.Name, err), nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, agentReadBytes))
	if err != nil {
		return tool.Errorf("invoke_agent %s: reading the reply: %v", ag.Name, err), nil
	}
	if resp.StatusCode >= 400 {
		return tool.Errorf("invoke_agent %s: the agent answered %s", ag.Name, resp.Status), nil
	}
	return readReply(ag.Name, raw)
}

// sendRequest is the JSON-RPC message/send request: one user message of
// one text part; the skill goes in the message's metadata, since A2A has
// no field of its own for it.
func sendRequest(in agentArgs) ([]byte, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("make a message id: %w", err)
	}
	msgID := hex.EncodeToString(id[:])
	return json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": msgID[:8], "method": "message/send",
		"params": map[string]any{
			"message": map[string]any{
				"kind": "message", "role": "user", "messageId": msgID,
				"parts":    []any{map[string]any{"kind": "text", "text": in.Message}},
				"metadata": map[string]any{"skill": in.Skill},
			},
			"configuration": map[string]any{"blocking": true, "acceptedOutputModes": []string{"text/plain", "application/json"}},
			"metadata":      map[string]any{"skill": in.Skill},
		},
	})
}

// a2aPart is a text or data part of a message or artifact.
type a2aPart struct {
	Kind string          `json:"kind"`
	Text string          `json:"text"`
	Data json.RawMessage `json:"data"`
}

type a2aMessage struct {
	Parts []a2aPart `json:"parts"`
}

// a2aResult is a message/send result: a Message or a Task, told apart
// by kind.
type a2aResult struct {
	Kind   string    `json:"kind"`
	ID     string    `json:"id"`
	Parts  []a2aPart `json:"parts"`
	Status struct {
		State   string      `json:"state"`
		Message *a2aMessage `json:"message"`
	} `json:"status"`
	Artifacts []struct {
		Parts []a2aPart `json:"parts"`
	} `json:"artifacts"`
}

// readReply turns a JSON-RPC reply into the call's result: the text of a
// Message, the artifacts of a completed Task, the task and its state
// when it has not ended, and an error for a JSON-RPC error or a task
// that failed.
func readReply(agent string, raw []byte) (tool.Result, *a2aResult) {
	var rpc struct {
		Result *a2aResult `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &rpc); err != nil {
		return tool.Errorf("invoke_agent %s: the reply is not valid JSON-RPC: %v", agent, err), nil
	}
	switch {
	case rpc.Error != nil:
		return tool.Errorf("invoke_agent %s: the agent refused the message (JSON-RPC error %d): %s", agent, rpc.Error.Code, clip(rpc.Error.Message, agentSubjectText)), nil
	case rpc.Result == nil:
		return tool.Errorf("invoke_agent %s: the reply has neither result nor error (unexpected format)", agent), nil
	}
	r := rpc.Result
	switch r.Kind {
	case "message":
		return tool.Result{Content: bound(partsText(r.Parts), agentTextBytes)}, nil
	case "task":
	default:
		return tool.Errorf("invoke_agent %s: unexpected result kind %q (want message or task)", agent, r.Kind), nil
	}
	status := ""
	if r.Status.Message != nil {
		status = partsText(r.Status.Message.Parts)
	}
	switch r.Status.State {
	case "completed":
		var parts []string
		for _, a := range r.Artifacts {
			parts = append(parts, partsText(a.Parts))
		}
		if len(parts) == 0 {
			parts = append(parts, status)
		}
		return tool.Result{Content: bound(strings.Join(parts, "\n"), agentTextBytes)}, r
	case "failed", "rejected", "canceled":
		return tool.Errorf("invoke_agent %s: task %s %s: %s", agent, r.ID, r.Status.State, clip(status, agentSubjectText)), r
	}
	out := fmt.Sprintf("Task %s dispatched to agent %s (state: %s); it has not ended.", r.ID, agent, r.Status.State)
	if status != "" {
		out += "\n" + status
	}
	return tool.Result{Content: bound(out, agentTextBytes)}, r
}

// partsText joins the text parts, and data parts as their JSON.
func partsText(parts []a2aPart) string {
	var b []string
	for _, p := range parts {
		switch p.Kind {
		case "text":
			b = append(b, p.Text)
		case "data":
			b = append(b, string(p.Data))
		}
	}
	return strings.Join(b, "\n")
}
