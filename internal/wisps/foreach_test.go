package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// iterWisp lists n messages, then fetches each.
func iterWisp(n int, extra string) string {
	var msgs []string
	for i := range n {
		msgs = append(msgs, fmt.Sprintf(`{"id":"m%d"}`, i))
	}
	list, _ := json.Marshal(`{"messages":[` + strings.Join(msgs, ",") + `]}`)
	return `{"steps":[
 {"id":"search","mode":"Direct","gateway":"Mcp","tool":"mail__search","params":{"echo":` + string(list) + `}},
 {"id":"fetch","mode":"Direct","gateway":"Mcp","tool":"mail__get_message","for_each":"{{steps.search.result.messages}}","as":"msg",
  "params":{"messageId":"{{msg.id}}","i":"{{item_index}}","same":"{{item.id}}"}` + extra + `}]}`
}

// echoing answers the search with its echo param, and fails the fetch of
// the listed ids.
func echoing(ft *fakeTools, fail ...string) {
	ft.answer = func(_ context.Context, name string, args json.RawMessage) (tool.Result, error) {
		var a map[string]string
		_ = json.Unmarshal(args, &a)
		if name == "mcp__mail__search" {
			return tool.Result{Content: a["echo"]}, nil
		}
		for _, f := range fail {
			if a["messageId"] == f {
				return tool.Result{Content: "error: Message not found", IsError: true}, nil
			}
		}
		return tool.Result{Content: `{"id":"` + a["messageId"] + `","i":"` + a["i"] + `"}`}, nil
	}
}

func TestForEach(t *testing.T) {
	cases := []struct {
		name, extra string
		n           int
		fail        []string
		ok          bool
		calls       int
		err         string
		stats       ItemStats
		category    Category
	}{
		{"all succeed", "", 3, nil, true, 4, "", ItemStats{Count: 3, Succeeded: 3}, ""},
		{"empty array succeeds with []", "", 0, nil, true, 1, "", ItemStats{}, ""},
		{"default max_items 25 overflow fails before any element", "", 26, nil, false, 1, "for_each: 26 elements exceed max_items 25; nothing was run", ItemStats{}, Data},
		{"max_items clamped to 100", `,"max_items":1000`, 101, nil, false, 1, "101 elements exceed max_items 100", ItemStats{}, Data},
		{"max_items raised", `,"max_items":30`, 26, nil, true, 27, "", ItemStats{Count: 26, Succeeded: 26}, ""},
		{"abort stops at the first failure", "", 10, []string{"m3"}, false, 5, "Item 3 of 10 failed (on_item_failure: abort; 3 succeeded, 6 not run): Message not found", ItemStats{Count: 10, Succeeded: 3, Failed: 1, Skipped: 6, FailedIndices: []int{3}}, Data},
		{"continue runs the rest", `,"on_item_failure":"continue"`, 10, []string{"m3", "m7"}, true, 11, "", ItemStats{Count: 10, Succeeded: 8, Failed: 2, FailedIndices: []int{3, 7}}, ""},
		{"continue with every element failed fails", `,"on_item_failure":"continue"`, 2, []string{"m0", "m1"}, false, 3, "Item 0 of 2 failed (on_item_failure: continue; 0 succeeded, 2 failed): Message not found", ItemStats{Count: 2, Failed: 2, FailedIndices: []int{0, 1}}, Data},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ft := newFakeTools()
			echoing(ft, c.fail...)
			res, x := runOne(t, ft, iterWisp(c.n, c.extra))
			if res.OK != c.ok || res.Category != c.category {
				t.Fatalf("OK=%v category=%s error=%q", res.OK, res.Category, res.Error)
			}
			if len(ft.called()) != c.calls {
				t.Fatalf("%d calls, want %d", len(ft.called()), c.calls)
			}
			if c.err != "" && !strings.Contains(res.Error, c.err) {
				t.Fatalf("error %q, want %q", res.Error, c.err)
			}
			st := res.Steps[1]
			if c.stats.Count > 0 {
				c.stats.StepID = "fetch"
				got, _ := json.Marshal(st.Items)
				want, _ := json.Marshal(c.stats)
				if string(got) != string(want) {
					t.Fatalf("stats %s, want %s", got, want)
				}
			}
			if out, ok := x.Memory().Get("wisp/wisp-t/fetch/output"); c.n <= 25 && (!ok || out != st.Output) {
				t.Fatalf("for_each output not in working memory (ok=%v)", ok)
			}
			if c.n == 0 && st.Output != "[]" {
				t.Fatalf("empty output %q", st.Output)
			}
		})
	}
}

