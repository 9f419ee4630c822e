package builtin

// Describe states a built-in tool's limits and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md. The numbers are the ones
// the tools enforce; a test keeps the two in step where it can.
func Describe(name string) (limits []string, example string) {
	switch name {
	case "read":
		return []string{"at most 2,000 lines or 50 KB a call; continue with offset", "text files only", "inside the working directory; protected paths refused"},
			"Read internal/cli/cli.go and explain how exit codes are chosen."
	case "grep":
		return []string{"RE2 syntax", "at most 100 matches, 500 characters a line, 50 KB in all", "skips .git, binary and .gitignored files"},
			"Find every call to os.Exit in this repository."
	case "find":
		return []string{"at most 1,000 paths", "respects .gitignore"},
			"List all the Go test files under internal/."
	case "ls":
		return []string{"at most 500 entries"},
			"What is in the docs folder?"
	case "write":
		return []string{"atomic (temporary file, then rename)", "inside the working directory; protected paths refused", "asks for approval"},
			"Create a CONTRIBUTING.md that explains how to run the tests."
	case "edit":
		return []string{"each old text must match exactly once", "all edits apply or none", "returns a unified diff", "asks for approval"},
			"Rename the function parseFlags to parseArgs in internal/cli/flags.go."
	case "bash":
		return []string{"default timeout 60 s (commandTimeoutSeconds), then SIGTERM to the process group and SIGKILL 2 s later",
				"output bound 50 KB / 2,000 lines per stream, tail kept, whole output saved under $TMPDIR",
				"sandboxed: writes only in the workspace, $TMPDIR and configured paths",
				"start/poll/cancel: at most 16 managed processes, lifetime 300 s by default"},
			"Run the test suite and summarise any failures."
	case "current_date":
		return nil, "What day of the week is it?"
	case "system_info":
		return []string{"topics os, cpu, memory, disk, processes, ports", "at most 15 rows and 4,096 bytes"},
			"How much free disk space is there?"
	case "inspect":
		return []string{"what = config, status, approvals or audit", "last ≤ 100", "at most 4 KiB"},
			"Which commands have I approved for this project?"
	case "notify":
		return []string{"title ≤ 64 and message ≤ 256 characters", "at most 5 a minute", "delivered only to a terminal (OSC 9)"},
			"Run the build and notify me when it is done."
	case "skill":
		return []string{"reads a skill's SKILL.md or one of its files", "no traversal, no symlinks, protected paths refused"},
			"Use the release skill to prepare a release."
	}
	return nil, ""
}
