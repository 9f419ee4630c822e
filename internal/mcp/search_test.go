package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

func specs(n int) []tool.Spec {
	var out []tool.Spec
	for i := range n {
		out = append(out, tool.Spec{Name: fmt.Sprintf("mcp__s__tool%02d", i), Description: fmt.Sprintf("Does thing %d.\nMore words.", i),
			Schema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`), Class: tool.Command})
	}
	return out
}

func totalBytes(fixed int, list []tool.Spec) int {
	for _, s := range list {
		fixed += SpecBytes(s)
	}
	return fixed
}

// TestPlanBudget feeds the exact budget and one byte less, and checks
// which tools stay offered.
func TestPlanBudget(t *testing.T) {
	list := specs(10)
	exact := totalBytes(1000, list)
	if s := Plan(exact, 1000, list); s != nil {
		t.Fatalf("every tool fits the exact budget, yet %v are deferred", s.Deferred())
	}
	if s := Plan(1<<20, 1000, nil); s != nil {
		t.Fatal("no tools, yet a search")
	}
	s := Plan(exact-1, 1000, list)
	if s == nil {
		t.Fatal("one byte past the budget and nothing deferred")
	}
	kept := len(list) - len(s.Deferred())
	cost := 1000 + SpecBytes(s.Spec()) + totalBytes(0, list[:kept])
	if cost > exact-1 {
		t.Errorf("the plan costs %d bytes, past the budget of %d", cost, exact-1)
	}
	if kept < len(list) {
		next := newSearch(list[kept+1:], strings.Join(lines(list[kept+1:]), "\n"))
		if 1000+SpecBytes(next.Spec())+totalBytes(0, list[:kept+1]) <= exact-1 {
			t.Errorf("one more tool would have fit: kept %d", kept)
		}
	}
	for i, name := range s.Deferred() {
		if name != list[kept+i].Name || s.Offered(name) {
			t.Errorf("deferred %d: %s (offered %v)", i, name, s.Offered(name))
		}
	}
	for _, x := range list[:kept] {
		if !s.Offered(x.Name) {
			t.Errorf("%s fits but is not offered", x.Name)
		}
	}
	if !s.Offered("read") || !s.Offered(SearchName) {
		t.Error("tools that are not deferred must stay offered")
	}
}

func lines(list []tool.Spec) []string {
	var out []string
	for _, x := range list {
		out = append(out, listLine(x, true))
	}
	return out
}

// TestPlanNamesOnly: when even one line per tool is too much, the
// listing holds names alone and every tool is deferred.
func TestPlanNamesOnly(t *testing.T) {
	list := specs(40)
	s := Plan(200, 100, list)
	if s == nil || len(s.Deferred()) != 40 {
		t.Fatalf("plan %v", s)
	}
	d := s.Spec().Description
	if strings.Contains(d, "Does thing") || !strings.Contains(d, "- mcp__s__tool39") {
		t.Errorf("listing:\n%s", d)
	}
	s = Plan(totalBytes(0, list)/2, 0, list)
	if d := s.Spec().Description; !strings.Contains(d, ": Does thing 39.") || strings.Contains(d, "More words") {
		t.Errorf("listing with one line each:\n%s", d)
	}
}

func TestListLineCut(t *testing.T) {
	long := strings.Repeat("é", 80)
	got := listLine(tool.Spec{Name: "x", Description: long}, true)
	if !strings.HasSuffix(got, "…") || len(got) > len("- x: ")+summaryBytes+len("…") || !strings.HasPrefix(got, "- x: éé") {
		t.Errorf("%q", got)
	}
	if got := listLine(tool.Spec{Name: "x", Description: "  \n"}, true); got != "- x" {
		t.Errorf("%q", got)
	}
}

// TestSearchRun: a search returns the best matches' full definitions,
// at most searchResults, and offers them from then on.
func TestSearchRun(t *testing.T) {
	list := specs(12)
	list[3].Description = "List a folder's files."
	s := newSearch(list, "")
	cases := []struct {
		name, args string
		want       []string
		revealed   []string
		isError    bool
	}{
		{"bad arguments", `[1]`, []string{"query (string)"}, nil, true},
		{"empty query", `{"query":"  "}`, []string{"at least one word"}, nil, true},
		{"no match", `{"query":"zebra"}`, []string{`No listed tool matches "zebra"`, "mcp__s__tool11"}, nil, false},
		{"by purpose", `{"query":"Folder FILES"}`, []string{"1 tools are offered", `"name":"mcp__s__tool03"`, `"input_schema":{"type":"object"`}, []string{"mcp__s__tool03"}, false},
		{"exact name first", `{"query":"thing mcp__s__tool07"}`, []string{"8 tools are offered", "offered in full from now on:\n{\"name\":\"mcp__s__tool07\""}, []string{"mcp__s__tool07"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := s.Run(context.Background(), &tool.Env{}, json.RawMessage(c.args))
			if err != nil || res.IsError != c.isError {
				t.Fatalf("%v %+v", err, res)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Content)
				}
			}
			for _, name := range c.revealed {
				if !s.Offered(name) {
					t.Errorf("%s is not offered after the search", name)
				}
			}
		})
	}
	if s.Offered("mcp__s__tool11") {
		t.Error("a tool past the eight best matches was offered")
	}
	if got := s.Spec(); got.Class != tool.Read || got.Name != SearchName {
		t.Errorf("spec %+v", got)
	}
}

// TestPlanStaysWithinBudget: for budgets across the whole range, the
// plan's request (the fixed part, tool_search with its listing and the
// tools kept) fits the budget whenever anything is kept, and one more
// kept tool would not have fitted.
func TestPlanStaysWithinBudget(t *testing.T) {
	list := specs(30)
	list[4].Description = `Quotes "and" <angles> & a tab	here, then é` + "\nsecond line"
	const fixed = 2000
	for budget := fixed; budget <= totalBytes(fixed, list)+10; budget += 37 {
		s := Plan(budget, fixed, list)
		if s == nil {
			if totalBytes(fixed, list) > budget {
				t.Fatalf("budget %d: nothing deferred, yet the tools pass it", budget)
			}
			continue
		}
		kept := len(list) - len(s.Deferred())
		cost := fixed + SpecBytes(s.Spec()) + totalBytes(0, list[:kept])
		if kept > 0 && cost > budget {
			t.Fatalf("budget %d: %d tools kept cost %d", budget, kept, cost)
		}
	}
}
