// Package agent runs the loop: it sends the conversation to the provider,
// streams the answer as events, hands every tool call to the gate and
// feeds the results back, until the model answers without tools, the tool
// iteration fuse blows, or the context is cancelled. It never renders
// anything: frontends subscribe to its events.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/tool"
)

// ErrMaxIterations is returned when the model still asks for tools after
// the allowed number of tool rounds.
var ErrMaxIterations = errors.New("reached the tool iteration limit")

// ErrContextOverflow is wrapped by the error of a request the provider
// refused because the conversation no longer fits the model's context
// window. Nothing is lost: the prompt is in the conversation and the
// run can be resumed or forked.
var ErrContextOverflow = errors.New("the conversation no longer fits the model's context window")

// overflowMarks are how providers word a context overflow in a 400
// reply: Anthropic says "prompt is too long", OpenAI's code is
// "context_length_exceeded", compatible servers copy one or the other or
// speak of the maximum context length.
var overflowMarks = []string{
	"prompt is too long",
	"context_length_exceeded",
	"maximum context length",
	"context window",
	"input is too long",
	"too many input tokens",
}

// IsOverflow says whether a provider error reports a context overflow.
// Providers give no common code for it, so the words are matched: in the
// error, and in the SDK error under an APIError, where OpenAI's code is.
func IsOverflow(err error) bool { return isOverflow(err) }

