package wispsrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/tool"
)

type echo struct{}

func (echo) Spec() tool.Spec { return tool.Spec{Name: "echo", Class: tool.Read} }
func (echo) Run(_ context.Context, _ *tool.Env, args json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: string(args)}, nil
}

// Call hands a wisp's call to the session's gate under a call id of its
// own, never runs spawn_wisps (a wisp cannot start wisps), and makes a
// malformed call or a gate's failure a result the wisp sees.
func TestCall(t *testing.T) {
	var seen []gate.Call
	var failWith error
	tools := tool.NewRegistry(echo{})
	h := New(Parts{Tools: tools, IsMCP: func(string) bool { return false }, Home: t.TempDir(),
		Getenv: func(string) string { return "" }, Stderr: &bytes.Buffer{}, SessionID: func() string { return "s" },
		Model: func() string { return "m" },
		Run: func(ctx context.Context, c gate.Call, tl tool.Tool) (tool.Result, error) {
			seen = append(seen, c)
			if failWith != nil {
				return tool.Result{}, failWith
			}
			return tl.Run(ctx, &tool.Env{}, c.Args)
		}})
	tools.Add(h.Tool())
	if f, ok := Find(tools); !ok || f != h {
		t.Fatal("Find does not give the session's host back")
	}
	tests := []struct {
		name, tool, args string
		fail             error
		want             string
		isErr, callErr   bool
	}{
		{"a call runs through the gate", "echo", `{"a":1}`, nil, `{"a":1}`, false, false},
		{"no arguments are an empty object", "echo", ``, nil, `{}`, false, false},
		{"malformed arguments", "echo", `{`, nil, "error: malformed arguments for echo: not valid JSON", true, false},
		{"a gate failure is a result", "echo", `{}`, errors.New("boom"), "error: echo failed: boom", true, false},
		{"spawn_wisps is not a wisp's tool", Name, `{}`, nil, "", false, true},
		{"unknown tool", "nope", `{}`, nil, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen, failWith = nil, tt.fail
			res, err := h.Call(context.Background(), tt.tool, json.RawMessage(tt.args))
			if tt.callErr {
				if err == nil || len(seen) > 0 {
					t.Fatalf("result %+v, err %v, gate saw %d calls", res, err, len(seen))
				}
				return
			}
			if err != nil || res.Content != tt.want || res.IsError != tt.isErr {
				t.Fatalf("result %+v, err %v; want %q (error %v)", res, err, tt.want, tt.isErr)
			}
			if tt.isErr && tt.fail == nil {
				if len(seen) > 0 {
					t.Fatal("a malformed call reached the gate")
				}
				return
			}
			if len(seen) != 1 || !strings.HasPrefix(seen[0].ID, "wisp_") || len(seen[0].ID) != len("wisp_")+24 || seen[0].Name != tt.tool {
				t.Fatalf("gate saw %+v", seen)
			}
		})
	}
}

// The catalogue's entry describes spawn_wisps but runs nothing.
func TestCatalogueRunsNothing(t *testing.T) {
	res, err := Catalogue().Run(context.Background(), &tool.Env{}, json.RawMessage(`{"definitions":[]}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content, "nothing was run") {
		t.Errorf("result %+v, %v", res, err)
	}
	if _, ok := Find(tool.NewRegistry(Catalogue())); ok {
		t.Error("a catalogue's spawn_wisps passes for a session's")
	}
}
