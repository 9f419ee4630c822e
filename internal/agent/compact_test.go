package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Auto compaction runs before a request once the last one passed
// CompactAt, but not again right after a compaction (the compacted
// conversation was measured by the request that followed it).
func TestAutoCompactionSpacing(t *testing.T) {
	look := &echoTool{name: "look", class: tool.Read}
	turns := []chat.Message{
		answer(call("c1", "look", `{}`)), answer(call("c2", "look", `{}`)),
		answer(call("c3", "look", `{}`)), answer(text("done")),
	}
	tests := []struct {
		name string
		at   int64
		want []int // the requests (1-based) a compaction came before
	}{
		{"never below the threshold", 10, nil},
		{"past it: every other request", 9, []int{2, 4}},
		{"off", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &scripted{turns: append([]chat.Message(nil), turns...)}
			var before []int
			a := New(Options{Provider: p, Tools: tool.NewRegistry(look), MaxToolIterations: -1, CompactAt: tc.at,
				Compact: func(_ context.Context, c Compaction) ([]chat.Message, error) {
					if c.Reason != CompactAuto || c.LastInput != 10 {
						t.Errorf("compaction %+v", c)
					}
					before = append(before, len(p.seen)+1)
					return c.Messages, nil
				}}, nil)
			if _, err := a.Run(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(before, tc.want) {
				t.Errorf("compacted before requests %v, want %v", before, tc.want)
			}
		})
	}
}
