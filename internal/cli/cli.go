// Package cli turns a command line into what wisp does: it parses flags,
// dispatches subcommands, starts a session (package host) and drives it
// with one frontend (print, JSON, the line-mode terminal or the full
// screen of package tui). Exit codes are decided here and nowhere else.
// It wires no run of its own.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/frontend/line"
	"github.com/wisp-agent/wisp/internal/frontend/print"
	"github.com/wisp-agent/wisp/internal/frontend/tui"
	"github.com/wisp-agent/wisp/internal/host"
)

// Exit codes, as the spec fixes them.
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitUsage     = 2
	ExitInterrupt = 130
)

// IO is the process's world as a run sees it (package host).
type IO = host.IO

// Extension is a tool an embedding program registered (package sdk).
type Extension = host.Extension

// Main runs wisp and returns its exit code.
func Main(ctx context.Context, args []string, sys IO) int {
	// A reader of stdout or stderr that goes away (`| head`, a crashed RPC
	// client) must not kill wisp between a call's end and its result's
	// record: with SIGPIPE handled, a write to a closed pipe returns EPIPE
	// instead, the frontends drop their output, and the run ends and
	// closes its session as usual. Notify, not Ignore: an ignored SIGPIPE
	// would be inherited by every command wisp runs.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	err := run(ctx, args, sys)
	return exitCode(err, sys)
}

func exitCode(err error, sys IO) int {
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	var se *frontend.SignalExit
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(sys.Stderr, "wisp: %s\n", ue.Msg)
		return ExitUsage
	case errors.As(err, &se) && se.Sig != syscall.SIGINT:
		fmt.Fprintf(sys.Stderr, "wisp: interrupted (%s)\n", frontend.SignalName(se.Sig))
		return se.Code()
	case errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted):
		fmt.Fprintln(sys.Stderr, "wisp: interrupted")
		return ExitInterrupt
	case errors.Is(err, errReported):
		return ExitFailure
	}
	var me *config.MalformedError
	if errors.As(err, &me) {
		fmt.Fprintf(sys.Stderr, "Error: %s\n", me.Error())
		return ExitFailure
	}
	fmt.Fprintf(sys.Stderr, "wisp: %v\n", err)
	return ExitFailure
}

var (
	// errInterrupted is a run cut short: exit code 130.
	errInterrupted = frontend.ErrInterrupted
	// errReported marks a failure the frontend already showed.
	errReported = host.ErrReported
)

const usageHead = `wisp: a coding agent for your terminal

Usage:
  wisp [flags] [PROMPT]          interactive conversation (on a terminal)
  wisp -p [flags] PROMPT         print mode: answer once, final text on stdout
  wisp --mode rpc [flags]        drive a session with JSON Lines on stdin and stdout (docs/rpc.md)
  wisp sessions [--all]          list this folder's saved sessions (--all: every folder's)
  wisp classify [--json] -- CMD  show how the gate judges a shell line
  wisp logs [--session ID] [--kind K]... [--tool NAME] [--last N] [--json] [--follow]
                                 read the audit log
  wisp approvals list|revoke ID|clear
                                 remembered approvals
  wisp tools [--json|--markdown] the tools a session gets
  wisp trust status|allow|revoke|forget [PATH]
                                 whether a project's own files are read
  wisp skills                    the skills a session gets
  wisp mcp status [--json]       your MCP servers: state, tools, failures
  wisp mcp serve [--yes]         wisp's tools for an MCP client, over stdio
  wisp run FILE [--json] [--yes] run wisp definitions (a pipeline of known steps) without the agent loop
  wisp wisps log|analyze         the wisps' execution log; recurring failures, by the model
  wisp config                    the effective configuration and its sources
  wisp help [COMMAND]            this help, or a command's (also: wisp COMMAND --help)

A prompt that starts with "-" goes after --: wisp -p -- "-1 is negative?"
Piped stdin joins the prompt: cat log | wisp -p "why does this fail?"

Flags:
`

