package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/config"
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
	dir := first(o.SessionDir, sys.Getenv("WISP_SESSION_DIR"), settings.SessionDir, paths.SessionDir())
	list, err := session.List(dir)
	if err != nil {
		return fmt.Errorf("list sessions in %s: %w", paths.Pretty(dir), err)
	}
	if len(list) == 0 {
		fmt.Fprintf(sys.Stderr, "no sessions in %s\n", paths.Pretty(dir))
		return nil
	}
	tw := tabwriter.NewWriter(sys.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMESSAGES\tFIRST PROMPT")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", s.ID, s.Time.Local().Format("2006-01-02 15:04"), s.Messages, oneLine(s.FirstPrompt, 60))
	}
	return tw.Flush()
}
