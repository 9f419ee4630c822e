package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
	"github.com/wisp-agent/wisp/internal/wisps/template"
)

// directives is all the context an LLM step gets besides its prompt and
// data: no soul, memory, history or skills.
const directives = `You are one step of a wisp: a supervised pipeline run by a harness. Do exactly what the step below asks, nothing more.
- Call only the tools you are given. If a tool you need is missing, say so and stop.
- Data from earlier steps is below or in working memory; read it with GetFromWorkingMemory, SearchWorkingMemory or ListWorkingMemory when the text says it was truncated or chunked.
- If a tool call fails and retrying with corrected arguments cannot help, stop and report the error plainly; do not invent results.
- Your final message is the step's output, passed to later steps as is: give the result itself (plain text or JSON as asked), no preamble.`

// maxLLMRounds bounds an LLM step's tool round-trips; there is no
// follow-up pass after it.
const maxLLMRounds = 10

// chunkSize is the size of the working-memory chunks of a large input.
const chunkSize = 8000

// Working-memory tools every LLM step gets.
const (
	memGet    = "GetFromWorkingMemory"
	memSearch = "SearchWorkingMemory"
	memList   = "ListWorkingMemory"
)

func memoryTools() []chat.ToolSpec {
	return []chat.ToolSpec{
		{Name: memGet, Description: "Read one entry of this wisp's working memory by key.", Schema: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`)},
		{Name: memSearch, Description: "Find this wisp's working-memory entries whose key or text contains the query.", Schema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
		{Name: memList, Description: "List the keys of this wisp's working memory.", Schema: json.RawMessage(`{"type":"object","properties":{}}`)},
	}
}

// llm runs an LLM step: one scoped conversation with the small model.
func (r *wispRun) llm(ctx context.Context, st Step) StepResult {
	var sr StepResult
	if r.x.o.Provider == nil {
		sr.Status, sr.Category, sr.Error = StatusFailed, Structural, "no model is configured for LLM steps"
		return sr
	}
	user, err := r.prompt(st)
	if err != nil {
		sr.Status, sr.Category, sr.Error = StatusFailed, Data, err.Error()
		return sr
	}
	msgs := []chat.Message{chat.UserText(user)}
	tools := r.scopedSpecs()
	for range maxLLMRounds {
		resp, err := r.x.o.Provider.Stream(ctx, provider.Request{Model: r.x.o.Model, System: r.system(), Messages: msgs, Tools: tools, MaxTokens: r.x.o.MaxTokens}, provider.Callbacks{})
		if err != nil {
			sr.Status, sr.Category, sr.Error = StatusFailed, External, fmt.Sprintf("model request failed: %v", err)
			return sr
		}
		msgs = append(msgs, resp.Message)
		uses := resp.Message.ToolUses()
		if len(uses) == 0 {
			return r.llmEnd(sr, strings.TrimSpace(resp.Message.TextOf()))
		}
		results := chat.Message{Role: chat.User}
		for _, u := range uses {
			text, isErr, rec := r.llmCall(ctx, u, resp.Malformed[u.ID])
			if rec != nil {
				sr.Calls = append(sr.Calls, *rec)
			}
			results.Content = append(results.Content, chat.Block{Type: chat.ToolResult, ToolUseID: u.ID, Text: text, IsError: isErr})
		}
		msgs = append(msgs, results)
	}
	sr.Status, sr.Category, sr.Error = StatusFailed, Judgment, fmt.Sprintf("the model was still calling tools after %d rounds", maxLLMRounds)
	return sr
}

// llmEnd decides an LLM step's outcome from its last text.
func (r *wispRun) llmEnd(sr StepResult, text string) StepResult {
	total, failed := sr.Writes()
	switch {
	case total > 0 && failed == total:
		sr.Status, sr.Category = StatusFailed, External
		sr.Error = fmt.Sprintf("all %d state-changing calls of the step failed", total)
	case text == "":
		sr.Status, sr.Category, sr.Error = StatusFailed, Judgment, "the model answered with no text"
	default:
		sr.Status = StatusOK
	}
	sr.Output = text
	return sr
}

// llmCall runs one of the model's calls: a working-memory tool here, a
// scoped tool through the Caller, anything else refused.
func (r *wispRun) llmCall(ctx context.Context, u chat.Block, malformed string) (string, bool, *CallRecord) {
	if malformed != "" {
		return "error: " + malformed, true, nil
	}
	switch u.Name {
	case memGet, memSearch, memList:
		text, isErr := r.memoryCall(u.Name, u.Input)
		return text, isErr, nil
	}
	if !slices.Contains(r.plan.Scope, u.Name) {
		return fmt.Sprintf("error: tool %s is not in this wisp's scope; available: %s", u.Name, strings.Join(r.plan.Scope, ", ")), true, nil
	}
	o := r.invoke(ctx, u.Name, u.Input)
	if !o.ok {
		return "error: " + o.errText, true, &o.call
	}
	return o.output, false, &o.call
}

func (r *wispRun) memoryCall(name string, input json.RawMessage) (string, bool) {
	var a struct{ Key, Query string }
	_ = json.Unmarshal(input, &a)
	ns := "wisp/" + r.id
	switch name {
	case memGet:
		if memory.Namespace(a.Key) != ns {
			return "error: key " + a.Key + " is not in this wisp's namespace " + ns, true
		}
		v, ok := r.x.o.Memory.Get(a.Key)
		if !ok {
			return "error: no entry " + a.Key, true
		}
		return v, false
	case memSearch:
		return keys(r.x.o.Memory.Search(ns, a.Query)), false
	}
	return keys(r.x.o.Memory.List(ns)), false
}

func keys(es []memory.Entry) string {
	if len(es) == 0 {
		return "(no entries)"
	}
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s (%d chars)\n", e.Key, len(e.Value))
	}
	return b.String()
}

// scopedSpecs are the tools the model is shown: the plan's scope and the
// working-memory tools.
func (r *wispRun) scopedSpecs() []chat.ToolSpec {
	var out []chat.ToolSpec
	for _, n := range r.plan.Scope {
		if s, ok := r.x.o.Tools.Spec(n); ok {
			out = append(out, chat.ToolSpec{Name: s.Name, Description: s.Description, Schema: s.Schema})
		}
	}
	return append(out, memoryTools()...)
}

func (r *wispRun) system() string {
	now := r.x.o.Now()
	zone, _ := now.Zone()
	return directives + "\n\nCurrent date and time: " + now.Format("2006-01-02 15:04 Monday") + " (" + zone + ")."
}

// prompt builds the step's message: its prompt with templates resolved,
// then its input_from data or the prior steps' results.
func (r *wispRun) prompt(st Step) (string, error) {
	var b strings.Builder
	b.WriteString(template.Resolve(st.Prompt, &r.scope))
	if st.InputFrom != "" {
		name := template.Resolve(st.InputFrom, &r.scope)
		text, err := r.x.o.Volume.Read(name)
		if err != nil {
			return "", err
		}
		b.WriteString(r.input(st, name, text))
		return b.String(), nil
	}
	prior := r.priorResults()
	if prior != "" {
		b.WriteString("\n\n## Prior Step Results\n")
		b.WriteString(prior)
	}
	return b.String(), nil
}

// input inlines a small input file and chunks a large one into working
// memory with an index table.
func (r *wispRun) input(st Step, name, text string) string {
	if len(text) <= InlineInputLimit {
		return "\n\n## Input (" + name + ")\n" + text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n\n## Input (%s)\nThe input is %d characters, stored in working memory in chunks. Read them with %s:\n\n| chunk | key | characters |\n|---|---|---|\n", name, len(text), memGet)
	for i := 0; len(text) > 0; i++ {
		n := len(preview(text, chunkSize))
		key := fmt.Sprintf("wisp/%s/%s/input/%d", r.id, st.ID, i)
		r.x.o.Memory.Set(key, text[:n], memory.DefaultTTL)
		fmt.Fprintf(&b, "| %d | %s | %d |\n", i, key, n)
		text = text[n:]
	}
	return b.String()
}

func (r *wispRun) priorResults() string {
	var b strings.Builder
	for _, s := range r.res.Steps {
		if s.Status != StatusOK {
			continue
		}
		out := strings.TrimSpace(s.Output)
		fmt.Fprintf(&b, "\n### %s\n", s.ID)
		if len(out) > PriorResultLimit {
			fmt.Fprintf(&b, "%s\n[truncated at %d of %d characters; full output in working memory at %s]\n", preview(out, PriorResultLimit), PriorResultLimit, len(out), s.MemoryKey)
			continue
		}
		b.WriteString(out)
		b.WriteString("\n")
	}
	return b.String()
}