func isOverflow(err error) bool {
	msg := strings.ToLower(err.Error())
	var api *provider.APIError
	if errors.As(err, &api) && api.Err != nil {
		msg += " " + strings.ToLower(api.Err.Error())
	}
	for _, m := range overflowMarks {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// Options configure an agent.
type Options struct {
	Provider  provider.Provider
	Model     string
	System    string
	MaxTokens int
	Tools     *tool.Registry
	Gate      *gate.Gate
	Env       tool.Env
	// MaxToolIterations caps the rounds of tool calls; negative means
	// uncapped, 0 means no tool call runs.
	MaxToolIterations int
	Sink              event.Sink
	// Session is stamped on every event.
	Session string
	// Steer, when set, hands over the messages a person sent while the
	// run worked; they join the next request right after the results of
	// the calls in flight.
	Steer func() []string
	// Compact, when set, shortens the conversation and returns the one
	// to go on with (a summary and the turns kept). The loop calls it
	// before a request once the last request's input passed CompactAt
	// tokens, and to retry, once, a request the provider refused as too
	// long, unless a mutating or command tool ran in this run.
	Compact func(ctx context.Context, c Compaction) ([]chat.Message, error)
	// CompactAt is the input tokens past which the conversation is
	// compacted before the next request; 0 compacts only on overflow.
	CompactAt int64
	// LastInput is the input tokens of the last request of a resumed
	// conversation, when known, for CompactAt.
	LastInput int64
	// Offered, when set, narrows the tools a request offers the model
	// to the names it holds true for (nil: every tool of Tools). It is
	// asked before each request, so the offer may grow during a run; a
	// call may still name any tool of Tools.
	Offered func(name string) bool
}

// Compaction is what Options.Compact is asked to shorten.
type Compaction struct {
	Messages []chat.Message
	Reason   CompactReason
	// LastInput is the input tokens of the last request, 0 when unknown.
	LastInput int64
	// Instructions are the person's words for the summary (/compact's).
	Instructions string
}

// CompactReason says why a conversation is compacted.
type CompactReason string

const (
	CompactManual   CompactReason = "manual"   // asked for (/compact)
	CompactAuto     CompactReason = "auto"     // the last request came near the window
	CompactOverflow CompactReason = "overflow" // the provider refused the request as too long
)

// Agent holds one conversation.
type Agent struct {
	opts     Options
	messages []chat.Message
	turn     int
	usage    chat.Usage
	// malformed holds this turn's calls whose arguments the provider
	// could not use (provider.Response.Malformed): they are answered
	// with an error, never run.
	malformed map[string]string
	// lastInput is the input tokens of the last request; fresh says it
	// went out right after a compaction (compacting again at once would
	// not help), compacted that one happened since the last request;
	// changed says a mutating or command tool ran in this run.
	lastInput int64
	fresh     bool
	compacted bool
	changed   bool
}

// New builds an agent that continues the given conversation (nil for a
// fresh one).
func New(opts Options, history []chat.Message) *Agent {
	if opts.Tools == nil {
		opts.Tools = tool.NewRegistry()
	}
	if opts.Gate == nil {
		opts.Gate = gate.New(gate.Options{Sink: opts.Sink})
	}
	return &Agent{opts: opts, messages: Repair(history), lastInput: opts.LastInput}
}

// Messages returns the conversation so far.
func (a *Agent) Messages() []chat.Message { return a.messages }

// Usage returns the tokens used by this agent's provider calls.
func (a *Agent) Usage() chat.Usage { return a.usage }

// LastInput is the input tokens of the last request, 0 when unknown.
func (a *Agent) LastInput() int64 { return a.lastInput }

// Compact shortens the conversation now with Options.Compact. It must
// not be called while Run runs.
func (a *Agent) Compact(ctx context.Context, why CompactReason, instructions string) error {
	if a.opts.Compact == nil {
		return errors.New("compaction is not available")
	}
	msgs, err := a.opts.Compact(ctx, Compaction{Messages: a.messages, Reason: why, LastInput: a.lastInput, Instructions: instructions})
	if err != nil {
		return err
	}
	a.messages, a.compacted = Repair(msgs), true
	return nil
}

// Run adds a user prompt and loops until the model gives a final answer.
// It returns that final assistant message.
func (a *Agent) Run(ctx context.Context, prompt string) (chat.Message, error) {
	return a.run(ctx, prompt, false)
}

// RunQueued is Run for a prompt that waited in a queue (a follow-up, or a
// steer that found no boundary): its agent_start says so.
func (a *Agent) RunQueued(ctx context.Context, prompt string) (chat.Message, error) {
	return a.run(ctx, prompt, true)
}

func (a *Agent) run(ctx context.Context, prompt string, queued bool) (chat.Message, error) {
	user := chat.UserText(prompt)
	a.emit(event.AgentStart{Message: user, Queued: queued})
	final, err := a.loop(ctx, user)
	// A copy: subscribers read the event after the next run has begun.
	total := a.usage
	end := event.AgentEnd{Usage: total}
	if err != nil {
		end.Error = err.Error()
	}
	a.emit(end)
	return final, err
}

func (a *Agent) loop(ctx context.Context, user chat.Message) (chat.Message, error) {
	// A cancelled turn may have left a prompt without an answer or a call
	// without a result; both wire formats want a well-formed conversation.
	a.push(user)
	a.messages = Repair(a.messages)
	a.changed = false
	rounds := 0
	for {
		if err := ctx.Err(); err != nil {
			return chat.Message{}, err
		}
		a.turn++
		a.emit(event.TurnStart{})
		a.emit(event.MessageStart{})
		resp, err := a.ask(ctx, a.toolSpecs())
		if err != nil {
			if ctx.Err() != nil {
				err = ctx.Err()
			} else {
				if isOverflow(err) && !errors.Is(err, ErrContextOverflow) {
					err = fmt.Errorf("%w (%v)", ErrContextOverflow, err)
				}
				a.emit(event.Error{Error: err.Error()})
			}
			a.emit(event.TurnEnd{})
			return chat.Message{}, err
		}
		a.usage = a.usage.Add(resp.Usage)
		a.malformed = resp.Malformed
		msg := resp.Message
		msg.Role = chat.Assistant
		a.push(msg)
		u := resp.Usage
		a.emit(event.MessageEnd{Message: &msg, Usage: &u, StopReason: resp.StopReason})

		calls := msg.ToolUses()
		if len(calls) == 0 {
			a.emit(event.TurnEnd{})
			return msg, nil
		}
		for _, c := range calls {
			a.emit(event.ToolCall{CallID: c.ID, Tool: c.Name, Class: a.classOf(c.Name), Args: c.Input})
		}
		if a.opts.MaxToolIterations >= 0 && rounds >= a.opts.MaxToolIterations {
			err := fmt.Errorf("%w (--max-tool-iterations %d)", ErrMaxIterations, a.opts.MaxToolIterations)
			skipped := notRun(calls, "not run: "+err.Error())
			// Every call gets its result event, so that a frontend can
			// mark the calls that never ran.
			for i, c := range calls {
				b := skipped.Content[i]
				a.emit(event.ToolResult{CallID: c.ID, Tool: c.Name, Result: b.Text, IsError: true,
					Outcome: event.OutcomeNotRun, Reason: "limit"})
			}
			a.push(skipped)
			a.emit(event.Error{Error: err.Error()})
			a.emit(event.TurnEnd{})
			return msg, err
		}
		rounds++
		results := a.runTools(ctx, calls)
		a.steer(&results)
		a.push(results)
		a.emit(event.TurnEnd{})
		if err := ctx.Err(); err != nil {
			return chat.Message{}, err
		}
	}
}

// ask sends the conversation and returns the answer. The conversation
// is compacted first when the last request came near the context window,
// and once more to retry a request the provider refused as too long.
func (a *Agent) ask(ctx context.Context, specs []chat.ToolSpec) (provider.Response, error) {
	if a.opts.Compact != nil && a.opts.CompactAt > 0 && a.lastInput > a.opts.CompactAt && !a.fresh && !a.compacted {
		// A failed compaction leaves the conversation as it was: it
		// still fits, within the reserve; the host has said why.
		_ = a.Compact(ctx, CompactAuto, "")
	}
	resp, err := a.stream(ctx, specs)
	if err == nil || ctx.Err() != nil || !isOverflow(err) || a.opts.Compact == nil {
		return resp, err
	}
	if a.changed {
		return resp, fmt.Errorf("%w (%v); a mutating or command tool already ran in this turn, so wisp did not compact and retry: run /compact, then ask again", ErrContextOverflow, err)
	}
	if cerr := a.Compact(ctx, CompactOverflow, ""); cerr != nil {
		return resp, fmt.Errorf("%w (%v); compacting the conversation failed: %v", ErrContextOverflow, err, cerr)
	}
	a.emit(event.Retry{Attempt: 1, Error: fmt.Sprintf("%v (%v); the conversation was compacted", ErrContextOverflow, err)})
	a.emit(event.MessageStart{})
	return a.stream(ctx, specs)
}

// stream makes one provider request with the conversation as it stands.
func (a *Agent) stream(ctx context.Context, specs []chat.ToolSpec) (provider.Response, error) {
	resp, err := a.opts.Provider.Stream(ctx, provider.Request{
		Model: a.opts.Model, System: a.opts.System, Messages: a.messages,
		Tools: specs, MaxTokens: a.opts.MaxTokens,
	}, provider.Callbacks{
		Text: func(d string) { a.emit(event.MessageDelta{Delta: d}) },
		Retry: func(attempt int, delay time.Duration, cause error) {
			a.emit(event.Retry{Attempt: attempt - 1, DelayMS: delay.Milliseconds(), Error: cause.Error()})
		},
	})
	if err == nil {
		u := resp.Usage
		a.fresh, a.compacted = a.compacted, false
		a.lastInput = u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
	}
	return resp, err
}

// steer adds the steering messages waiting at this boundary to the
// message that carries the calls' results: the model reads them right
// after the results, in the same user turn (the wire formats want the
// results to follow the calls directly, and roles to alternate).
func (a *Agent) steer(results *chat.Message) {
	if a.opts.Steer == nil {
		return
	}
	if texts := a.opts.Steer(); len(texts) > 0 {
		results.Content = append(results.Content, chat.Block{Type: chat.Text, Text: strings.Join(texts, "\n\n")})
	}
}

// push appends a message to the conversation and announces it, so the
// transcript records user and tool-result messages as well as answers.
func (a *Agent) push(m chat.Message) {
	a.messages = append(a.messages, m)
	if m.Role == chat.User {
		a.emit(event.MessageEnd{Message: &m})
	}
}

func (a *Agent) toolSpecs() []chat.ToolSpec {
	var out []chat.ToolSpec
	for _, s := range a.opts.Tools.Specs() {
		if a.opts.Offered != nil && !a.opts.Offered(s.Name) {
			continue
		}
		out = append(out, chat.ToolSpec{Name: s.Name, Description: s.Description, Schema: s.Schema})
	}
	return out
}

func (a *Agent) classOf(name string) string {
	if t, ok := a.opts.Tools.Get(name); ok {
		return string(t.Spec().Class)
	}
	return ""
}

// runTools runs one response's calls. Consecutive read-class calls run
// concurrently; any other call runs alone, in order, so a read after a
// write sees the write. Results keep the calls' order.
func (a *Agent) runTools(ctx context.Context, calls []chat.Block) chat.Message {
	results := make([]chat.Block, len(calls))
	for i := 0; i < len(calls); {
		j := i + 1
		if a.classOf(calls[i].Name) == string(tool.Read) {
			for j < len(calls) && a.classOf(calls[j].Name) == string(tool.Read) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[k] = a.runOne(ctx, calls[k])
			}()
		}
		wg.Wait()
		i = j
	}
	return chat.Message{Role: chat.User, Content: results}
}

func (a *Agent) runOne(ctx context.Context, c chat.Block) chat.Block {
	start := time.Now()
	a.emit(event.ToolStart{CallID: c.ID, Tool: c.Name, Class: a.classOf(c.Name)})
	res := a.executeGuarded(ctx, c)
	a.emit(event.ToolEnd{CallID: c.ID, Tool: c.Name, DurationMS: time.Since(start).Milliseconds(), IsError: res.IsError})
	outcome, code, why := outcomeOf(res)
	if cls := a.classOf(c.Name); cls != "" && cls != string(tool.Read) && outcome != event.OutcomeRefused {
		// Only such calls run alone (runTools), so no other goroutine
		// writes this meanwhile.
		a.changed = true
	}
	a.emit(event.ToolResult{CallID: c.ID, Tool: c.Name, Result: res.Content, IsError: res.IsError,
		Outcome: outcome, ExitCode: code, Reason: why})
	return chat.Block{Type: chat.ToolResult, ToolUseID: c.ID, Text: res.Content, IsError: res.IsError}
}

// outcomeOf says how a call ended, for the person watching: the outcome,
// the exit status of a command that ran to its end, and a short reason
// for a refusal or an error.
func outcomeOf(res tool.Result) (outcome string, exitCode *int, why string) {
	o := res.Command
	if o != nil && !o.TimedOut && o.Signal == "" {
		code := o.ExitCode
		exitCode = &code
	}
	switch {
	case res.Refusal != "":
		return event.OutcomeRefused, exitCode, res.Refusal
	case o != nil && o.TimedOut:
		return event.OutcomeError, nil, "timed out"
	case o != nil && o.Canceled:
		return event.OutcomeError, nil, "interrupted"
	case o != nil && o.Signal != "":
		return event.OutcomeError, nil, "ended by " + o.Signal
	case res.IsError:
		return event.OutcomeError, exitCode, shortError(res.Content)
	case exitCode != nil && *exitCode != 0:
		return event.OutcomeExit, exitCode, ""
	}
	return event.OutcomeOK, exitCode, ""
}

// shortError is the first line of a tool error without its "error: ".
func shortError(content string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	return strings.TrimSpace(strings.TrimPrefix(first, "error:"))
}

// executeGuarded runs a call and turns a panic inside it into a tool
// error: the call runs on its own goroutine, where a panic would end wisp
// without stopping the processes of the other calls or recording any
// result; this way the session keeps its record and the model is told.
func (a *Agent) executeGuarded(ctx context.Context, c chat.Block) (res tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = tool.Errorf("%s failed inside wisp (%v); the call may have partly run", c.Name, p)
			a.emit(event.Error{CallID: c.ID, Tool: c.Name, Error: fmt.Sprintf("tool %s panicked: %v\n%s", c.Name, p, debug.Stack())})
		}
	}()
	return a.execute(ctx, c)
}

