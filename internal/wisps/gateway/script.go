// Package gateway holds the tools that wisp's gateways call and that a
// session does not otherwise have: execute_{language}_script for Script
// steps, web_browse and web_search for Web steps and invoke_agent (an A2A
// client) for A2A steps. They are ordinary tools: each runs only when the
// gate runs it (a script as a command line that is classified, approved
// and sandboxed; a fetch, a search or an agent call as a remote call
// that reaches the network, asked about whatever the threshold). They
// must never run a process or open a connection any other way.
package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/proc"
	"github.com/wisp-agent/wisp/internal/tool"
)

// interpreters maps a Script step's language to the command that runs a
// script given as one argument. bash runs the script as the line itself,
// so that the classifier judges what it does.
var interpreters = map[string]string{"python": "python3 -c", "sh": "sh -c", "node": "node -e", "bash": ""}

// ScriptTool runs a wisp's Script step in one language.
type ScriptTool struct {
	Language string
	// Dir is where the script runs; empty means the workspace, the
	// folder the sandbox lets commands write.
	Dir string
}

// Scripts builds the script tools, one per language.
func Scripts(dir string) []tool.Tool {
	var out []tool.Tool
	for _, l := range []string{"python", "bash", "sh", "node"} {
		out = append(out, &ScriptTool{Language: l, Dir: dir})
	}
	return out
}

// Spec is a command tool: every call is judged as the line it runs.
func (s *ScriptTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "execute_" + s.Language + "_script",
		Description: fmt.Sprintf("Run a %s script given in full in script; its working directory is the workspace. Standard output is the result; a non-zero exit is a failure.", s.Language),
		Schema:      json.RawMessage(`{"type":"object","properties":{"script":{"type":"string","description":"the script's full text"}},"required":["script"],"additionalProperties":false}`),
		Class:       tool.Command,
	}
}

func (s *ScriptTool) script(args json.RawMessage) (string, error) {
	var a map[string]json.RawMessage
	if err := json.Unmarshal(args, &a); err != nil {
		return "", fmt.Errorf("malformed arguments: %v", err)
	}
	for k := range a {
		if k != "script" {
			return "", fmt.Errorf("unknown parameter %q: a script step takes script only", k)
		}
	}
	var script string
	if err := json.Unmarshal(a["script"], &script); err != nil || strings.TrimSpace(script) == "" {
		return "", fmt.Errorf("missing required parameter script (the script's text)")
	}
	return script, nil
}

// CommandLine is the exact line the gate judges and the sandbox runs.
func (s *ScriptTool) CommandLine(args json.RawMessage) (string, error) {
	script, err := s.script(args)
	if err != nil {
		return "", err
	}
	run, ok := interpreters[s.Language]
	if !ok {
		return "", fmt.Errorf("language %q is not supported", s.Language)
	}
	if run == "" {
		return script, nil
	}
	return run + " " + quote(script), nil
}

// quote single-quotes a string for bash.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Run runs the line in the shell the gate handed over; without one it
// runs nothing.
func (s *ScriptTool) Run(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	line, err := s.CommandLine(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if env == nil || env.Shell == nil {
		return tool.Errorf("no sandboxed shell was provided; the script was not run"), nil
	}
	dir := s.Dir
	if dir == "" {
		dir = env.Workdir
	}
	cmd := env.Shell(line, dir)
	timeout := env.CommandTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	o, err := proc.Run(ctx, cmd, proc.Options{Timeout: timeout, Dir: env.TempDir, Bound: proc.Bound{Bytes: env.OutputBytes, Lines: env.OutputLines}})
	if err != nil {
		return tool.Errorf("could not run the script: %v", err), nil
	}
	return scriptResult(o, timeout), nil
}

// scriptResult is stdout alone on success, so that later steps can read
// it as data; on failure the exit and stderr say why.
func scriptResult(o proc.Outcome, timeout time.Duration) tool.Result {
	tail := o.Stderr.Text
	if len(tail) > 4096 {
		tail = tail[len(tail)-4096:]
	}
	out := &tool.CommandOutcome{ExitCode: o.ExitCode, Signal: o.Signal, TimedOut: o.TimedOut(), Canceled: o.State == proc.Killed,
		Truncated: o.Stdout.Truncated || o.Stderr.Truncated, Duration: o.Duration, StderrTail: tail}
	if o.State == proc.Exited && o.ExitCode == 0 {
		return tool.Result{Content: o.Stdout.Text, Command: out}
	}
	var b strings.Builder
	switch o.State {
	case proc.TimedOut:
		fmt.Fprintf(&b, "error: the script timed out after %s\n", timeout)
	case proc.Killed:
		b.WriteString("error: the script was cancelled\n")
	default:
		fmt.Fprintf(&b, "error: the script exited with code %d\n", o.ExitCode)
	}
	if o.Stderr.Text != "" {
		b.WriteString("stderr:\n" + o.Stderr.Text)
	}
	if o.Stdout.Text != "" {
		b.WriteString("\nstdout:\n" + o.Stdout.Text)
	}
	return tool.Result{Content: b.String(), IsError: true, Command: out}
}
