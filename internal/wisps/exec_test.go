package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

func TestGatewayRouting(t *testing.T) {
	cases := []struct {
		name, step, tool, args string
	}{
		{"mcp typed", `{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"path":"x"}}`, "mcp__fs__read_file", `{"path":"x"}`},
		{"mcp server and tool", `{"id":"a","mode":"Direct","gateway":"Mcp","server":"fs","tool":"read_file","params":{"path":"x"}}`, "mcp__fs__read_file", `{"path":"x"}`},
		{"script default python", `{"id":"a","mode":"Direct","gateway":"Script","params":{"script":"print(1)"}}`, "execute_python_script", `{"script":"print(1)"}`},
		{"script bash", `{"id":"a","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"echo 1"}}`, "execute_bash_script", `{"script":"echo 1"}`},
		{"web browse", `{"id":"a","mode":"Direct","gateway":"Web","tool":"web_browse","params":{"url":"https://example.com"}}`, "web_browse", `{"url":"https://example.com"}`},
		{"no params", `{"id":"a","mode":"Direct","gateway":"Mcp","tool":"mail__search"}`, "mcp__mail__search", `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ft := newFakeTools()
			res, _ := runOne(t, ft, `{"steps":[`+c.step+`]}`)
			if !res.OK {
				t.Fatalf("failed: %s", res.Error)
			}
			if len(ft.calls) != 1 || ft.calls[0] != c.tool || ft.args[0] != c.args {
				t.Fatalf("calls %v %v, want %s %s", ft.calls, ft.args, c.tool, c.args)
			}
		})
	}
}

func TestGatewayStructuralErrors(t *testing.T) {
	cases := []struct{ name, step, want string }{
		{"unresolved typed", `{"id":"a","mode":"Direct","gateway":"Mcp","tool":"nope__x"}`, `step "a": field "tool": "nope__x" is not a typed MCP tool`},
		{"unknown server tool", `{"id":"a","mode":"Direct","gateway":"Mcp","server":"fs","tool":"delete"}`, `MCP server "fs" has no tool "delete"`},
		{"web_search without backend", `{"id":"a","mode":"Direct","gateway":"Web","tool":"web_search","params":{"q":"x"}}`, `web_search has no search backend configured`},
		{"a2a not configured", `{"id":"a","mode":"Direct","gateway":"A2A","agent":"bob","skill":"s","message":"m"}`, `A2A agents are not configured`},
		{"unknown extra tool", `{"tools":["nothing"],"steps":[{"id":"a","mode":"Llm","prompt":"p"}]}`, `field "tools": "nothing" is not a tool`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.step
			if !strings.HasPrefix(src, `{"tools"`) {
				src = `{"steps":[` + src + `]}`
			}
			_, err := Prepare(mustParse(t, src), newFakeTools())
			if err == nil || !IsStructural(err) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want Structural containing %q", err, c.want)
			}
		})
	}
}

func TestLLMScope(t *testing.T) {
	p := mustPlan(t, newFakeTools(), `{"tools":["read","mail","fs__write_file"],"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","server":"fs","tool":"read_file"},{"id":"b","mode":"Llm","prompt":"p"}]}`)
	want := "mcp__fs__read_file,read,mcp__mail__search,mcp__mail__get_message,mcp__mail__create,mcp__fs__write_file"
	if got := strings.Join(p.Scope, ","); got != want {
		t.Fatalf("scope %s, want %s", got, want)
	}
}

const threeSteps = `{"steps":[
 {"id":"one","mode":"Direct","gateway":"Mcp","tool":"mail__search","params":{"q":"x"}},
 {"id":"two","mode":"Direct","gateway":"Mcp","tool":"mail__create","params":{"q":"{{steps.one.result}}"}%s},
 {"id":"three","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"p":"{{steps.two.result}}"}},
 {"id":"four","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"p":"{{steps.one.result}}"}}]}`

func TestOnFailure(t *testing.T) {
	cases := []struct {
		name, onFailure string
		ok              bool
		calls           string
		statuses        string
	}{
		{"abort is the default", "", false, "mcp__mail__search,mcp__mail__create", "ok,failed"},
		{"explicit abort", `,"on_failure":{"action":"abort"}`, false, "mcp__mail__search,mcp__mail__create", "ok,failed"},
		{"skip_to resumes at the target", `,"on_failure":{"action":"skip_to","skip_to":"FOUR"}`, true, "mcp__mail__search,mcp__mail__create,mcp__fs__read_file", "ok,failed,skipped,ok"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ft := newFakeTools()
			ft.answer = func(_ context.Context, name string, _ json.RawMessage) (tool.Result, error) {
				if name == "mcp__mail__create" {
					return tool.Result{Content: "error: service unavailable", IsError: true}, nil
				}
				return tool.Result{Content: "r-" + name}, nil
			}
			res, _ := runOne(t, ft, fmt.Sprintf(threeSteps, c.onFailure))
			if res.OK != c.ok {
				t.Fatalf("OK = %v (%s)", res.OK, res.Error)
			}
			if got := strings.Join(ft.called(), ","); got != c.calls {
				t.Fatalf("calls %s, want %s", got, c.calls)
			}
			var st []string
			for _, s := range res.Steps {
				st = append(st, s.Status)
			}
			if got := strings.Join(st, ","); got != c.statuses {
				t.Fatalf("statuses %s, want %s", got, c.statuses)
			}
			if !c.ok && (res.FailedStep != "two" || res.Category != External) {
				t.Fatalf("failure %s %s", res.FailedStep, res.Category)
			}
			if c.ok && !res.Steps[1].Handled {
				t.Fatal("failed step not marked handled")
			}
		})
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		name    string
		refused bool
		text    string
		err     error
		want    Category
	}{
		{"refusal is judgment", true, "not approved", nil, Judgment},
		{"unknown tool", false, "error: unknown tool \"x\"", nil, Structural},
		{"missing parameter", false, "missing required parameter path", nil, Structural},
		{"timeout", false, "request timed out", nil, External},
		{"rate limit", false, "429 Too Many Requests", nil, External},
		{"deadline error", false, "", context.DeadlineExceeded, External},
		{"not found", false, "Message not found", nil, Data},
		{"bad json", false, "invalid JSON in response", nil, Data},
		{"unmatched is external", false, "something odd", nil, External},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Classify(c.refused, c.text, c.err); got != c.want {
				t.Fatalf("Classify = %s, want %s", got, c.want)
			}
		})
	}
}

func TestRefusalIsJudgment(t *testing.T) {
	ft := newFakeTools()
	ft.answer = func(context.Context, string, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: "error: not approved", IsError: true, Refusal: "not approved: --yes not given"}, nil
	}
	res, _ := runOne(t, ft, `{"steps":[{"id":"w","mode":"Direct","gateway":"Mcp","tool":"fs__write_file","params":{}}]}`)
	if res.OK || res.Category != Judgment || !strings.Contains(res.Error, "not run: the gate refused mcp__fs__write_file (not approved: --yes not given)") {
		t.Fatalf("got %v %s %q", res.OK, res.Category, res.Error)
	}
}

func TestWorkingMemoryAndVolume(t *testing.T) {
	ft := newFakeTools()
	root := t.TempDir()
	now := time.Unix(5000, 0)
	clock := func() time.Time { return now }
	mem := memory.New(clock)
	x := NewExecutor(Options{Tools: ft, Volume: Volume{Root: root}, Memory: mem, Now: clock})
	p := mustPlan(t, ft, `{"steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"p":1},"output_to":"out/a.txt"},
		{"id":"b","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"p":"{{steps.a.output_to}}"}}]}`)
	res := x.Run(context.Background(), Job{WispID: "wisp-m", Plan: p})
	if !res.OK {
		t.Fatal(res.Error)
	}
	b, err := os.ReadFile(filepath.Join(root, "out", "a.txt"))
	if err != nil || string(b) != `mcp__fs__read_file {"p":1}` {
		t.Fatalf("output_to file %q %v", b, err)
	}
	if ft.args[1] != `{"p":"out/a.txt"}` {
		t.Fatalf("output_to template: %s", ft.args[1])
	}
	if v, ok := mem.Get("wisp/wisp-m/a/output"); !ok || v != string(b) {
		t.Fatalf("memory %q %v", v, ok)
	}
	now = now.Add(5 * time.Minute)
	if _, ok := mem.Get("wisp/wisp-m/a/output"); ok {
		t.Fatal("a successful wisp's memory outlived 5 minutes")
	}
}

func TestFailedWispKeepsMemory(t *testing.T) {
	ft := newFakeTools()
	ft.answer = func(_ context.Context, name string, _ json.RawMessage) (tool.Result, error) {
		if name == "mcp__mail__create" {
			return tool.Result{}, errBoom
		}
		return tool.Result{Content: "x"}, nil
	}
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	mem := memory.New(clock)
	x := NewExecutor(Options{Tools: ft, Memory: mem, Now: clock})
	res := x.Run(context.Background(), Job{WispID: "w", Plan: mustPlan(t, ft, fmt.Sprintf(threeSteps, ""))})
	if res.OK {
		t.Fatal("succeeded")
	}
	now = now.Add(59 * time.Minute)
	if _, ok := mem.Get("wisp/w/one/output"); !ok {
		t.Fatal("a failed wisp's memory expired before 60 minutes")
	}
}

func TestVolumeConfinement(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	v := Volume{Root: root}
	cases := []struct {
		name string
		ok   bool
	}{{"a/b.txt", true}, {"../x", false}, {"/etc/passwd", false}, {"link/x", false}, {"a/../../x", false}, {"./ok.txt", true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := v.Write(c.name, "x")
			if (err == nil) != c.ok {
				t.Fatalf("Write(%q) err = %v, want ok=%v", c.name, err, c.ok)
			}
		})
	}
	t.Run("default volume honours WISP_HOME", func(t *testing.T) {
		v, _ := DefaultVolume(func(k string) string { return map[string]string{"WISP_HOME": "/w", "HOME": "/h"}[k] })
		h, _ := DefaultVolume(func(k string) string { return map[string]string{"HOME": "/h"}[k] })
		if v.Root != "/w/shared" || h.Root != "/h/.wisp/shared" {
			t.Fatalf("roots %s %s", v.Root, h.Root)
		}
	})
}

func TestFailedForEachTakesOnFailure(t *testing.T) {
	ft := newFakeTools()
	echoing(ft, "m1")
	src := strings.TrimSuffix(iterWisp(3, `,"on_failure":{"action":"skip_to","skip_to":"after"}`), `]}`) +
		`,{"id":"between","mode":"Direct","gateway":"Mcp","tool":"fs__read_file"},{"id":"after","mode":"Direct","gateway":"Mcp","tool":"fs__read_file"}]}`
	res, _ := runOne(t, ft, src)
	var st []string
	for _, s := range res.Steps {
		st = append(st, s.ID+":"+s.Status)
	}
	if !res.OK || strings.Join(st, ",") != "search:ok,fetch:failed,between:skipped,after:ok" || !res.Steps[1].Handled {
		t.Fatalf("ok=%v steps %v", res.OK, st)
	}
}

func TestSummaryListsCompletedSteps(t *testing.T) {
	ft := newFakeTools()
	ft.answer = func(_ context.Context, name string, _ json.RawMessage) (tool.Result, error) {
		if name == "mcp__mail__create" {
			return tool.Result{Content: "error: missing required parameter to", IsError: true}, nil
		}
		return tool.Result{Content: "x"}, nil
	}
	b, _ := runBatch(t, ft, nil, "", fmt.Sprintf(threeSteps, ""))
	want := "  Completed before the failure: one\n  Step two FAILED [Structural]: missing required parameter to\n"
	if got := b.Text(); !strings.Contains(got, want) {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
}
