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
  wisp sessions                  list saved sessions
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

Flags:
`

func run(ctx context.Context, args []string, sys IO) error {
	// Subcommands with flags of their own come before wisp's flag parsing.
	if len(args) > 0 {
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
		}
	}
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	switch {
	case o.Help:
		fmt.Fprint(sys.Stdout, usageHead+flagHelp())
		return nil
	case o.Version:
		fmt.Fprintf(sys.Stdout, "wisp %s\n", Version)
		return nil
	}
	if len(o.Args) > 0 && !o.Print {
		switch o.Args[0] {
		case "sessions":
			return cmdSessions(o, sys)
		case "config":
			return cmdConfig(ctx, o, sys)

		case "version":
			fmt.Fprintf(sys.Stdout, "wisp %s\n", Version)
			return nil
		case "help":
			fmt.Fprint(sys.Stdout, usageHead+flagHelp())
			return nil
		}
	}
	prompt := strings.Join(o.Args, " ")
	interactive := !o.Print && sys.StdinTTY && o.Mode == "text"
	if !interactive {
		if prompt == "" || prompt == "-" {
			if sys.StdinTTY {
				return usagef("print mode needs a prompt: wisp -p \"PROMPT\" (or - to read it from stdin)")
			}
			data, err := readAll(sys.Stdin)
			if err != nil {
				return fmt.Errorf("read the prompt from stdin: %w", err)
			}
			prompt = strings.TrimSpace(string(data))
			if prompt == "" {
				return usagef("the prompt on stdin is empty")
			}
		}
		o.Print = true
	}
	rt, err := newRuntime(ctx, o, sys, interactive)
	if err != nil {
		return err
	}
	defer rt.Close()
	if interactive {
		return rt.finish(rt.guard(func() error { return rt.interactive(ctx, prompt) }))
	}
	return rt.finish(rt.guard(func() error { return rt.printMode(ctx, prompt) }))
}

func readAll(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	return io.ReadAll(r)
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
