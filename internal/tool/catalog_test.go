package tool_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

type bare struct{ name string }

func (b bare) Spec() tool.Spec {
	return tool.Spec{Name: b.name, Description: "d", Class: tool.Read, Schema: json.RawMessage(`{"type":"object"}`)}
}

func (bare) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	return tool.Result{}, nil
}

type described struct{ bare }

func (described) Describe() ([]string, string) { return []string{"at most 3"}, "Do it." }

// TestCatalogAsksTheTool: limits and examples come from the tool itself;
// a tool that states none (an extension may) gets an empty list, never
// null, so that the JSON shape holds.
func TestCatalogAsksTheTool(t *testing.T) {
	r := tool.NewRegistry(described{bare{"a"}}, bare{"b"})
	infos := tool.Catalog(r, func(n string) string { return "src-" + n })
	if len(infos) != 2 {
		t.Fatalf("%d infos", len(infos))
	}
	if a := infos[0]; !slices.Equal(a.Limits, []string{"at most 3"}) || a.Example != "Do it." || a.Source != "src-a" {
		t.Errorf("described tool: %+v", a)
	}
	if b := infos[1]; b.Limits == nil || len(b.Limits) != 0 || b.Example != "" || b.Source != "src-b" {
		t.Errorf("bare tool: %+v", b)
	}
}