func run(ctx context.Context, args []string, sys IO) error {
	// -C DIR before a subcommand applies to it (`wisp -C ../api sessions`);
	// the directory changes before anything reads it.
	args, dir, err := leadingChdir(args)
	if err != nil {
		return err
	}
	if dir != "" {
		if sys, err = enterDir(sys, dir); err != nil {
			return err
		}
	}
	// Subcommands with flags of their own come before wisp's flag parsing.
	if len(args) > 0 {
		if show, ok := commandHelp[args[0]]; ok && wantsHelp(args[0], args[1:]) {
			show(sys.Stdout)
			return nil
		}
		switch args[0] {
		case "classify":
			return cmdClassify(args[1:], sys)
		case "logs":
			return cmdLogs(ctx, args[1:], sys)
		case "approvals":
			return cmdApprovals(args[1:], sys)
		case "tools":
			return cmdTools(ctx, args[1:], sys)
		case "mcp":
			return cmdMCP(ctx, args[1:], sys)
		case "run":
			return cmdRun(ctx, args[1:], sys)
		case "wisps":
			return cmdWisps(ctx, args[1:], sys)
		case "trust":
			return cmdTrust(args[1:], sys)
		case "skills":
			return cmdSkills(ctx, args[1:], sys)
		case "help":
			return printHelp(args[1:], sys)
		}
	}
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	switch {
	case o.Help:
		fmt.Fprint(sys.Stdout, globalHelp())
		return nil
	case o.Version:
		fmt.Fprintf(sys.Stdout, "wisp %s\n", host.Version)
		return nil
	}
	if o.Chdir != "" {
		if sys, err = enterDir(sys, o.Chdir); err != nil {
			return err
		}
	}
	if o.SkipPermissions {
		fmt.Fprintln(sys.Stderr, "wisp: warning: --dangerously-skip-permissions is wisp's --yes: tools run without asking, but the policy's deny rules and the sandbox still apply")
	}
	sub := ""
	if len(o.Args) > 0 && !o.Print {
		sub = o.Args[0]
	}
	if o.All && sub != "sessions" {
		return usagef("--all only applies to wisp sessions")
	}
	switch sub {
	case "sessions":
		return cmdSessions(o, sys)
	case "config":
		return cmdConfig(ctx, o, sys)
	case "version":
		fmt.Fprintf(sys.Stdout, "wisp %s\n", host.Version)
		return nil
	case "help":
		return printHelp(o.Args[1:], sys)
	}
	return runSession(ctx, o, sys)
}

// runSession runs a conversation: interactive on a terminal, else one
// prompt in print mode.
func runSession(ctx context.Context, o Options, sys IO) error {
	if o.Mode == "rpc" {
		return rpcMode(ctx, o, sys)
	}
	prompt := strings.Join(o.Args, " ")
	interactive := !o.Print && sys.StdinTTY && o.Mode == "text"
	if err := needsTerminal(interactive, sys); err != nil {
		return err
	}
	if !interactive {
		var err error
		if prompt, err = printPrompt(prompt, o, sys); err != nil {
			return err
		}
		o.Print = true
	}
	if interactive && !o.Line && tui.Usable(sys) {
		return tui.Main(ctx, o.Options, sys, o.Chdir, prompt)
	}
	fe := host.Frontend{Mode: o.Mode}
	var term *line.Terminal
	if interactive {
		term = line.NewTerminal(sys)
		fe = host.Frontend{Mode: "interactive", Interactive: true, Approver: term.Approver(sys.Stdout),
			AskTrust: func(ctx context.Context, project string) (bool, error) {
				return term.AskTrust(ctx, sys.Stdout, project)
			}}
	} else if fe.Mode == "text" {
		fe.Mode = "print"
	}
	s, err := host.New(ctx, o.Options, sys, fe)
	if err != nil {
		return err
	}
	if !interactive {
		defer s.Close()
		return s.Finish(frontend.Guard(s, func() error { return print.Run(ctx, s, sys, o.Mode == "json", o.Chdir, prompt) }))
	}
	// The way back in is shown once the session is closed, however it
	// ended: /exit, Ctrl-D, Ctrl-C twice, SIGTERM or SIGHUP.
	defer func() {
		s.Close()
		frontend.ShowResume(s, o.Chdir, sys)
	}()
	return s.Finish(frontend.Guard(s, func() error { return line.Run(ctx, s, term, sys, o.Chdir, prompt) }))
}

// Environ is the real process's IO.
func Environ() IO {
	wd, _ := os.Getwd()
	self, _ := os.Executable()
	return IO{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		StdinTTY: isTerminal(os.Stdin), StdoutTTY: isTerminal(os.Stdout), StderrTTY: isTerminal(os.Stderr),
		Workdir: wd, Self: self,
	}
}
