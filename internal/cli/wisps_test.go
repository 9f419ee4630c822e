package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/mcp/mcptest"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/sandbox"
)

// wispWorld is one `wisp run`'s private home, workspace and fake model,
// whose requests the test counts.
type wispWorld struct {
	bin, home, work string
	srv             *fake.Server
	env             []string
}

func newWispWorld(t *testing.T, turns []fake.Turn, settings string) *wispWorld {
	t.Helper()
	base := t.TempDir()
	w := &wispWorld{bin: wispBinary(t), home: filepath.Join(base, "home"), work: filepath.Join(base, "work")}
	wispHome := filepath.Join(w.home, ".wisp")
	for _, d := range []string{w.home, w.work, wispHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if settings != "" {
		if err := os.WriteFile(filepath.Join(wispHome, "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fake.Start(fake.Script{Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	w.srv = srv
	w.env = append(os.Environ(), "HOME="+w.home, "WISP_HOME="+wispHome, "WISP_TRUST=0",
		"WISP_PROVIDER=anthropic", "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL(), "TERM=dumb")
	return w
}

func (w *wispWorld) run(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Dir, cmd.Env = w.work, w.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func (w *wispWorld) write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.work, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A 5-step direct wisp over the real filesystem MCP server, plus a script
// step, runs without a single model request.
func TestWispRunOverFilesystemServer(t *testing.T) {
	fsBin := mcptest.NPMServer(t, "mcp-server-filesystem")
	var w *wispWorld
	base := t.TempDir()
	data := filepath.Join(base, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	w = newWispWorld(t, nil, fmt.Sprintf(`{"mcp_servers":{"fs":{"command":%q,"args":[%q]}}}`, fsBin, data))
	def := fmt.Sprintf(`{"description":"notes pipeline","steps":[
 {"id":"mkdir","mode":"Direct","gateway":"Mcp","tool":"fs__create_directory","params":{"path":%[1]q}},
 {"id":"write","mode":"Direct","gateway":"Mcp","tool":"fs__write_file","params":{"path":%[2]q,"content":"alpha\nbeta\n"}},
 {"id":"read","mode":"Direct","gateway":"Mcp","server":"fs","tool":"read_text_file","params":{"path":%[2]q}},
 {"id":"copy","mode":"Direct","gateway":"Mcp","tool":"fs__write_file","params":{"path":%[3]q,"content":"{{steps.read.result}}"}},
 {"id":"list","mode":"Direct","gateway":"Mcp","tool":"fs__list_directory","params":{"path":%[1]q}},
 {"id":"count","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"wc -l < %[3]s"}}]}`,
		filepath.Join(data, "notes"), filepath.Join(data, "notes", "a.txt"), filepath.Join(data, "notes", "b.txt"))
	w.write(t, "notes.json", def)
	stdout, stderr, code := w.run(t, "", "run", "notes.json", "--yes")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"1 wisp(s) completed (1 succeeded, 0 failed, ", `"notes pipeline" [ok]`, "Output: 2\n", "Batch ID: `batch-"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, step := range []string{"[1/6] mkdir ok", "[4/6] copy ok", "[6/6] count ok"} {
		if !strings.Contains(stderr, step) {
			t.Errorf("stderr lacks progress %q:\n%s", step, stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(data, "notes", "b.txt")); err != nil || string(b) != "alpha\nbeta\n" {
		t.Fatalf("copied file %q %v", b, err)
	}
	if n := len(w.srv.Requests()); n != 0 {
		t.Fatalf("a direct wisp made %d model requests", n)
	}
	out, _, code := w.run(t, "", "wisps", "log", "--json")
	var rec struct {
		Success        bool
		DefinitionHash string
		Steps          []struct{ Tool string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || !rec.Success || len(rec.DefinitionHash) != 16 || len(rec.Steps) != 6 || rec.Steps[2].Tool != "mcp__fs__read_text_file" {
		t.Fatalf("wisps log: %d %s", code, out)
	}
}

func TestWispRunExitCodes(t *testing.T) {
	cases := []struct {
		name, def string
		args      []string
		code      int
		stdout    string
		stderr    string
	}{
		{"success", `{"description":"ok","steps":[{"id":"a","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"echo hi"}}]}`, []string{"--yes"}, 0, "Output: hi\n", "[1/1] a ok"},
		{"failure", `{"description":"bad","steps":[{"id":"a","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"exit 3"}}]}`, []string{"--yes"}, 1, "ALL 1 WISPS FAILED", "[1/1] a failed"},
		{"refused without --yes", `{"description":"asks","steps":[{"id":"a","mode":"Direct","gateway":"Script","params":{"script":"print(1)"}}]}`, nil, 1, "Step a FAILED [Judgment]: not run: the gate refused execute_python_script", ""},
		{"structural before anything ran", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"nowhere__x"}]}`, nil, 2, "", `"nowhere__x" is not a typed MCP tool`},
		{"unknown field", `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"x","colour":"red"}]}`, nil, 2, "", `step "a": field "colour": unknown field`},
		{"yaml", "description: y\nsteps:\n  - id: a\n    mode: Direct\n    gateway: Script\n    language: bash\n    params: {script: echo yaml}\n", []string{"--yes"}, 0, "Output: yaml\n", ""},
	}
	w := newWispWorld(t, nil, "")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.write(t, "def.txt", c.def)
			stdout, stderr, code := w.run(t, "", append([]string{"run", "def.txt"}, c.args...)...)
			if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
		})
	}
	if n := len(w.srv.Requests()); n != 0 {
		t.Fatalf("direct wisps made %d model requests", n)
	}
}

// The model calls spawn_wisps; the answer it gets back is the batch's
// summary text, as a tool result that is not an error.
func TestSpawnWispsThroughModel(t *testing.T) {
	def := `{"definitions":[{"description":"greet","steps":[{"id":"say","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"echo from-a-wisp"}}]},
	 {"description":"broken","steps":[{"id":"x","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"exit 4"}}]}]}`
	w := newWispWorld(t, []fake.Turn{
		{ToolCalls: []fake.ToolCall{{Name: "spawn_wisps", Input: json.RawMessage(def)}}},
		{Text: "Both wisps ran."},
	}, "")
	stdout, stderr, code := w.run(t, "", "-p", "run the wisps", "--allow-tool", "spawn_wisps", "--yes")
	if code != 0 || !strings.Contains(stdout, "Both wisps ran.") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if !bytes.Contains(reqs[0].Body, []byte(`"name":"spawn_wisps"`)) {
		t.Fatal("the model was not offered spawn_wisps")
	}
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	last := string(body.Messages[len(body.Messages)-1].Content)
	for _, want := range []string{"PARTIAL FAILURE: 1 of 2 wisps failed.", `2 wisp(s) completed (1 succeeded, 1 failed, `, `\"greet\" [ok]`, "from-a-wisp", `\"broken\" [failed]`, "Batch summary: `wisp/batch-"} {
		if !strings.Contains(last, want) {
			t.Errorf("tool result lacks %q:\n%s", want, last)
		}
	}
	if strings.Contains(last, `"is_error":true`) {
		t.Errorf("spawn_wisps answered with an error result:\n%s", last)
	}
}

// The same five-step task costs ≤ 2K input tokens as a wisp with one LLM
// summarising step, and at least ten times that done by the agent turn
// by turn (tokens estimated from the request bodies as the fake counts
// them).
func TestWispTokenBudget(t *testing.T) {
	var steps []string
	var calls []fake.Turn
	for i := range 5 {
		script := fmt.Sprintf("echo record-%d", i)
		steps = append(steps, fmt.Sprintf(`{"id":"s%d","mode":"Direct","gateway":"Script","language":"bash","params":{"script":%q}}`, i, script))
		calls = append(calls, fake.Turn{ToolCalls: []fake.ToolCall{{Name: "bash", Input: json.RawMessage(fmt.Sprintf(`{"command":%q}`, script))}}})
	}
	steps = append(steps, `{"id":"sum","mode":"Llm","prompt":"Summarise the records in one line."}`)
	def := `{"description":"five records","steps":[` + strings.Join(steps, ",") + `]}`

	w := newWispWorld(t, []fake.Turn{{Text: "records 0 to 4"}}, "")
	w.write(t, "five.json", def)
	stdout, stderr, code := w.run(t, "", "run", "five.json", "--yes")
	if code != 0 || !strings.Contains(stdout, "Output: records 0 to 4") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	wispTokens := tokens(w.srv.Requests())

	a := newWispWorld(t, append(calls, fake.Turn{Text: "records 0 to 4"}), "")
	// The agent gets its usual tools, as in an interactive session.
	stdout, stderr, code = a.run(t, "", "-p", "Run echo record-0 to record-4, one at a time, then summarise the records in one line.", "--all-tools", "--yes")
	if code != 0 {
		t.Fatalf("agent: exit %d\n%s\n%s", code, stdout, stderr)
	}
	agentTokens := tokens(a.srv.Requests())
	t.Logf("input tokens: wisp %d, agent turn by turn %d (%.1f×)", wispTokens, agentTokens, float64(agentTokens)/float64(wispTokens))
	if wispTokens > 2000 {
		t.Errorf("the wisp sent %d input tokens, budget 2000", wispTokens)
	}
	if agentTokens < 10*wispTokens {
		t.Errorf("the agent sent %d input tokens, less than 10× the wisp's %d", agentTokens, wispTokens)
	}
}

func tokens(reqs []fake.Recorded) int64 {
	var n int64
	for _, r := range reqs {
		n += fake.InputTokens(r.Body)
	}
	return n
}

func TestWispsAnalyze(t *testing.T) {
	answer := `{"failure_patterns":[{"description":"search mail","category":"Data","frequency":2,"recommendation":"check the ids first"}],"skill_updates":[],"promotion_candidates":[{"description":"report","successes":3,"reason":"always succeeds"}]}`
	w := newWispWorld(t, []fake.Turn{{Text: answer}}, "")
	now := time.Now().UTC()
	var lines []string
	for i, r := range []struct {
		desc string
		ok   bool
	}{{"search mail", false}, {"search mail", false}, {"report", true}, {"report", true}, {"report", true}} {
		rec := map[string]any{"WispId": fmt.Sprintf("wisp-%d", i), "Description": r.desc, "Success": r.ok, "StartedAt": now.Add(-time.Hour),
			"DefinitionHash": "0123456789abcdef", "ShapeHash": "0123456789abcdef", "Steps": []any{}}
		if !r.ok {
			rec["FailedStep"], rec["FailureCategory"], rec["ErrorMessage"] = "fetch", "Data", "Message not found"
		}
		b, _ := json.Marshal(rec)
		lines = append(lines, string(b))
	}
	logDir := filepath.Join(w.home, ".wisp", "wisps")
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logDir, "executions.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := w.run(t, "", "wisps", "analyze")
	want := "5 wisp executions of the last 14 days analysed.\n\nRecurring failure patterns:\n- \"search mail\" [Data] ×2: check the ids first\n\nSuggested skill annotations:\n  none\n\nPromotion candidates:\n- \"report\" (3 successes): always succeeds\n"
	if code != 0 || stdout != want {
		t.Fatalf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(`search mail\": 2 runs, 0 succeeded`)) {
		t.Fatalf("requests: %d", len(reqs))
	}
	out, _, code := w.run(t, "", "wisps", "log", "--failed", "--last", "1")
	if code != 0 || strings.Count(out, "wisp-") != 1 || !strings.Contains(out, "wisp-1  failed") || !strings.Contains(out, "step fetch [Data]: Message not found") {
		t.Fatalf("log: %d\n%s", code, out)
	}
}

func TestRunAsker(t *testing.T) {
	cases := []struct {
		name, input string
		allow       bool
	}{{"yes", "y\n", true}, {"Y with spaces", "  Y \n", true}, {"no", "n\n", false}, {"anything else", "sure\n", false}, {"end of input", "", false}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errb bytes.Buffer
			ask := runAsker(IO{Stdin: strings.NewReader(c.input), Stderr: &errb})
			a, err := ask.Approve(context.Background(), gate.Request{Tool: "execute_python_script", Subject: "python3 -c 'print(1)'", Reasons: []string{"runs code"}})
			if err != nil || a.Allow != c.allow {
				t.Fatalf("answer %+v %v", a, err)
			}
			if !strings.Contains(errb.String(), "wisp: execute_python_script wants to run: python3 -c 'print(1)'\n  because: runs code\n  allow? [y/N] ") {
				t.Fatalf("question %q", errb.String())
			}
		})
	}
}

// TestWispCommandsListed: wisp help names wisp run and wisp wisps, each
// has its own help, and wisp tools lists spawn_wisps (so that wisp mcp
// serve, which serves that catalogue, serves it too).
func TestWispCommandsListed(t *testing.T) {
	w := newWispWorld(t, nil, "")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"wisp run FILE [--json] [--yes]", "wisp wisps log|analyze"}},
		{[]string{"help", "run"}, []string{"Usage: wisp run FILE", "Exit status: 0 when every wisp succeeded"}},
		{[]string{"run", "--help"}, []string{"Usage: wisp run FILE"}},
		{[]string{"help", "wisps"}, []string{"Usage: wisp wisps log", "wisp wisps analyze"}},
		{[]string{"tools"}, []string{"spawn_wisps\t"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			stdout, stderr, code := w.run(t, "", c.args...)
			for _, want := range c.want {
				if code != 0 || !strings.Contains(stdout, want) {
					t.Fatalf("exit %d, stdout lacks %q:\n%s\nstderr:\n%s", code, want, stdout, stderr)
				}
			}
		})
	}
	t.Run("tools --json gives its source and limits", func(t *testing.T) {
		stdout, _, _ := w.run(t, "", "tools", "--json")
		var infos []struct {
			Name, Source string
			Limits       []string
		}
		if err := json.Unmarshal([]byte(stdout), &infos); err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			if in.Name == "spawn_wisps" {
				if in.Source != "wisp" || len(in.Limits) == 0 {
					t.Errorf("spawn_wisps entry %+v", in)
				}
				return
			}
		}
		t.Error("wisp tools --json lacks spawn_wisps")
	})
}

// TestWispRunWebSearchAsks: web_search comes from settings.json, and
// under wisp run it needs --yes even with approval.threshold never.
func TestWispRunWebSearchAsks(t *testing.T) {
	var hits atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(rw, `{"results":[{"title":"Go","url":"https://go.dev/","content":"about %s"}]}`, r.URL.Query().Get("q"))
	}))
	defer backend.Close()
	w := newWispWorld(t, nil, fmt.Sprintf(`{"web_search":{"url":%q}}`, backend.URL+"/search?format=json&q={query}"))
	if err := os.WriteFile(filepath.Join(w.home, ".wisp", "config.json"), []byte(`{"approval":{"threshold":"never"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	w.write(t, "search.json", `{"description":"search","steps":[{"id":"s","mode":"Direct","gateway":"Web","tool":"web_search","params":{"query":"gophers","max_results":3}}]}`)
	stdout, stderr, code := w.run(t, "", "run", "search.json")
	if code != 1 || hits.Load() != 0 || !strings.Contains(stdout, "not run: the gate refused web_search") {
		t.Fatalf("without --yes: exit %d, %d searches\nstdout:\n%s\nstderr:\n%s", code, hits.Load(), stdout, stderr)
	}
	stdout, stderr, code = w.run(t, "", "run", "search.json", "--yes")
	if code != 0 || hits.Load() != 1 || !strings.Contains(stdout, `about gophers`) {
		t.Fatalf("with --yes: exit %d, %d searches\nstdout:\n%s\nstderr:\n%s", code, hits.Load(), stdout, stderr)
	}
}

// TestWispRunScriptSharedVolume: under wisp run --yes, a Script step
// writes the shared volume through the real sandbox and a later step
// reads it back; a script that writes approvals.json in the wisp home
// fails and leaves it as it was.
func TestWispRunScriptSharedVolume(t *testing.T) {
	if _, ok := sandbox.Available(); !ok {
		if os.Getenv("CI") == "true" {
			t.Fatal("Landlock is unavailable, and CI must prove the shared volume's confinement")
		}
		t.Skip("Landlock is unavailable here")
	}
	w := newWispWorld(t, nil, "")
	wispHome := filepath.Join(w.home, ".wisp")
	approvals := filepath.Join(wispHome, "approvals.json")
	if err := os.WriteFile(approvals, []byte(`{"approvals":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	w.write(t, "ok.json", fmt.Sprintf(`{"description":"shared","steps":[
		{"id":"w","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"echo SHARED-DATA > %[1]s/shared/made.txt"}},
		{"id":"r","mode":"Direct","gateway":"Script","language":"sh","params":{"script":"cat %[1]s/shared/made.txt"}}]}`, wispHome))
	stdout, stderr, code := w.run(t, "", "run", "ok.json", "--yes")
	if code != 0 || !strings.Contains(stdout, "SHARED-DATA") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	w.write(t, "bad.json", fmt.Sprintf(`{"description":"escape","steps":[
		{"id":"w","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"echo '{}' > %[1]s/shared/../approvals.json"}}]}`, wispHome))
	stdout, stderr, code = w.run(t, "", "run", "bad.json", "--yes")
	if b, _ := os.ReadFile(approvals); code != 1 || string(b) != `{"approvals":[]}` {
		t.Fatalf("exit %d, approvals.json %q\nstdout:\n%s\nstderr:\n%s", code, b, stdout, stderr)
	}
}
