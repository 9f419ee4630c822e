package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/trust"
)

// commandHelp is the help of every subcommand, printed by `wisp CMD
// --help`, `wisp CMD -h` and `wisp help CMD`. Commands whose package owns
// its usage text print that text, so the two never drift apart.
var commandHelp = map[string]func(w io.Writer){
	"classify": text(`Usage: wisp classify [--json] -- COMMAND

Shows how the gate judges a shell line without running it: the command
policy's decision (and the deny rule that matched), the risk level of the
line and of each simple command in it, the reasons, and whether wisp would
ask before running it at the configured approval.threshold.

  --json   the same as one JSON object

Put the line after -- so that its own flags are not read as wisp's:
  wisp classify -- git push --force origin main
`),
	"logs":      text(audit.LogsUsage),
	"approvals": text(approval.CommandUsage),
	"trust": func(w io.Writer) {
		// trust.Command prints its help without touching the store.
		_ = trust.Command([]string{"--help"}, w, io.Discard, nil, "", "")
	},
	"tools": text(`Usage: wisp tools [--json|--markdown]

Lists the tools a session in this folder gets: the built-ins not disabled
in config.json, the skill tool when there are skills, and custom tools.
On a terminal the list is a table; piped, one "name<TAB>description" line
per tool.

  --json       the full catalogue: schemas, classes, sources, limits
  --markdown   one section per tool with its limits and an example
`),
	"mcp": text(`Usage: wisp mcp status [--json]
       wisp mcp serve [--yes] [--allow-tool NAME]... [--all-tools] [--allow-read-tools]

wisp mcp status starts the MCP servers of ~/.wisp/settings.json
(mcp_servers), waits for each to connect and list its tools (10 s at
most), and shows one line per server: its name, state (ready, failed or
skipped), how many of its tools a session gets, and why it failed or was
skipped. The reasons never quote a server's command, arguments,
environment or output.

  --json   the same as a JSON array, with each server's tool names

wisp mcp serve serves wisp's tools (as wisp tools lists them) to an MCP
client on stdin and stdout, with the resources wisp://tools (JSON) and
wisp://tools.md (the text of wisp tools --markdown). Every call goes
through the gate: policy, classifier, sandbox, output bound and audit.
Stdout carries only MCP frames; diagnostics go to stderr.

  --yes                approve the calls the gate would ask about (the
                       policy's deny rules still win); without it they
                       are asked through MCP elicitation when the client
                       offers it, and refused otherwise
  --allow-tool NAME    serve this tool (repeatable)
  --allow-read-tools   serve the read tools
  --all-tools          serve every tool (the default without these flags)
`),
	"skills": text(`Usage: wisp skills

Lists the skills a session in this folder gets: folders with a SKILL.md
under ~/.wisp/skills and ~/.agents/skills, and, in a trusted project,
.wisp/skills and .agents/skills.
`),
	"sessions": text(`Usage: wisp sessions [--all] [--session-dir DIR]

Lists the saved sessions started in this folder, newest first: id, start
time, message count, state (ok, damaged, open (pid N), fork of ID) and the
first prompt. Sessions without a message are left out. Resume one with
wisp -r ID (an unambiguous id prefix is enough).

  --all                every folder's sessions, with a FOLDER column
  --session-dir DIR    where transcripts live (env WISP_SESSION_DIR)
  -C DIR               list as if started in DIR
`),
	"config": text(`Usage: wisp config [--provider NAME] [--model NAME] [--base-url URL]

Prints the effective configuration of a session in this folder, one
setting a line, with where each value came from (a flag, the environment,
settings.json, config.json, the project's .wisp/settings.json or the
default), and whether the project is trusted.
`),
	"run":   text(runHelp),
	"wisps": text(wispsHelp),
	"version": text(`Usage: wisp version

Prints wisp's version (the same as wisp --version).
`),
	"help": text(`Usage: wisp help [COMMAND]

Prints wisp's help, or the help of one command.
`),
}

func text(s string) func(io.Writer) {
	return func(w io.Writer) { _, _ = io.WriteString(w, s) }
}

// commandNames lists the subcommands in the order the global help shows.
func commandNames() []string {
	return []string{"sessions", "classify", "logs", "approvals", "tools", "trust", "skills", "mcp", "run", "wisps", "config", "version", "help"}
}

// wantsHelp says whether a subcommand's own arguments ask for its help:
// -h or --help before any --. For classify only the flags before the
// first word count, since the words from there on are the shell line
// being judged (`wisp classify grep -h x`).
func wantsHelp(cmd string, args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "--help" {
			return true
		}
		if cmd == "classify" && !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return false
}

// printHelp serves `wisp help [COMMAND]`: the global help, or one
// command's.
func printHelp(args []string, sys IO) error {
	if len(args) == 0 {
		fmt.Fprint(sys.Stdout, globalHelp())
		return nil
	}
	if len(args) > 1 {
		return usagef("wisp help takes one command, not %d words (usage: wisp help [COMMAND])", len(args))
	}
	show, ok := commandHelp[args[0]]
	if !ok {
		return usagef("no command %q to show help for (commands: %s)", args[0], strings.Join(commandNames(), ", "))
	}
	show(sys.Stdout)
	return nil
}

func globalHelp() string { return usageHead + flagHelp() }