func (a *Agent) execute(ctx context.Context, c chat.Block) tool.Result {
	if ctx.Err() != nil {
		return tool.Errorf("cancelled before it ran")
	}
	if why, bad := a.malformed[c.ID]; bad {
		return tool.Errorf("malformed arguments for %s: %s; the call was not run", c.Name, why)
	}
	t, ok := a.opts.Tools.Get(c.Name)
	if !ok {
		names := a.opts.Tools.SortedNames()
		if len(names) == 0 {
			return tool.Errorf("unknown tool %q; no tools are available in this run", c.Name)
		}
		return tool.Errorf("unknown tool %q; available tools: %s", c.Name, strings.Join(names, ", "))
	}
	args := c.Input
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if !json.Valid(args) {
		return tool.Errorf("malformed arguments for %s: not valid JSON", c.Name)
	}
	res, err := a.opts.Gate.Run(ctx, gate.Call{ID: c.ID, Name: c.Name, Args: args, Turn: a.turn}, t, a.opts.Env)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("cancelled: %v", err)
		}
		return tool.Errorf("%s failed: %v", c.Name, err)
	}
	if ctx.Err() != nil && !res.IsError {
		res.Content += "\n[run cancelled]"
	}
	return res
}

func (a *Agent) emit(e event.Event) {
	if a.opts.Sink == nil {
		return
	}
	a.opts.Sink(event.Stamp(e, event.Header{Time: time.Now(), Turn: a.turn, Session: a.opts.Session}))
}

