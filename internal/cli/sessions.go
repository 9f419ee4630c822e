package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/transcript"
)

// cmdSessions lists saved sessions, newest first: this folder's, or with
// --all every folder's. Sessions without a message are left out (a run
// that ended before its first prompt); damaged ones stay, since what is
// wrong with them is worth seeing.
func cmdSessions(o Options, sys IO) error {
	if len(o.Args) > 1 {
		return usagef("wisp sessions takes no arguments, not %q (usage: wisp sessions [--all] [--session-dir DIR])", o.Args[1])
	}
	paths, err := config.ResolvePaths(sys.Getenv)
	if err != nil {
		return err
	}
	settings, _, err := config.LoadSettings(paths)
	if err != nil {
		return err
	}
	dir := host.SessionDir(o.Options, paths, settings, sys.Getenv)
	all, err := transcript.List(dir)
	if err != nil {
		return fmt.Errorf("list sessions in %s: %w", paths.Pretty(dir), err)
	}
	var list []transcript.Summary
	for _, s := range all {
		if (s.Messages > 0 || s.Damaged != "") && (o.All || s.StartedIn(sys.Workdir)) {
			list = append(list, s)
		}
	}
	switch {
	case len(list) == 0 && o.All:
		fmt.Fprintf(sys.Stderr, "no sessions in %s\n", transcript.Escape(paths.Pretty(dir)))
		return nil
	case len(list) == 0:
		fmt.Fprintf(sys.Stderr, "no sessions started in %s (wisp sessions --all lists every folder's)\n", transcript.Escape(paths.Pretty(sys.Workdir)))
		return nil
	}
	if err := sessionTable(sys.Stdout, list, o.All, paths); err != nil {
		return err
	}
	// What is wrong goes to stderr, one line per damaged file, so the
	// table stays one line per session; so does the hint, so that stdout
	// is the table alone.
	for _, s := range list {
		if s.Damaged != "" {
			fmt.Fprintf(sys.Stderr, "wisp: %s is damaged: %s: %s\n", s.ID, transcript.Escape(paths.Pretty(s.Path)), s.Damaged)
		}
	}
	resume := "wisp -r ID"
	if o.SessionDir != "" {
		// Absolute: the hint is followed from other folders.
		d := o.SessionDir
		if !filepath.IsAbs(d) {
			d = filepath.Join(sys.Workdir, d)
		}
		resume += " --session-dir " + transcript.Escape(host.ShellWord(d))
	}
	if o.All {
		fmt.Fprintf(sys.Stderr, "resume one with: %s (from its folder, or wisp -C FOLDER -r ID)\n", resume)
	} else {
		fmt.Fprintf(sys.Stderr, "resume one with: %s (an id prefix is enough)\n", resume)
	}
	return nil
}

// sessionTable writes one line per session, with a FOLDER column when
// the sessions come from more than one folder.
func sessionTable(w io.Writer, list []transcript.Summary, withFolder bool, paths config.Paths) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	folderHead := ""
	if withFolder {
		folderHead = "FOLDER\t"
	}
	fmt.Fprintf(tw, "ID\tSTARTED\tMESSAGES\tSTATE\t%sFIRST PROMPT\n", folderHead)
	for _, s := range list {
		folder := ""
		if withFolder {
			folder = "?"
			if s.Cwd != "" {
				// Whole, never cut: it is what wisp -C takes.
				folder = paths.Pretty(s.Cwd)
			}
			folder = transcript.Escape(folder) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s%s\n", s.ID, s.Time.Local().Format("2006-01-02 15:04"), s.Messages, state(s), folder, transcript.Escape(frontend.OneLine(s.FirstPrompt, 60)))
	}
	return tw.Flush()
}

// state is a session's STATE column: damaged (a malformed line; see
// stderr), open (another wisp has it, with its pid), forked (from the
// parent's id), or ok.
func state(s transcript.Summary) string {
	var parts []string
	if s.Damaged != "" {
		parts = append(parts, "damaged")
	}
	if pid := transcript.Holder(s.Path); pid > 0 {
		parts = append(parts, fmt.Sprintf("open (pid %d)", pid))
	}
	if s.Parent != "" {
		parts = append(parts, "fork of "+transcript.Escape(s.Parent))
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}
