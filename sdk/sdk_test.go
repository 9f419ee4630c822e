package sdk_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/internal/provider/fake/fakescript"
	"github.com/wisp-agent/wisp/internal/tool/builtin/bashtool"
	"github.com/wisp-agent/wisp/sdk"
)

// greet is a read-class extension tool.
type greet struct{}

func (greet) Spec() sdk.Spec {
	return sdk.Spec{Name: "greet", Description: "Greets someone.", Class: sdk.Read,
		Schema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}}}`)}
}

func (greet) Run(_ context.Context, _ *sdk.Env, args json.RawMessage) (sdk.ToolResult, error) {
	var a struct{ Who string }
	_ = json.Unmarshal(args, &a)
	return sdk.ToolResult{Content: "hello, " + a.Who}, nil
}

// stamp is a command-class extension tool: the gate judges its line.
type stamp struct{}

func (stamp) Spec() sdk.Spec {
	return sdk.Spec{Name: "stamp", Description: "Writes a stamp file.", Class: sdk.Command, Schema: json.RawMessage(`{"type":"object"}`)}
}
func (stamp) CommandLine(json.RawMessage) (string, error) { return "touch stamped", nil }
func (stamp) Run(ctx context.Context, env *sdk.Env, _ json.RawMessage) (sdk.ToolResult, error) {
	return bashtool.RunLine(ctx, env, "touch stamped", "", 0), nil
}

// shadow tries to take a built-in's name.
type shadow struct{ greet }

func (shadow) Spec() sdk.Spec {
	return sdk.Spec{Name: "read", Description: "x", Class: sdk.Read, Schema: json.RawMessage(`{}`)}
}

// privateHome runs the tests and examples with HOME and WISP_HOME in a
// folder of their own; the scripts' commands get theirs from
// fakescript.Setup.
type privateHome struct{ m *testing.M }

func (p privateHome) Run() int {
	home, err := os.MkdirTemp("", "wisp-sdk-test-home-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(home)
	os.Setenv("HOME", home)
	os.Setenv("WISP_HOME", filepath.Join(home, ".wisp"))
	os.Unsetenv("XDG_CACHE_HOME")
	return p.m.Run()
}

func TestMain(m *testing.M) {
	// The test binary is the sandbox helper of the sessions its tests
	// and examples start, as an embedding program's binary is.
	sdk.Init()
	testscript.Main(privateHome{m}, map[string]func(){
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