func notRun(calls []chat.Block, why string) chat.Message {
	m := chat.Message{Role: chat.User}
	for _, c := range calls {
		m.Content = append(m.Content, chat.Block{Type: chat.ToolResult, ToolUseID: c.ID, Text: "error: " + why, IsError: true})
	}
	return m
}

// NotRun is the result a repaired conversation gives a call that never
// started (a call that started has its result, or the transcript's
// "interrupted" one).
const NotRun = "error: not run: the session was interrupted"

// Repair makes a conversation sendable again after an interrupted run:
// every tool call gets a result (a call that never ran is answered with
// NotRun), and results without a call are dropped. Providers reject a
// conversation that breaks either rule. Consecutive user messages are
// joined first, so results split over several messages all count.
func Repair(msgs []chat.Message) []chat.Message {
	msgs = mergeUsers(msgs)
	var out []chat.Message
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != chat.Assistant {
			continue
		}
		calls := m.ToolUses()
		if len(calls) == 0 {
			continue
		}
		have := map[string]chat.Block{}
		var extra []chat.Block
		if i+1 < len(msgs) && msgs[i+1].Role == chat.User {
			for _, b := range msgs[i+1].Content {
				if b.Type == chat.ToolResult {
					have[b.ToolUseID] = b
				} else {
					extra = append(extra, b)
				}
			}
			i++
		}
		fixed := chat.Message{Role: chat.User}
		for _, c := range calls {
			if b, ok := have[c.ID]; ok {
				fixed.Content = append(fixed.Content, b)
				continue
			}
			fixed.Content = append(fixed.Content, chat.Block{Type: chat.ToolResult, ToolUseID: c.ID, Text: NotRun, IsError: true})
		}
		fixed.Content = append(fixed.Content, extra...)
		out = append(out, fixed)
	}
	return mergeUsers(out)
}

// mergeUsers joins consecutive user messages, which both wire formats
// reject or mishandle after a repair.
func mergeUsers(msgs []chat.Message) []chat.Message {
	var out []chat.Message
	for _, m := range msgs {
		if n := len(out); n > 0 && m.Role == chat.User && out[n-1].Role == chat.User {
			out[n-1].Content = append(append([]chat.Block(nil), out[n-1].Content...), m.Content...)
			sortResultsFirst(out[n-1].Content)
			continue
		}
		out = append(out, m)
	}
	return out
}

// sortResultsFirst keeps tool results ahead of text, as Anthropic requires.
func sortResultsFirst(bs []chat.Block) {
	sort.SliceStable(bs, func(i, j int) bool {
		return bs[i].Type == chat.ToolResult && bs[j].Type != chat.ToolResult
	})
}
