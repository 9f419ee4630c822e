package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host/wispsrun"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps"
)

// remoteEcho stands in for one tool of an MCP server.
type remoteEcho struct{ name, server, remote string }

func (r remoteEcho) Spec() tool.Spec {
	return tool.Spec{Name: r.name, Class: tool.Read, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (r remoteEcho) Run(_ context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: `{"echo":` + string(args) + `}`}, nil
}
func (r remoteEcho) Invocation(json.RawMessage) (tool.Invocation, error) {
	return tool.Invocation{Server: r.server, Tool: r.remote, Subject: r.name}, nil
}

func wispSession(t *testing.T) (*Session, IO, map[string]string) {
	t.Helper()
	base := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sys.Workdir, "note.txt"), []byte("WISP-NOTE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), Options{MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: "print", Approver: gate.Deny{Reason: "NOBODY-TO-ASK"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.toolset.AddMCP([]tool.Tool{remoteEcho{name: "mcp__files__read_text", server: "files", remote: "read_text"}})
	return s, sys, env
}

func TestWispRouting(t *testing.T) {
	s, _, _ := wispSession(t)
	cases := []struct {
		name, def string
		ok        bool
		category  wisps.Category
		has       string
	}{
		{"a built-in is not an Mcp tool", `{"steps":[{"id":"r","mode":"Direct","gateway":"Mcp","tool":"read","params":{"path":"note.txt"}}]}`, false, wisps.Structural, ""},
		{"typed MCP name", `{"steps":[{"id":"r","mode":"Direct","gateway":"Mcp","tool":"files__read_text","params":{"p":1}}]}`, true, "", `{"echo":{"p":1}}`},
		{"server and tool", `{"steps":[{"id":"r","mode":"Direct","gateway":"Mcp","server":"files","tool":"read_text","params":{"p":2}}]}`, true, "", `{"echo":{"p":2}}`},
		{"script refused by the gate is Judgment", `{"steps":[{"id":"s","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"touch made"}}]}`, false, wisps.Judgment, "not run: the gate refused execute_bash_script"},
		{"web_browse is asked about", `{"steps":[{"id":"w","mode":"Direct","gateway":"Web","tool":"web_browse","params":{"url":"http://127.0.0.1:9/"}}]}`, false, wisps.Judgment, "NOBODY-TO-ASK"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs, err := wisps.ParseFile([]byte(c.def))
			if err != nil {
				t.Fatal(err)
			}
			plans, err := s.PrepareWisps(defs)
			if c.category == wisps.Structural {
				if !wisps.IsStructural(err) {
					t.Fatalf("err = %v, want Structural", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.RunWisps(context.Background(), plans, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := b.Results[0]
			if r.OK != c.ok || r.Category != c.category || !strings.Contains(r.Output+r.Error, c.has) {
				t.Fatalf("result ok=%v cat=%s out=%q err=%q", r.OK, r.Category, r.Output, r.Error)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(s.sys.Workdir, "made")); !os.IsNotExist(err) {
		t.Fatalf("the refused script ran: %v", err)
	}
}

func TestWispStructuralGateways(t *testing.T) {
	s, _, _ := wispSession(t)
	cases := []struct{ name, def, want string }{
		{"unresolved typed", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"files__nope"}]}`, `"files__nope" is not a typed MCP tool`},
		{"unknown server", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","server":"mail","tool":"read_text"}]}`, `MCP server "mail" has no tool "read_text"`},
		{"names are looked up, not parsed", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"read"}]}`, `"read" is not a typed MCP tool`},
		{"web_search", `{"steps":[{"id":"a","mode":"Direct","gateway":"Web","tool":"web_search","params":{"query":"x"}}]}`, "web_search has no search backend configured"},
		{"A2A", `{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"helper","skill":"s","message":"m"}]}`, "A2A agents are not configured"},
		{"spawn_wisps is not a wisp tool", `{"tools":["spawn_wisps"],"steps":[{"id":"a","mode":"Llm","prompt":"p"}]}`, `"spawn_wisps" is not a tool`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs, err := wisps.ParseFile([]byte(c.def))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.PrepareWisps(defs)
			if !wisps.IsStructural(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want Structural %q", err, c.want)
			}
		})
	}
}

func TestSpawnWispsTool(t *testing.T) {
	s, _, env := wispSession(t)
	st, ok := s.toolset.All.Get(SpawnWispsName)
	if !ok || s.toolset.Sources[SpawnWispsName] != wispsrun.Source || st.Spec().Class != tool.Read {
		t.Fatal("spawn_wisps is not registered as a wisp tool")
	}
	cases := []struct {
		name, args string
		isErr      bool
		has        string
	}{
		{"summary text", `{"definitions":[{"description":"echo","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"files__read_text","params":{"x":1}}]}]}`, false, "1 wisp(s) completed (1 succeeded, 0 failed, "},
		{"string definitions", `{"definitions":["{\"description\":\"s\",\"steps\":[{\"id\":\"a\",\"mode\":\"Direct\",\"gateway\":\"Mcp\",\"server\":\"files\",\"tool\":\"read_text\"}]}"]}`, false, "[ok]"},
		{"failure is not an error result", `{"definitions":[{"description":"bad","steps":[{"id":"s","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"touch x"}}]}]}`, false, "ALL 1 WISPS FAILED"},
		{"structural is an error result", `{"definitions":[{"steps":[{"id":"a","mode":"Nope"}]}]}`, true, "nothing was run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := st.Run(context.Background(), &tool.Env{}, json.RawMessage(c.args))
			if err != nil || res.IsError != c.isErr || !strings.Contains(res.Content, c.has) {
				t.Fatalf("result %v %+v", err, res)
			}
		})
	}
	recs, err := s.WispLog().Read()
	if err != nil || len(recs) != 3 {
		t.Fatalf("execution log: %d records, %v", len(recs), err)
	}
	if want := filepath.Join(env["WISP_HOME"], "wisps", "executions.jsonl"); s.WispLog().Path != want {
		t.Fatalf("log at %s, want %s", s.WispLog().Path, want)
	}
}

// benchSession is a session with one read-class MCP tool, for the
// overhead benchmarks.
func benchSession(b *testing.B) *Session {
	base := b.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"]); err != nil {
		b.Fatal(err)
	}
	s, err := New(context.Background(), Options{MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: "print"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	s.toolset.AddMCP([]tool.Tool{remoteEcho{name: "mcp__files__read_text", server: "files", remote: "read_text"}})
	return s
}

// BenchmarkWispStepThroughGate is a 5-step direct wisp through the
// session's real gate and audit, per step.
func BenchmarkWispStepThroughGate(b *testing.B) {
	s := benchSession(b)
	step := `{"id":"s%d","mode":"Direct","gateway":"Mcp","tool":"files__read_text","params":{"n":"{{steps.s0.result.echo}}"}}`
	var steps []string
	for i := range 5 {
		steps = append(steps, strings.Replace(step, "%d", string(rune('0'+i)), 1))
	}
	defs, err := wisps.ParseFile([]byte(`{"steps":[` + strings.Join(steps, ",") + `]}`))
	if err != nil {
		b.Fatal(err)
	}
	plans, err := s.PrepareWisps(defs)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if bt, err := s.RunWisps(context.Background(), plans, nil); err != nil || !bt.Results[0].OK {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*5), "ns/step")
}

// BenchmarkCallAnyToolDirect is the baseline: the same call through the
// same gate, with no wisp around it.
func BenchmarkCallAnyToolDirect(b *testing.B) {
	s := benchSession(b)
	for b.Loop() {
		if _, err := s.CallAnyTool(context.Background(), "mcp__files__read_text", json.RawMessage(`{"n":"x"}`)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
}

// TestSpawnWispsRegistered: every session gets spawn_wisps, wisp mcp
// serve's included, unless tools.disabled names it; and the catalogue
// wisp tools builds without a session lists it exactly as a session's
// catalogue does.
func TestSpawnWispsRegistered(t *testing.T) {
	cases := []struct {
		mode, config string
		has          bool
	}{
		{ServeMode, ``, true},
		{"print", ``, true},
		{"interactive", ``, true},
		{"print", `{"tools":{"disabled":["spawn_wisps"]}}`, false},
		{ServeMode, `{"tools":{"disabled":["spawn_wisps"]}}`, false},
	}
	for _, c := range cases {
		t.Run(c.mode+" "+c.config, func(t *testing.T) {
			base := t.TempDir()
			env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0"}
			sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
			if err := mkdirs(sys.Workdir, env["HOME"], env["WISP_HOME"]); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(env["WISP_HOME"], "config.json"), []byte(c.config), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := New(context.Background(), Options{MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, ok := s.toolset.All.Get(SpawnWispsName); ok != c.has {
				t.Fatalf("spawn_wisps registered = %v", ok)
			}
			ts := &ToolSet{All: tool.NewRegistry(), Sources: map[string]string{}}
			ts.AddWispsCatalogue(s.cfg)
			got := tool.Catalog(ts.All, func(n string) string { return ts.Sources[n] })
			var want []tool.Info
			for _, in := range s.Catalog() {
				if in.Name == SpawnWispsName {
					want = append(want, in)
				}
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if string(gj) != string(wj) {
				t.Errorf("catalogue entry %s, session's %s", gj, wj)
			}
		})
	}
	t.Run("the catalogue's entry runs nothing", func(t *testing.T) {
		res, err := wispsrun.Catalogue().Run(context.Background(), &tool.Env{}, json.RawMessage(`{"definitions":[]}`))
		if err != nil || !res.IsError || !strings.Contains(res.Content, "nothing was run") {
			t.Errorf("result %+v, %v", res, err)
		}
	})
}

// netSession is a session whose settings.json and config.json hold the
// given text, with an approver that says yes and records what it was
// asked.
func netSession(t *testing.T, settings, cfg string) (*Session, *[]gate.Request) {
	t.Helper()
	base := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(base, "home"), "WISP_HOME": filepath.Join(base, "wisp"), "WISP_PROVIDER": "fake", "WISP_TRUST": "0", "AGENT_TOKEN": "Bearer agent"}
	sys := IO{Getenv: func(k string) string { return env[k] }, Stderr: &bytes.Buffer{}, Workdir: filepath.Join(base, "ws")}
	if err := mkdirs(sys.Workdir, env["HOME"], env["WISP_HOME"]); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"settings.json": settings, "config.json": cfg} {
		if err := os.WriteFile(filepath.Join(env["WISP_HOME"], name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var asked []gate.Request
	ap := gate.ApproverFunc(func(_ context.Context, r gate.Request) (gate.Answer, error) {
		asked = append(asked, r)
		return gate.Answer{Allow: true}, nil
	})
	s, err := New(context.Background(), Options{MaxToolIters: -1, NoSession: true}, sys, Frontend{Mode: "print", Approver: ap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, &asked
}

func runOne(t *testing.T, s *Session, def string) wisps.Result {
	t.Helper()
	defs, err := wisps.ParseFile([]byte(def))
	if err != nil {
		t.Fatal(err)
	}
	plans, err := s.PrepareWisps(defs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.RunWisps(context.Background(), plans, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.Results[0]
}

// TestWispNetworkGateways: web_search and invoke_agent come from
// settings.json, and every call of theirs (and of web_browse) is asked
// about even with approval.threshold never.
func TestWispNetworkGateways(t *testing.T) {
	search := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"results":[{"title":"Wisp","url":"https://wisp.example/","content":"about %s"}]}`, r.URL.Query().Get("q"))
	}))
	defer search.Close()
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage
			Method string
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Method != "message/send" || r.Header.Get("Authorization") != "Bearer agent" {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"AGENT-SAYS-HI"}]}}`, req.ID)
	}))
	defer agent.Close()
	settings := fmt.Sprintf(`{"web_search":{"url":%q},"a2a_agents":{"helper":{"url":%q,"headers_from":{"Authorization":"AGENT_TOKEN"}}}}`,
		search.URL+"/search?q={query}&format=json", agent.URL)
	s, asked := netSession(t, settings, `{"approval":{"threshold":"never"}}`)
	cases := []struct{ name, def, has, tool string }{
		{"web_search", `{"steps":[{"id":"s","mode":"Direct","gateway":"Web","tool":"web_search","params":{"query":"gophers"}}]}`, `"snippet":"about gophers"`, "web_search"},
		{"web_browse", fmt.Sprintf(`{"steps":[{"id":"b","mode":"Direct","gateway":"Web","tool":"web_browse","params":{"url":%q}}]}`, search.URL+"/?q=page"), "about page", "web_browse"},
		{"A2A", `{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"helper","skill":"greet","message":"hello"}]}`, "AGENT-SAYS-HI", "invoke_agent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := len(*asked)
			r := runOne(t, s, c.def)
			if !r.OK || !strings.Contains(r.Output, c.has) {
				t.Fatalf("result ok=%v out=%q err=%q", r.OK, r.Output, r.Error)
			}
			if len(*asked) != n+1 || (*asked)[n].Tool != c.tool {
				t.Errorf("asked %+v, want one question about %s although the threshold is never", (*asked)[n:], c.tool)
			}
		})
	}
	t.Run("an agent not in settings is Structural", func(t *testing.T) {
		defs, _ := wisps.ParseFile([]byte(`{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"other","skill":"s","message":"m"}]}`))
		if _, err := s.PrepareWisps(defs); !wisps.IsStructural(err) || !strings.Contains(err.Error(), `agent "other" is not configured`) {
			t.Errorf("err = %v", err)
		}
	})
}

// TestWispNetworkSettingsMalformed: a malformed web_search or a2a_agents
// leaves the tool out, and a step naming it is Structural with the file
// and the key.
func TestWispNetworkSettingsMalformed(t *testing.T) {
	s, _ := netSession(t, `{"web_search":{"url":"https://s.example/search"},"a2a_agents":{"helper":{"url":"ftp://x"}}}`, `{}`)
	cases := []struct{ name, def, want string }{
		{"web_search", `{"steps":[{"id":"a","mode":"Direct","gateway":"Web","tool":"web_search","params":{"query":"x"}}]}`, "settings.json: web_search.url: must hold {query} exactly once"},
		{"A2A", `{"steps":[{"id":"a","mode":"Direct","gateway":"A2A","agent":"helper","skill":"s","message":"m"}]}`, "settings.json: a2a_agents.helper.url: must be an http or https URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defs, err := wisps.ParseFile([]byte(c.def))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.PrepareWisps(defs); !wisps.IsStructural(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want Structural %q", err, c.want)
			}
		})
	}
	if !strings.Contains(s.sys.Stderr.(*bytes.Buffer).String(), "web_search.url") {
		t.Errorf("no warning at start: %q", s.sys.Stderr)
	}
}

// TestSpawnWispsFailureAudited: a spawn_wisps call whose wisps failed is
// an ordinary result for the model but a failed call in the audit; one
// whose wisps all succeeded is not.
func TestSpawnWispsFailureAudited(t *testing.T) {
	s, _, env := wispSession(t)
	st, _ := s.toolset.All.Get(SpawnWispsName)
	cases := []struct {
		id, args  string
		auditFail bool
	}{
		{"ok1", `{"definitions":[{"description":"echo","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"files__read_text","params":{"x":1}}]}]}`, false},
		{"bad1", `{"definitions":[{"description":"echo","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"files__read_text"}]},{"description":"bad","steps":[{"id":"s","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"touch x"}}]}]}`, true},
	}
	for _, c := range cases {
		res, err := s.gate.Run(context.Background(), gate.Call{ID: c.id, Name: SpawnWispsName, Args: json.RawMessage(c.args)}, st, tool.Env{Workdir: s.sys.Workdir})
		if err != nil || res.IsError {
			t.Fatalf("%s: result %+v %v: the model must get an ordinary result", c.id, res, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(env["WISP_HOME"], "logs", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		var e struct {
			Kind, Call string
			Details    struct {
				Tool    string `json:"tool"`
				IsError bool   `json:"is_error"`
			} `json:"details"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Kind == "tool.result" && e.Details.Tool == SpawnWispsName {
			got[e.Call] = e.Details.IsError
		}
	}
	for _, c := range cases {
		if v, ok := got[c.id]; !ok || v != c.auditFail {
			t.Errorf("call %s: audited is_error=%v (found %v), want %v; lines: %v", c.id, v, ok, c.auditFail, got)
		}
	}
}
