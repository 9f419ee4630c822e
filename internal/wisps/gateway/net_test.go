package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

func TestWebSearch(t *testing.T) {
	var gotQuery, gotAuth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotAuth = r.URL.Query().Get("q"), r.Header.Get("Authorization")
		switch r.URL.Query().Get("q") {
		case "broken":
			http.Error(w, "down", http.StatusServiceUnavailable)
		case "html":
			fmt.Fprint(w, "<html>not json</html>")
		default:
			var res []string
			for i := range 12 {
				res = append(res, fmt.Sprintf(`{"title":"T%d\n  x","url":"https://r.example/%d","content":"%s"}`, i, i, strings.Repeat("s", 600)))
			}
			res = append([]string{`{"title":"bad","url":"javascript:alert(1)","content":"x"}`}, res...)
			fmt.Fprintf(w, `{"query":"x","results":[%s]}`, strings.Join(res, ","))
		}
	}))
	defer srv.Close()
	s := &Search{Backend: config.WebSearch{URL: srv.URL + "/search?q={query}&format=json", HeadersFrom: map[string]string{"Authorization": "SEARCH_TOKEN"}},
		Getenv: func(k string) string { return map[string]string{"SEARCH_TOKEN": "Bearer t"}[k] }}
	cases := []struct {
		name, args, wantErr string
		wantN               int
	}{
		{"default count", `{"query":"go & wisp"}`, "", 5},
		{"max results", `{"query":"a","max_results":10}`, "", 10},
		{"too many", `{"query":"a","max_results":11}`, "invalid argument max_results", 0},
		{"no query", `{"query":"  "}`, "missing required parameter query", 0},
		{"unknown arg", `{"query":"a","page":2}`, "invalid arguments for web_search", 0},
		{"backend down", `{"query":"broken"}`, "503", 0},
		{"not json", `{"query":"html"}`, "not valid JSON", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Run(context.Background(), nil, json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if c.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Content, c.wantErr) {
					t.Fatalf("result %+v, want error %q", res, c.wantErr)
				}
				return
			}
			var got []SearchResult
			if res.IsError || json.Unmarshal([]byte(res.Content), &got) != nil {
				t.Fatalf("result %+v, want a JSON array", res)
			}
			if len(got) != c.wantN || got[0].Title != "T0 x" || got[0].URL != "https://r.example/0" || len(got[0].Snippet) > searchSnippetBytes+len("…") {
				t.Errorf("got %d results, first %+v", len(got), got[0])
			}
		})
	}
	if gotAuth != "Bearer t" {
		t.Errorf("Authorization %q, want the variable's value", gotAuth)
	}
	if _, err := s.Run(context.Background(), nil, json.RawMessage(`{"query":"go & wisp"}`)); err != nil || gotQuery != "go & wisp" {
		t.Errorf("backend saw query %q, want it URL-encoded into {query}", gotQuery)
	}
	t.Run("a missing header variable sends nothing", func(t *testing.T) {
		gotQuery = ""
		s := &Search{Backend: s.Backend, Getenv: func(string) string { return "" }}
		res, _ := s.Run(context.Background(), nil, json.RawMessage(`{"query":"q1"}`))
		if !res.IsError || !strings.Contains(res.Content, "SEARCH_TOKEN") || gotQuery != "" {
			t.Errorf("result %+v, backend saw %q", res, gotQuery)
		}
	})
	t.Run("invocation reaches the network", func(t *testing.T) {
		inv, err := s.Invocation(json.RawMessage(`{"query":"wisp"}`))
		if err != nil || !inv.Network || strings.Contains(inv.Subject, "Bearer") || !strings.Contains(inv.Subject, `"wisp"`) {
			t.Errorf("invocation %+v, %v", inv, err)
		}
	})
}

