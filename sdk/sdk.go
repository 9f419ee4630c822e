// Package sdk lets Go programs embed wisp: build a wisp binary of your own
// with extra tools, each with optional prompt guidance. Extension tools
// are ordinary tools to the rest of wisp: the model sees them only when a
// run exposes them, and every call goes through the same gate (policy,
// classifier, approval, sandbox, limits, audit) as the built-ins.
//
//	func main() {
//		os.Exit(sdk.Main(os.Args[1:], func(api *sdk.ExtensionAPI) error {
//			return api.RegisterTool(deployTool{}, &sdk.ToolPromptMetadata{
//				Guidance: "Deploy only after the tests pass.",
//			})
//		}))
//	}
package sdk

import (
	"context"
	"os"

	"github.com/wisp-agent/wisp/internal/cli"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/tool"
)

// The tool types, as wisp's core uses them.
type (
	// Tool is one callable tool: a spec and a Run method.
	Tool = tool.Tool
	// Spec describes a tool to the model and to the gate.
	Spec = tool.Spec
	// Env is what the harness hands every call: the workspace, and for
	// command tools the shell builder that wraps the sandbox.
	Env = tool.Env
	// Result is what a call returns to the model.
	Result = tool.Result
	// Class is a tool's approval class.
	Class = tool.Class
	// CommandLiner must be implemented by command-class tools: the gate
	// judges the exact shell line before the tool runs.
	CommandLiner = tool.CommandLiner
	// ToolPromptMetadata is optional guidance for the system prompt. It
	// is descriptive only: it cannot change a tool's class, sandboxing,
	// protected paths or approval.
	ToolPromptMetadata = tool.PromptMetadata
)

// The approval classes.
const (
	Read     = tool.Read
	Mutating = tool.Mutating
	Command  = tool.Command
)

// ExtensionAPI is handed to the setup function of Main.
type ExtensionAPI struct {
	exts []cli.Extension
}

// RegisterTool adds a tool. Its guidance reaches the system prompt only
// when the tool is exposed for the run, de-duplicated and bounded. A name
// that a built-in or another extension already has is refused when the
// session's tools are built.
func (a *ExtensionAPI) RegisterTool(t Tool, meta *ToolPromptMetadata) error {
	a.exts = append(a.exts, cli.Extension{Tool: t, Meta: meta})
	return nil
}

// Main runs wisp with the extensions setup registers, and returns the exit
// code. It also serves as the sandbox helper, which wisp re-executes for
// every command.
func Main(args []string, setup func(api *ExtensionAPI) error) int {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		return sandbox.Main(os.Args[2:])
	}
	api := &ExtensionAPI{}
	env := cli.Environ()
	if setup != nil {
		if err := setup(api); err != nil {
			env.Stderr.Write([]byte("wisp: extension setup: " + err.Error() + "\n"))
			return cli.ExitFailure
		}
	}
	env.Extensions = api.exts
	return cli.Main(context.Background(), args, env)
}
