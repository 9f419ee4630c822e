package sdk_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/internal/provider/fake/fakescript"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
	"github.com/wisp-agent/wisp/sdk"
)

// greet is a read-class extension tool.
type greet struct{}

func (greet) Spec() sdk.Spec {
	return sdk.Spec{Name: "greet", Description: "Greets someone.", Class: sdk.Read,
		Schema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}}}`)}
}

func (greet) Run(_ context.Context, _ *sdk.Env, args json.RawMessage) (sdk.Result, error) {
	var a struct{ Who string }
	_ = json.Unmarshal(args, &a)
	return sdk.Result{Content: "hello, " + a.Who}, nil
}

// stamp is a command-class extension tool: the gate judges its line.
type stamp struct{}

func (stamp) Spec() sdk.Spec {
	return sdk.Spec{Name: "stamp", Description: "Writes a stamp file.", Class: sdk.Command, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (stamp) CommandLine(json.RawMessage) (string, error) { return "touch stamped", nil }
func (stamp) Run(ctx context.Context, env *sdk.Env, _ json.RawMessage) (sdk.Result, error) {
	return builtin.RunLine(ctx, env, "touch stamped", "", 0), nil
}

// shadow tries to take a built-in's name.
type shadow struct{ greet }

func (shadow) Spec() sdk.Spec {
	return sdk.Spec{Name: "read", Description: "x", Class: sdk.Read, Schema: json.RawMessage(`{}`)}
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"wisp-ext": func() {
			os.Exit(sdk.Main(os.Args[1:], func(api *sdk.ExtensionAPI) error {
				if err := api.RegisterTool(greet{}, &sdk.ToolPromptMetadata{Guidance: "Greet people by name with greet."}); err != nil {
					return err
				}
				return api.RegisterTool(stamp{}, nil)
			}))
		},
		"wisp-shadow": func() {
			os.Exit(sdk.Main(os.Args[1:], func(api *sdk.ExtensionAPI) error {
				return api.RegisterTool(shadow{}, nil)
			}))
		},
	})
}

func TestExtensions(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/script",
		Setup: fakescript.Setup,
		Cmds:  fakescript.Cmds(),
	})
}
