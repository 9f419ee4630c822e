package wisps

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// scripted answers each request with the next message and keeps the
// requests.
type scripted struct {
	mu      sync.Mutex
	replies []chat.Message
	reqs    []provider.Request
}

func (s *scripted) Stream(_ context.Context, req provider.Request, _ provider.Callbacks) (provider.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		return provider.Response{Message: chat.Message{Role: chat.Assistant, Content: []chat.Block{{Type: chat.Text, Text: "done"}}}}, nil
	}
	m := s.replies[0]
	s.replies = s.replies[1:]
	return provider.Response{Message: m}, nil
}

func call(id, name, input string) chat.Block {
	return chat.Block{Type: chat.ToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

func assistant(blocks ...chat.Block) chat.Message {
	return chat.Message{Role: chat.Assistant, Content: blocks}
}

func TestLLMStep(t *testing.T) {
	ft := newFakeTools()
	ft.answer = func(_ context.Context, name string, _ json.RawMessage) (tool.Result, error) {
		if name == "mcp__mail__create" {
			return tool.Result{Content: "error: unavailable", IsError: true}, nil
		}
		return tool.Result{Content: strings.Repeat("r", 5000)}, nil
	}
	src := `{"tools":["mail__create"],"steps":[{"id":"fetch","mode":"Direct","gateway":"Mcp","tool":"mail__search","params":{}},
	  {"id":"sum","mode":"Llm","prompt":"Summarise {{steps.fetch.result.none}}"}]}`
	cases := []struct {
		name     string
		replies  []chat.Message
		ok       bool
		output   string
		category Category
	}{
		{"text answer", []chat.Message{assistant(chat.Block{Type: chat.Text, Text: " summary "})}, true, "summary", ""},
		{"tools then text", []chat.Message{
			assistant(call("1", "mcp__mail__search", `{}`), call("2", "bash", `{}`), call("3", memGet, `{"key":"wisp/w/fetch/output"}`), call("4", memGet, `{"key":"wisp/other/x/output"}`)),
			assistant(chat.Block{Type: chat.Text, Text: "ok"})}, true, "ok", ""},
		{"all writes failed", []chat.Message{assistant(call("1", "mcp__mail__create", `{}`)), assistant(chat.Block{Type: chat.Text, Text: "tried"})}, false, "tried", External},
		{"empty answer", []chat.Message{assistant()}, false, "", Judgment},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prov := &scripted{replies: c.replies}
			x := NewExecutor(Options{Tools: ft, Provider: prov, Model: "small", Memory: memory.New(nil)})
			res := x.Run(context.Background(), Job{WispID: "w", Plan: mustPlan(t, ft, src)})
			st := res.Steps[1]
			if (st.Status == StatusOK) != c.ok || st.Output != c.output || st.Category != c.category {
				t.Fatalf("step %+v", st)
			}
			first := prov.reqs[0]
			if first.Model != "small" || !strings.HasPrefix(first.System, directives) || !strings.Contains(first.System, "Current date and time: ") {
				t.Fatalf("system %q", first.System)
			}
			var names []string
			for _, tl := range first.Tools {
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "mcp__mail__search,mcp__mail__create,GetFromWorkingMemory,SearchWorkingMemory,ListWorkingMemory" {
				t.Fatalf("tools %s", got)
			}
			user := first.Messages[0].TextOf()
			if !strings.HasPrefix(user, "Summarise {{steps.fetch.result.none}}\n\n## Prior Step Results\n\n### fetch\n") ||
				!strings.Contains(user, "[truncated at 4000 of 5000 characters; full output in working memory at wisp/w/fetch/output]") {
				t.Fatalf("user message %q", user[:200])
			}
			if c.name == "tools then text" {
				res := prov.reqs[1].Messages[2].Content
				if res[0].IsError || !res[1].IsError || !strings.Contains(res[1].Text, "not in this wisp's scope") ||
					res[2].IsError || len(res[2].Text) != 5000 || !res[3].IsError {
					t.Fatalf("tool results %+v", res)
				}
			}
		})
	}
}

func TestLLMInputFrom(t *testing.T) {
	cases := []struct {
		name, content string
		chunks        int
	}{{"small inline", "hello", 0}, {"large chunked", strings.Repeat("x", 20000), 3}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			prov := &scripted{}
			mem := memory.New(nil)
			ft := newFakeTools()
			x := NewExecutor(Options{Tools: ft, Provider: prov, Memory: mem, Volume: Volume{Root: root}})
			res := x.Run(context.Background(), Job{WispID: "w", Plan: mustPlan(t, ft, `{"steps":[{"id":"s","mode":"Llm","prompt":"read","input_from":"in.txt"}]}`)})
			if !res.OK {
				t.Fatal(res.Error)
			}
			user := prov.reqs[0].Messages[0].TextOf()
			if strings.Contains(user, "Prior Step Results") {
				t.Fatal("prior results injected alongside input_from")
			}
			if c.chunks == 0 && user != "read\n\n## Input (in.txt)\nhello" {
				t.Fatalf("user %q", user)
			}
			for i := range c.chunks {
				key := "wisp/w/s/input/" + string(rune('0'+i))
				if _, ok := mem.Get(key); !ok || !strings.Contains(user, "| "+string(rune('0'+i))+" | "+key+" |") {
					t.Fatalf("chunk %s missing; user %q", key, user)
				}
			}
		})
	}
}

func TestDirectWispMakesNoModelRequest(t *testing.T) {
	prov := &scripted{}
	ft := newFakeTools()
	x := NewExecutor(Options{Tools: ft, Provider: prov, Memory: memory.New(nil)})
	res := x.Run(context.Background(), Job{WispID: "w", Plan: mustPlan(t, ft, fmt2(threeSteps))})
	if !res.OK || len(prov.reqs) != 0 {
		t.Fatalf("ok=%v requests=%d", res.OK, len(prov.reqs))
	}
}

func fmt2(s string) string { return strings.Replace(s, "%s", "", 1) }

func TestLLMWithoutModelIsStructural(t *testing.T) {
	ft := newFakeTools()
	res, _ := runOne(t, ft, `{"steps":[{"id":"s","mode":"Llm","prompt":"p"}]}`)
	if res.OK || res.Category != Structural {
		t.Fatalf("%v %s", res.OK, res.Category)
	}
}
