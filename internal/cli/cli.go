// Package cli turns a command line into a run: it parses flags, loads the
// user's configuration, picks the provider, builds the tools, the gate and
// the session, and hands the agent's events to one frontend (print, JSON
// or the line-mode terminal). Exit codes are decided here and nowhere else.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Version is the wisp version, set at build time with -ldflags.
var Version = "0.1.0-dev"

// Exit codes, as the spec fixes them.
const (
	ExitOK        = 0
	ExitFailure   = 1
	ExitUsage     = 2
	ExitInterrupt = 130
)

// IO is the process's world as the CLI sees it; tests hand in their own.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv config.Getenv
	// StdinTTY and StderrTTY say whether those streams are terminals.
	StdinTTY, StdoutTTY, StderrTTY bool
	Workdir                        string
	// Self is the path of the wisp binary (for re-executing helpers).
	Self string
	// Extensions are tools an embedding program registered (package sdk).
	Extensions []Extension
}

// Extension is a tool registered by an embedding program, with its
// optional prompt guidance.
type Extension struct {
	Tool tool.Tool
	Meta *tool.PromptMetadata
}

// Main runs wisp and returns its exit code.
func Main(ctx context.Context, args []string, sys IO) int {
	err := run(ctx, args, sys)
	return exitCode(err, sys)
}

func exitCode(err error, sys IO) int {
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	var se *signalExit
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(sys.Stderr, "wisp: %s\n", ue.Msg)
		return ExitUsage
	case errors.As(err, &se) && se.sig != syscall.SIGINT:
		fmt.Fprintf(sys.Stderr, "wisp: interrupted (%s)\n", signalName(se.sig))
		return se.code()
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
	errInterrupted = errors.New("interrupted")
	// errReported marks a failure the frontend already showed.
	errReported = errors.New("failed")
)

const usageHead = `wisp: a coding agent for your terminal

Usage:
  wisp [flags] [PROMPT]          interactive conversation (on a terminal)
  wisp -p [flags] PROMPT         print mode: answer once, final text on stdout
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
		fmt.Fprintf(sys.Stdout, "wisp %s\n", Version)
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
		fmt.Fprintf(sys.Stdout, "wisp %s\n", Version)
		return nil
	case "help":
		return printHelp(o.Args[1:], sys)
	}
	return runSession(ctx, o, sys)
}

// runSession runs a conversation: interactive on a terminal, else one
// prompt in print mode.
func runSession(ctx context.Context, o Options, sys IO) error {
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
	rt, err := newRuntime(ctx, o, sys, interactive)
	if err != nil {
		return err
	}
	if !interactive {
		defer rt.Close()
		return rt.finish(rt.guard(func() error { return rt.printMode(ctx, prompt) }))
	}
	// The way back in is shown once the session is closed, however it
	// ended: /exit, Ctrl-D, Ctrl-C twice, SIGTERM or SIGHUP.
	defer func() {
		rt.Close()
		rt.showResume()
	}()
	return rt.finish(rt.guard(func() error { return rt.interactive(ctx, prompt) }))
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
