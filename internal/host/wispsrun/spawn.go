package wispsrun

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/wisps"
)

// spawnTool is spawn_wisps: it runs no step itself; each step's call
// goes through the gate on its own, so the tool is of class read. h is
// nil in a catalogue built without a session.
type spawnTool struct{ h *Host }

// Describe gives the catalogue the tool's limits.
func (t *spawnTool) Describe() ([]string, string) {
	return []string{
			fmt.Sprintf("at most %d wisps run at once; each wisp's steps run in order", wisps.MaxConcurrentWisps),
			"every step's tool call goes through the gate on its own (policy, approval, sandbox, audit)",
			"web_browse, web_search and invoke_agent calls are always asked about",
			"answers when every wisp has ended; failed wisps are reported, not an error result",
		},
		`{"definitions":[{"description":"count lines","steps":[{"id":"count","mode":"Direct","gateway":"Script","language":"bash","params":{"script":"wc -l < README.md"}}]}]}`
}

func (t *spawnTool) Spec() tool.Spec {
	return tool.Spec{Name: Name, Description: wisps.SpawnDescription(), Class: tool.Read,
		Schema: json.RawMessage(`{"type":"object","properties":{"definitions":{"type":"array","items":{"anyOf":[{"type":"object"},{"type":"string"}]}}},"required":["definitions"]}`)}
}

// Run answers with the batch's summary text, never an error result for
// wisps that failed, so that the model does not re-run the ones that
// worked. A definition that is wrong is an error result: nothing ran.
func (t *spawnTool) Run(ctx context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	if t.h == nil {
		return tool.Errorf("spawn_wisps runs only in a wisp session (nothing was run)"), nil
	}
	defs, err := wisps.ParseBatch(args)
	if err != nil {
		return tool.Errorf("spawn_wisps: %v (nothing was run)", err), nil
	}
	plans, err := t.h.Prepare(defs)
	if err != nil {
		return tool.Errorf("spawn_wisps: %v (nothing was run)", err), nil
	}
	b, err := t.h.Run(ctx, plans, nil)
	if err != nil {
		return tool.Result{}, err
	}
	// Failed wisps or writes mark the call failed in the audit only.
	return tool.Result{Content: b.Text(), Failed: b.Failed()}, nil
}
