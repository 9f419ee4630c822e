package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/session"
)

// cmdSessions lists saved sessions, newest first.
func cmdSessions(o Options, sys IO) error {
	paths, err := config.ResolvePaths(sys.Getenv)
	if err != nil {
		return err
	}
	settings, _, err := config.LoadSettings(paths)
	if err != nil {
		return err
	}
	dir := first(o.SessionDir, sys.Getenv("WISP_SESSION_DIR"), expandHome(settings.SessionDir, paths.UserHome), paths.SessionDir())
	list, err := session.List(dir)
	if err != nil {
		return fmt.Errorf("list sessions in %s: %w", paths.Pretty(dir), err)
	}
	if len(list) == 0 {
		fmt.Fprintf(sys.Stderr, "no sessions in %s\n", paths.Pretty(dir))
		return nil
	}
	tw := tabwriter.NewWriter(sys.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMESSAGES\tSTATE\tFIRST PROMPT")
	var damaged []session.Summary
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Time.Local().Format("2006-01-02 15:04"), s.Messages, state(s), session.Escape(frontend.OneLine(s.FirstPrompt, 60)))
		if s.Damaged != "" {
			damaged = append(damaged, s)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// What is wrong goes to stderr, one line per damaged file, so the
	// table stays one line per session.
	for _, s := range damaged {
		fmt.Fprintf(sys.Stderr, "wisp: %s is damaged: %s: %s\n", s.ID, session.Escape(paths.Pretty(s.Path)), s.Damaged)
	}
	return nil
}

// state is a session's STATE column: damaged (a malformed line; see
// stderr), open (another wisp has it, with its pid), forked (from the
// parent's id), or ok.
func state(s session.Summary) string {
	var parts []string
	if s.Damaged != "" {
		parts = append(parts, "damaged")
	}
	if pid := session.Holder(s.Path); pid > 0 {
		parts = append(parts, fmt.Sprintf("open (pid %d)", pid))
	}
	if s.Parent != "" {
		parts = append(parts, "fork of "+session.Escape(s.Parent))
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}