// a2aAgent is an A2A agent for tests: it checks the message/send
// request and answers with reply(text).
func a2aAgent(t *testing.T, reply func(text string) string) (*httptest.Server, *[]map[string]any) {
	var seen []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			JSONRPC, Method string
			ID              any
			Params          struct {
				Message struct {
					Kind, Role, MessageID string
					Parts                 []struct{ Kind, Text string }
					Metadata              map[string]any
				}
			}
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || req.Method != "message/send" ||
			req.Params.Message.Role != "user" || req.Params.Message.Kind != "message" || req.Params.Message.MessageID == "" || len(req.Params.Message.Parts) != 1 {
			t.Errorf("not a message/send request: %s", body)
			http.Error(w, "bad request", 400)
			return
		}
		var m map[string]any
		_ = json.Unmarshal(body, &m)
		seen = append(seen, m)
		idJSON, _ := json.Marshal(req.ID)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,%s}`, idJSON, reply(req.Params.Message.Parts[0].Text))
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestInvokeAgent(t *testing.T) {
	srv, seen := a2aAgent(t, func(text string) string {
		switch text {
		case "hello":
			return `"result":{"kind":"message","role":"agent","messageId":"m2","parts":[{"kind":"text","text":"hi there"}]}`
		case "done":
			return `"result":{"kind":"task","id":"t1","contextId":"c1","status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":"report"},{"kind":"data","data":{"n":1}}]}]}`
		case "later":
			return `"result":{"kind":"task","id":"t2","contextId":"c1","status":{"state":"working"}}`
		case "fail":
			return `"result":{"kind":"task","id":"t3","status":{"state":"failed","message":{"kind":"message","role":"agent","parts":[{"kind":"text","text":"quota"}]}}}`
		default:
			return `"error":{"code":-32601,"message":"Method not found"}`
		}
	})
	a := &Agent{Agents: []config.A2AAgent{{Name: "research", URL: srv.URL}}}
	cases := []struct {
		name, args, want string
		isErr            bool
	}{
		{"message reply", `{"agent":"research","skill":"chat","message":"hello"}`, "hi there", false},
		{"completed task", `{"agent":"research","skill":"chat","message":"done"}`, "report\n{\"n\":1}", false},
		{"failed task", `{"agent":"research","skill":"chat","message":"fail"}`, "task t3 failed: quota", true},
		{"rpc error", `{"agent":"research","skill":"chat","message":"?"}`, "JSON-RPC error -32601", true},
		{"unknown agent", `{"agent":"nobody","skill":"chat","message":"hello"}`, `unknown agent "nobody"`, true},
		{"missing skill", `{"agent":"research","message":"hello"}`, "missing required parameter", true},
		// Last: a pending task holds back every later dispatch
		// (TestPendingTaskHoldsDispatches).
		{"pending task", `{"agent":"research","skill":"chat","message":"later"}`, "Task t2 dispatched to agent research (state: working)", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := a.Run(context.Background(), nil, json.RawMessage(c.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != c.isErr || !strings.Contains(res.Content, c.want) {
				t.Errorf("result %+v, want isError=%v containing %q", res, c.isErr, c.want)
			}
		})
	}
	if len(*seen) == 0 {
		t.Fatal("the agent saw no request")
	}
	md, _ := (*seen)[0]["params"].(map[string]any)["metadata"].(map[string]any)
	if md["skill"] != "chat" {
		t.Errorf("skill not sent in metadata: %v", (*seen)[0])
	}
	inv, err := a.Invocation(json.RawMessage(`{"agent":"research","skill":"chat","message":"hello"}`))
	if err != nil || !inv.Network || inv.Server != "a2a:research" {
		t.Errorf("invocation %+v, %v", inv, err)
	}
}

func TestNetworkToolsAreRemote(t *testing.T) {
	for _, tl := range []tool.Tool{&Browse{}, &Search{}, &Agent{}} {
		if _, ok := tl.(tool.Remote); !ok || tl.Spec().Class == tool.Read {
			t.Errorf("%s must be a remote tool that is not class read, so the gate asks", tl.Spec().Name)
		}
	}
	inv, err := (&Browse{}).Invocation(json.RawMessage(`{"url":"https://example.test/"}`))
	if err != nil || !inv.Network {
		t.Errorf("web_browse invocation %+v, %v: must reach the network", inv, err)
	}
}

// TestPendingTaskHoldsDispatches: while a task an agent started has not
// ended, invoke_agent sends no new message: a call to that agent asks it
// about the task (tasks/get) and says how it stands, a call to another
// agent reaches nobody; once the task has ended, dispatches go again.
func TestPendingTaskHoldsDispatches(t *testing.T) {
	var mu sync.Mutex
	state, methods := "working", []string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     any
			Method string
			Params struct {
				ID string
			}
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		defer mu.Unlock()
		methods = append(methods, req.Method)
		id, _ := json.Marshal(req.ID)
		switch {
		case req.Method == "message/send" && len(methods) == 1:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"task","id":"t9","status":{"state":"working"}}}`, id)
		case req.Method == "message/send":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","parts":[{"kind":"text","text":"fresh answer"}]}}`, id)
		case req.Method == "tasks/get" && req.Params.ID == "t9":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"task","id":"t9","status":{"state":%q},"artifacts":[{"parts":[{"kind":"text","text":"the report"}]}]}}`, id, state)
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`, id)
		}
	}))
	defer srv.Close()
	a := &Agent{Agents: []config.A2AAgent{{Name: "research", URL: srv.URL}, {Name: "other", URL: srv.URL}}}
	call := func(agent, msg string) tool.Result {
		t.Helper()
		res, err := a.Run(context.Background(), nil, json.RawMessage(`{"agent":"`+agent+`","skill":"s","message":"`+msg+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	steps := []struct {
		agent, msg, want string
		isErr            bool
		method           string // what reached the agent, "" for nothing
	}{
		{"research", "start", "Task t9 dispatched", false, "message/send"},
		{"research", "next", "not sent: task t9 of agent research is pending (state: working)", true, "tasks/get"},
		{"other", "next", "call invoke_agent for agent research to check on it", true, ""},
	}
	for i, st := range steps {
		mu.Lock()
		before := len(methods)
		mu.Unlock()
		res := call(st.agent, st.msg)
		if res.IsError != st.isErr || !strings.Contains(res.Content, st.want) {
			t.Fatalf("step %d: %+v, want isError=%v containing %q", i, res, st.isErr, st.want)
		}
		mu.Lock()
		got := methods[before:]
		mu.Unlock()
		if (st.method == "" && len(got) != 0) || (st.method != "" && (len(got) != 1 || got[0] != st.method)) {
			t.Fatalf("step %d reached the agent with %q, want %q", i, got, st.method)
		}
	}
	mu.Lock()
	state = "completed"
	mu.Unlock()
	if res := call("research", "next"); res.IsError || !strings.Contains(res.Content, "Task t9 of agent research has ended (completed); your new message was not sent") || !strings.Contains(res.Content, "the report") {
		t.Fatalf("after the task ended: %+v", res)
	}
	if res := call("other", "again"); res.IsError || res.Content != "fresh answer" {
		t.Fatalf("a dispatch after the task ended: %+v", res)
	}
}
