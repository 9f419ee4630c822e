package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// runBatch runs definitions with a stopped clock, so every duration is 0.
func runBatch(t *testing.T, ft *fakeTools, log Recorder, session string, srcs ...string) (*Batch, *memory.Store) {
	t.Helper()
	clock := func() time.Time { return time.Unix(1_700_000_000, 0) }
	mem := memory.New(nil)
	x := NewExecutor(Options{Tools: ft, Memory: mem, Now: clock, Volume: Volume{Root: t.TempDir()}})
	var plans []*Plan
	for _, s := range srcs {
		plans = append(plans, mustPlan(t, ft, s))
	}
	b, err := RunBatch(context.Background(), plans, BatchOptions{Engine: NewPool(x, 0), Memory: mem, Log: log, Session: session, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return b, mem
}

func oneStep(desc, tool string) string {
	return fmt.Sprintf(`{"description":%q,"steps":[{"id":"s","mode":"Direct","gateway":"Mcp","tool":%q,"params":{"who":%q}}]}`, desc, tool, desc)
}

// masked replaces the random ids so that texts compare exactly.
func masked(b *Batch) string {
	s := strings.ReplaceAll(b.Text(), b.ID, "batch-ID")
	for i, r := range b.Results {
		s = strings.ReplaceAll(s, r.WispID, fmt.Sprintf("wisp-%d", i+1))
	}
	return s
}

func TestBatchSummaryTexts(t *testing.T) {
	failing := func(ft *fakeTools, bad string) {
		ft.answer = func(_ context.Context, name string, args json.RawMessage) (tool.Result, error) {
			if strings.Contains(string(args), bad) || name == "mcp__mail__create" {
				return tool.Result{Content: "error: service unavailable", IsError: true}, nil
			}
			return tool.Result{Content: "found " + string(args)}, nil
		}
	}
	t.Run("6 of 7 partial failure", func(t *testing.T) {
		ft := newFakeTools()
		failing(ft, "acct4")
		var srcs []string
		for i := 1; i <= 7; i++ {
			srcs = append(srcs, oneStep(fmt.Sprintf("Search acct%d", i), "mail__search"))
		}
		b, _ := runBatch(t, ft, nil, "", srcs...)
		want := "PARTIAL FAILURE: 1 of 7 wisps failed. The wisps marked [ok] are done: do not re-run them; fix and re-run only the failed ones.\n\n" +
			"7 wisp(s) completed (6 succeeded, 1 failed, 0.0s total):\n"
		for i := 1; i <= 7; i++ {
			if i == 4 {
				want += "- `wisp-4`: \"Search acct4\" [failed] (0ms)\n  Completed before the failure: none\n  Step s FAILED [External]: service unavailable\n"
				continue
			}
			want += fmt.Sprintf("- `wisp-%d`: \"Search acct%d\" [ok] (0ms)\n  Output: found {\"who\":\"Search acct%d\"}\n", i, i, i)
		}
		want += "\nBatch ID: `batch-ID`\nBatch summary: `wisp/batch-ID/summary`\n"
		if got := masked(b); got != want {
			t.Fatalf("text:\n%s\nwant:\n%s", got, want)
		}
		if !b.Failed() {
			t.Fatal("batch not failed")
		}
	})
	t.Run("all failed", func(t *testing.T) {
		ft := newFakeTools()
		failing(ft, "acct")
		b, _ := runBatch(t, ft, nil, "", oneStep("acct1", "mail__search"), oneStep("acct2", "mail__search"))
		if got := masked(b); !strings.HasPrefix(got, "ALL 2 WISPS FAILED. ") || !strings.Contains(got, "2 wisp(s) completed (0 succeeded, 2 failed, 0.0s total):\n") {
			t.Fatalf("text:\n%s", got)
		}
	})
	t.Run("3 creates failed but skipped past", func(t *testing.T) {
		ft := newFakeTools()
		failing(ft, "never")
		src := `{"description":"Create %d","steps":[
 {"id":"find","mode":"Direct","gateway":"Mcp","tool":"mail__search","params":{}},
 {"id":"create","mode":"Direct","gateway":"Mcp","tool":"mail__create","params":{},"on_failure":{"action":"skip_to","skip_to":"done"}},
 {"id":"notify","mode":"Direct","gateway":"Mcp","tool":"mail__search","params":{}},
 {"id":"done","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{}}]}`
		b, _ := runBatch(t, ft, nil, "", fmt.Sprintf(src, 1), fmt.Sprintf(src, 2), fmt.Sprintf(src, 3))
		got := masked(b)
		wantHead := "WRITES FAILED: 3 of 3 state-changing calls failed. Those changes were not made, even where a wisp reads [ok]; see the failed steps below.\n\n3 wisp(s) completed (3 succeeded, 0 failed, 0.0s total):\n" +
			"- `wisp-1`: \"Create 1\" [ok] (0ms)\n  Step create FAILED (handled by on_failure: skip_to done) [External]: service unavailable\n  Output: found {}\n"
		if !strings.HasPrefix(got, wantHead) {
			t.Fatalf("text:\n%s\nwant prefix:\n%s", got, wantHead)
		}
		if !b.Failed() {
			t.Fatal("a batch with failed writes must count as failed")
		}
	})
	t.Run("for_each continue line and capped output", func(t *testing.T) {
		ft := newFakeTools()
		echoing(ft, "m3", "m7")
		b, mem := runBatch(t, ft, nil, "", iterWisp(100, `,"max_items":100,"on_item_failure":"continue"`))
		got := masked(b)
		if !strings.Contains(got, "  Step fetch: 2 of 100 items FAILED (on_item_failure: continue), indices 3, 7\n") {
			t.Fatalf("text:\n%s", got)
		}
		key := "wisp/" + b.Results[0].WispID + "/fetch/output"
		if !strings.Contains(got, "  Output (first 4000 characters; the full array is at `wisp/wisp-1/fetch/output`):\n") {
			t.Fatalf("no capped output line:\n%s", got[:300])
		}
		if full, ok := mem.Get(key); !ok || len(full) <= ForEachOutputLimit {
			t.Fatalf("full array missing from working memory")
		}
	})
	t.Run("summary JSON in working memory", func(t *testing.T) {
		ft := newFakeTools()
		b, mem := runBatch(t, ft, nil, "", oneStep("a", "mail__search"))
		raw, ok := mem.Get("wisp/" + b.ID + "/summary")
		var s struct {
			BatchID string                    `json:"batchId"`
			Wisps   []struct{ Status string } `json:"wisps"`
		}
		if !ok || json.Unmarshal([]byte(raw), &s) != nil || s.BatchID != b.ID || len(s.Wisps) != 1 || s.Wisps[0].Status != "ok" {
			t.Fatalf("summary %q", raw)
		}
		if !strings.HasPrefix(b.ID, "batch-") || len(b.ID) != len("batch-abc123def456ab") {
			t.Fatalf("batch id %q", b.ID)
		}
	})
}

func TestHashes(t *testing.T) {
	base := `{"description":"one","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"x":1,"y":"z"}}]}`
	cases := []struct {
		name            string
		other           string
		sameDef, sameSh bool
	}{
		{"key order and spacing", `{"steps":[{"params":{"y":"z","x":1},"tool":"fs__read_file","gateway":"Mcp","mode":"Direct","id":"a"}],  "description":"one"}`, true, true},
		{"shorthand and server+tool", `{"description":"one","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","server":"fs","tool":"read_file","params":{"x":1,"y":"z"}}]}`, true, true},
		{"description ignored by shape", `{"description":"two","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"x":1,"y":"z"}}]}`, false, true},
		{"param values ignored by shape", `{"description":"one","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"x":2,"y":"q"}}]}`, false, true},
		{"param names in shape", `{"description":"one","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__read_file","params":{"x":1}}]}`, false, false},
		{"other tool", `{"description":"one","steps":[{"id":"a","mode":"Direct","gateway":"Mcp","tool":"fs__write_file","params":{"x":1,"y":"z"}}]}`, false, false},
	}
	ft := newFakeTools()
	p0 := mustPlan(t, ft, base)
	d0, s0 := DefinitionHash(p0.Def), ShapeHash(p0.Def)
	if len(d0) != 16 || len(s0) != 16 {
		t.Fatalf("hash lengths %q %q", d0, s0)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustPlan(t, ft, c.other)
			if (DefinitionHash(p.Def) == d0) != c.sameDef || (ShapeHash(p.Def) == s0) != c.sameSh {
				t.Fatalf("def same=%v shape same=%v", DefinitionHash(p.Def) == d0, ShapeHash(p.Def) == s0)
			}
		})
	}
	t.Run("for_each fields change both hashes only when set", func(t *testing.T) {
		a := mustParse(t, iterWisp(1, ""))
		b := mustParse(t, iterWisp(1, `,"max_items":5`))
		c := mustParse(t, iterWisp(1, `,"concurrency":2`))
		if DefinitionHash(a) == DefinitionHash(b) || ShapeHash(a) == ShapeHash(b) || ShapeHash(b) == ShapeHash(c) {
			t.Fatal("for_each fields not hashed")
		}
		plain, _ := json.Marshal(mustParse(t, base))
		for _, f := range []string{"for_each", "max_items", "concurrency", "on_item_failure", `"as"`} {
			if strings.Contains(string(plain), f) {
				t.Fatalf("unset %s serialised: %s", f, plain)
			}
		}
	})
}

