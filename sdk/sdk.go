// Package sdk is wisp's public Go API: a program embeds wisp either as a
// session it drives itself (NewSession, then Prompt, Steer, FollowUp,
// Cancel, Events, Close) or as a whole wisp binary of its own with extra
// tools (Main). Extension tools are ordinary tools to the rest of wisp:
// the model sees them only when a session exposes them, and every call
// goes through the same gate (policy, classifier, approval, sandbox,
// limits, audit) as the built-ins. The package wires nothing itself: it
// hands everything to wisp's session core, and never exposes a way
// around the gate.
//
// # The first call in main: Init
//
// wisp runs every shell command in a sandbox built by a helper process,
// and the helper is the running program itself, started again with a
// hidden argument. A program that uses NewSession must therefore call
// Init first thing in main, before flags are parsed or anything else
// starts:
//
//	func main() {
//		sdk.Init()
//		// ... the program itself
//	}
//
// Init acts as the helper, and exits, when the program was started as
// one, and returns at once otherwise. A test binary does the same from
// TestMain. Without Init, a session refuses every command tool (bash,
// command-class extensions and custom tools) with an error that says so,
// rather than running commands unsandboxed; file and read tools work.
// Main serves as the helper by itself.
//
// # Where a session keeps its files
//
// A session never reads the embedding user's ~/.wisp unless told to:
// with Options.Home empty it gets a private wisp home of its own (made in
// the user cache folder, removed by Close), so it starts from wisp's
// defaults: no settings, no custom tools, no remembered approvals, and
// its audit log and transcript go when it is closed. Options.Home names
// a wisp home to use instead (the command line's is ~/.wisp), and
// Options.SessionDir where transcripts are kept. The WISP_* variables and
// the providers' API key variables of the process's environment are
// ignored: the provider, the model and the key are given in Options.
//
// # Building a binary: Main
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
	"sync/atomic"

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
	// ToolResult is what a call returns to the model.
	ToolResult = tool.Result
	// Class is a tool's approval class.
	Class = tool.Class
	// CommandLiner must be implemented by command-class tools: the gate
	// judges the exact shell line before the tool runs.
	CommandLiner = tool.CommandLiner
	// Mutator must be implemented by mutating-class tools: the gate
	// judges and shows the files a call changes before the tool runs, and
	// refuses a mutating tool without it.
	Mutator = tool.Mutator
	// Subject is what one mutating call changes: its paths, a summary and
	// a preview of the new content.
	Subject = tool.Subject
	// Describer may be implemented by any tool to state its limits and an
	// example prompt for `wisp tools --markdown`.
	Describer = tool.Describer
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

// ExtensionAPI is handed to the setup function of Main, and of
// Options.Extensions.
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

// helperServed records that this process's main handed the sandbox
// helper's re-execution to wisp (Init or Main). It is a fact about the
// process, not about a session, set once before any session starts:
// without it a session must not re-execute the program, which would run
// the embedder's own main instead of the helper.
var helperServed atomic.Bool

// Init must be the first call of an embedding program's main (and of
// TestMain in its tests): when the program was started as wisp's sandbox
// helper it runs the helper and exits with its status; otherwise it
// returns at once and sessions may run sandboxed commands.
func Init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	helperServed.Store(true)
}

// Main runs wisp with the extensions setup registers, and returns the exit
// code. It also serves as the sandbox helper, which wisp re-executes for
// every command.
func Main(args []string, setup func(api *ExtensionAPI) error) int {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		return sandbox.Main(os.Args[2:])
	}
	helperServed.Store(true)
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