func TestForEachOutputFormat(t *testing.T) {
	ft := newFakeTools()
	ft.answer = func(_ context.Context, name string, args json.RawMessage) (tool.Result, error) {
		if name == "mcp__mail__search" {
			return tool.Result{Content: `{"messages":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"d"}]}`}, nil
		}
		var a map[string]string
		_ = json.Unmarshal(args, &a)
		switch a["messageId"] {
		case "a":
			return tool.Result{Content: `{"id":"a","subject":"hi"}`}, nil
		case "b":
			return tool.Result{Content: "plain text"}, nil
		}
		return tool.Result{Content: "error: Message not found", IsError: true}, nil
	}
	res, _ := runOne(t, ft, iterWisp(0, `,"on_item_failure":"abort"`))
	want := `[
  {"index":0,"ok":true,"result":{"id":"a","subject":"hi"}},
  {"index":1,"ok":true,"result":"plain text"},
  {"index":2,"ok":false,"error":"Message not found","category":"Data"},
  {"index":3,"ok":false,"skipped":true}
]`
	if res.Steps[1].Output != want {
		t.Fatalf("output\n%s\nwant\n%s", res.Steps[1].Output, want)
	}
}

func TestForEachSourceNotArray(t *testing.T) {
	ft := newFakeTools()
	ft.answer = func(context.Context, string, json.RawMessage) (tool.Result, error) {
		return tool.Result{Content: `{"messages":{"id":"x"}}`}, nil
	}
	res, _ := runOne(t, ft, iterWisp(0, ""))
	if res.OK || res.Category != Data || !strings.Contains(res.Error, "is not a JSON array") || len(ft.called()) != 1 {
		t.Fatalf("got %v %s %q calls=%d", res.OK, res.Category, res.Error, len(ft.called()))
	}
}

func TestForEachConcurrency(t *testing.T) {
	cases := []struct {
		name string
		conc string
		want int32
	}{{"default 1", "", 1}, {"3", `,"concurrency":3`, 3}, {"clamped to 4", `,"concurrency":50`, 4}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ft := newFakeTools()
			var live, peak atomic.Int32
			ft.answer = func(_ context.Context, name string, _ json.RawMessage) (tool.Result, error) {
				if name == "mcp__mail__search" {
					return tool.Result{Content: `{"messages":[1,2,3,4,5,6,7,8,9,10,11,12]}`}, nil
				}
				n := live.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(5 * time.Millisecond)
				live.Add(-1)
				return tool.Result{Content: "ok"}, nil
			}
			res, _ := runOne(t, ft, strings.Replace(iterWisp(0, c.conc), `"{{msg.id}}"`, `"{{msg}}"`, 1))
			if !res.OK || peak.Load() != c.want {
				t.Fatalf("ok=%v peak %d, want %d", res.OK, peak.Load(), c.want)
			}
		})
	}
}

func TestForEachCancellationKeepsOutcomes(t *testing.T) {
	ft := newFakeTools()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	ft.answer = func(_ context.Context, name string, _ json.RawMessage) (tool.Result, error) {
		if name == "mcp__mail__search" {
			return tool.Result{Content: `{"messages":[1,2,3,4,5,6]}`}, nil
		}
		if n.Add(1) == 2 {
			cancel()
		}
		return tool.Result{Content: "done"}, nil
	}
	x := NewExecutor(Options{Tools: ft, Memory: memory.New(nil)})
	res := x.Run(ctx, Job{WispID: "c", Plan: mustPlan(t, ft, strings.Replace(iterWisp(0, ""), `"{{msg.id}}"`, `"{{msg}}"`, 1))})
	st := res.Steps[1]
	if res.OK || st.Items == nil || st.Items.Succeeded != 2 || st.Items.Skipped != 4 || res.Category != External {
		t.Fatalf("ok=%v items=%+v cat=%s err=%s", res.OK, st.Items, res.Category, res.Error)
	}
	if !strings.HasPrefix(res.Error, "cancelled after 2 of 6 items") || !res.Canceled {
		t.Fatalf("error %q", res.Error)
	}
	if len(st.Calls) != 2 {
		t.Fatalf("calls kept: %d", len(st.Calls))
	}
}
