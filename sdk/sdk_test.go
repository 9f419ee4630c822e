package sdk_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/wisp-agent/wisp/internal/provider/fake"
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
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			home, err := os.MkdirTemp("", "wisp-home-")
			if err != nil {
				return err
			}
			env.Defer(func() { os.RemoveAll(home) })
			env.Setenv("HOME", home)
			env.Setenv("WISP_HOME", filepath.Join(home, ".wisp"))
			env.Values["fake"] = new(*fake.Server)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fake": func(ts *testscript.TestScript, neg bool, args []string) {
				script, err := fake.LoadScript(ts.MkAbs(args[0]))
				ts.Check(err)
				srv, err := fake.Start(script)
				ts.Check(err)
				ts.Defer(srv.Close)
				*ts.Value("fake").(**fake.Server) = srv
				ts.Setenv("WISP_PROVIDER", "anthropic")
				ts.Setenv("ANTHROPIC_API_KEY", "k")
				ts.Setenv("ANTHROPIC_BASE_URL", srv.URL())
			},
			"fakereq": func(ts *testscript.TestScript, neg bool, args []string) {
				srv := *ts.Value("fake").(**fake.Server)
				reqs := srv.Requests()
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), reqs[len(reqs)-1-atoi(ts, args[0])].Body, 0o600))
			},
		},
	})
}

func atoi(ts *testscript.TestScript, s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