// recorder keeps records in memory.
type recorder struct{ recs []Record }

func (r *recorder) Append(rec *Record) error {
	r.recs = append(r.recs, *rec)
	return nil
}

func TestBatchRecords(t *testing.T) {
	ft := newFakeTools()
	echoing(ft, "m1")
	rec := &recorder{}
	b, _ := runBatch(t, ft, rec, "sess-1", iterWisp(3, `,"on_item_failure":"continue"`), oneStep("plain", "mail__search"))
	if len(rec.recs) != 2 {
		t.Fatalf("%d records", len(rec.recs))
	}
	cases := []struct {
		name     string
		r        Record
		iterated int
	}{{"for_each wisp", rec.recs[0], 1}, {"plain wisp", rec.recs[1], 0}}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.r
			if r.WispID != b.Results[i].WispID || r.BatchID != b.ID || r.SessionID != "sess-1" || !r.Success || len(r.DefinitionHash) != 16 || len(r.ShapeHash) != 16 || len(r.IteratedSteps) != c.iterated {
				t.Fatalf("record %+v", r)
			}
			line, _ := json.Marshal(r)
			if (c.iterated == 0) == strings.Contains(string(line), "IteratedSteps") {
				t.Fatalf("IteratedSteps in the line: %s", line)
			}
		})
	}
	it := rec.recs[0].IteratedSteps[0]
	if it.StepID != "fetch" || it.Count != 3 || it.Succeeded != 2 || it.Failed != 1 || len(it.FailedIndices) != 1 || it.FailedIndices[0] != 1 {
		t.Fatalf("iterated %+v", it)
	}
}
