package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

type stub struct {
	name  string
	class Class
}

func (s stub) Spec() Spec {
	return Spec{Name: s.name, Description: "d", Schema: json.RawMessage(`{}`), Class: s.class}
}
func (stub) Run(context.Context, *Env, json.RawMessage) (Result, error) { return Result{}, nil }

func TestRegisterGuidance(t *testing.T) {
	r := NewRegistry(stub{name: "read", class: Read})
	if err := r.Register(stub{name: "read", class: Read}, &PromptMetadata{Guidance: "x"}); err == nil {
		t.Error("registering over a built-in must fail")
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Register(stub{name: "deploy", class: Command}, &PromptMetadata{Guidance: "Use deploy only after tests pass."}))
	must(r.Register(stub{name: "deploy2", class: Command}, &PromptMetadata{Guidance: "Use deploy only after tests pass."}))
	must(r.Register(stub{name: "huge", class: Read}, &PromptMetadata{Guidance: strings.Repeat("é", 1000)}))
	must(r.Register(stub{name: "quiet", class: Read}, nil))

	g := r.Guidance()
	if len(g) != 2 {
		t.Fatalf("guidance %q: want deploy once (deduplicated) and huge", g)
	}
	if !strings.HasPrefix(g[0], "deploy: ") {
		t.Errorf("first guidance %q", g[0])
	}
	if len(g[1]) > MaxGuidancePerTool+len("huge: ")+3 {
		t.Errorf("guidance not bounded: %d bytes", len(g[1]))
	}
	// Guidance of a tool that is not exposed is not given.
	if sub := r.Subset([]string{"read", "quiet"}).Guidance(); len(sub) != 0 {
		t.Errorf("unexposed guidance leaked: %q", sub)
	}
	if sub := r.Subset([]string{"deploy"}).Guidance(); len(sub) != 1 {
		t.Errorf("exposed guidance lost: %q", sub)
	}
	// Metadata never changes the class the gate judges by.
	if got, _ := r.Get("deploy"); got.Spec().Class != Command {
		t.Error("class changed")
	}
}

func TestGuidanceTotalBound(t *testing.T) {
	r := NewRegistry()
	for i := 0; i < 20; i++ {
		name := "t" + strings.Repeat("x", i)
		if err := r.Register(stub{name: name, class: Read}, &PromptMetadata{Guidance: name + strings.Repeat(" words", 80)}); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for _, g := range r.Guidance() {
		total += len(g)
	}
	if total > MaxGuidanceTotal {
		t.Errorf("total guidance %d > %d", total, MaxGuidanceTotal)
	}
}
