package approval

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/config"
)

// CommandUsage is the help text of `wisp approvals`.
const CommandUsage = `Usage:
  wisp approvals list          show remembered approvals
  wisp approvals revoke ID     forget one approval (IDs are in the list)
  wisp approvals clear         forget every remembered approval

Approvals remembered for a project or always last 30 days and are kept in
approvals.json in wisp's home folder. A "no", a "once" and a dangerous
command are never remembered.
`

// Command runs `wisp approvals ARGS...` against s: list, revoke ID, clear,
// or help; stderr gets warnings. Answering a pending request is deliberately not a command here:
// approvals are given only at the terminal that asked. A bad command line
// is a *config.UsageError.
func Command(args []string, stdout, stderr io.Writer, s *Store) error {
	if len(args) == 0 {
		return &config.UsageError{Msg: "wisp approvals needs a command: list, revoke ID or clear"}
	}
	verb, rest := args[0], args[1:]
	switch verb {
	case "help", "-h", "--help":
		_, err := io.WriteString(stdout, CommandUsage)
		return err
	case "list", "revoke", "clear":
	default:
		return &config.UsageError{Msg: fmt.Sprintf("unknown approvals command %q: use list, revoke ID or clear", verb)}
	}
	switch {
	case verb == "revoke" && len(rest) != 1:
		return &config.UsageError{Msg: "usage: wisp approvals revoke ID (IDs are in wisp approvals list)"}
	case verb != "revoke" && len(rest) != 0:
		return &config.UsageError{Msg: fmt.Sprintf("wisp approvals %s takes no arguments", verb)}
	}
	if s == nil {
		return errors.New("approvals: no store")
	}
	switch verb {
	case "list":
		return listCommand(stdout, s)
	case "revoke":
		if err := s.Revoke(rest[0]); err != nil {
			return err
		}
		_, err := fmt.Fprintf(stdout, "Revoked %s.\n", rest[0])
		return err
	default:
		entries, lerr := s.List()
		if err := s.Clear(); err != nil {
			return err
		}
		if lerr != nil {
			fmt.Fprintf(stderr, "wisp: replaced an approvals file that could not be used: %v\n", lerr)
		}
		_, err := fmt.Fprintf(stdout, "Cleared %s.\n", plural(len(entries), "remembered approval"))
		return err
	}
}

func listCommand(stdout io.Writer, s *Store) error {
	entries, lerr := s.List()
	if lerr != nil {
		lerr = fmt.Errorf("%w (its approvals are ignored until it is fixed or cleared with wisp approvals clear)", lerr)
	}
	if len(entries) == 0 {
		if lerr != nil {
			return lerr
		}
		_, err := io.WriteString(stdout, "No remembered approvals.\n")
		return err
	}
	// Show what is known even when the file's entries are missing.
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tPATTERN\tUP TO\tPROJECT\tEXPIRES")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(e.ID), cell(string(e.Scope)), cell(e.Pattern), e.Level, cell(projectCell(e)), expiresCell(e))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("list approvals: %w", err)
	}
	return lerr
}

func projectCell(e Entry) string {
	switch e.Scope {
	case ScopeAlways:
		return "(any)"
	case ScopeSession:
		return "(this process)"
	}
	return e.Project
}

func expiresCell(e Entry) string {
	if e.Scope == ScopeSession {
		return "end of session"
	}
	return e.Expires.Local().Format("2006-01-02 15:04")
}

// cell quotes text a terminal would not show as written.
func cell(s string) string {
	if s == "" {
		return `""`
	}
	if Printable(s) == s && !containsSpaceOnly(s) {
		return s
	}
	return strconv.Quote(s)
}

func containsSpaceOnly(s string) bool {
	for _, r := range s {
		if r != ' ' {
			return false
		}
	}
	return true
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
