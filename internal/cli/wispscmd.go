package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/wisps"
	"github.com/wisp-agent/wisp/internal/wisps/execlog"
)

// wispsHelp is `wisp help wisps`.
const wispsHelp = `Usage: wisp wisps log [--json] [--failed] [--session ID] [--since DURATION] [--last N]
       wisp wisps analyze [--json]

wisp wisps log prints the wisps' execution log (~/.wisp/wisps/executions.jsonl):
one line per wisp run, newest last.

  --json           the records as JSON Lines
  --failed         only the wisps that failed
  --session ID     only one session's wisps
  --since DURATION only the last DURATION (24h, 90m)
  --last N         only the last N records

wisp wisps analyze sends the last 14 days of records, grouped by
description, to the model once, and prints recurring failure patterns,
suggested skill annotations and promotion candidates.

  --json           the analysis as JSON
`

const wispsUsage = "usage: wisp wisps log [--json] [--failed] [--session ID] [--since DURATION] [--last N] | wisp wisps analyze [--json]"

// cmdWisps reads the wisp execution log.
func cmdWisps(ctx context.Context, args []string, sys IO) error {
	if len(args) == 0 {
		return usagef("wisp wisps: which? (%s)", wispsUsage)
	}
	switch args[0] {
	case "log":
		return cmdWispsLog(args[1:], sys)
	case "analyze":
		return cmdWispsAnalyze(ctx, args[1:], sys)
	}
	return usagef("wisp wisps: unknown command %s (%s)", args[0], wispsUsage)
}

type logFlags struct {
	json, failed bool
	session      string
	since        time.Duration
	last         int
}

func parseLogFlags(args []string) (logFlags, error) {
	var f logFlags
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", usagef("wisp wisps log: %s needs a value (%s)", a, wispsUsage)
			}
			i++
			return args[i], nil
		}
		switch a {
		case "--json":
			f.json = true
		case "--failed":
			f.failed = true
		case "--session", "--since", "--last":
			v, err := value()
			if err != nil {
				return f, err
			}
			if err := f.set(a, v); err != nil {
				return f, err
			}
		default:
			return f, usagef("wisp wisps log: unknown argument %s (%s)", a, wispsUsage)
		}
	}
	return f, nil
}

func (f *logFlags) set(name, v string) error {
	switch name {
	case "--session":
		f.session = v
	case "--since":
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return usagef("wisp wisps log: --since takes a duration such as 24h, not %q", v)
		}
		f.since = d
	case "--last":
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return usagef("wisp wisps log: --last takes a positive whole number, not %q", v)
		}
		f.last = n
	}
	return nil
}

// cmdWispsLog prints the execution log, oldest first: a line per wisp,
// or the records as JSON Lines with --json.
func cmdWispsLog(args []string, sys IO) error {
	f, err := parseLogFlags(args)
	if err != nil {
		return err
	}
	paths, err := config.ResolvePaths(sys.Getenv)
	if err != nil {
		return err
	}
	recs, err := (&execlog.Log{Path: execlog.File(paths.Home)}).Read()
	if err != nil {
		return err
	}
	q := execlog.Query{Session: f.session, FailedOnly: f.failed}
	if f.since > 0 {
		q.Since = time.Now().Add(-f.since)
	}
	var keep []wisps.Record
	for _, r := range recs {
		if q.Match(r) {
			keep = append(keep, r)
		}
	}
	if f.last > 0 && len(keep) > f.last {
		keep = keep[len(keep)-f.last:]
	}
	if f.json {
		enc := json.NewEncoder(sys.Stdout)
		enc.SetEscapeHTML(false)
		for _, r := range keep {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	for _, r := range keep {
		fmt.Fprintln(sys.Stdout, logLine(r))
	}
	return nil
}

func logLine(r wisps.Record) string {
	status := "ok"
	if !r.Success {
		status = "failed"
	}
	line := fmt.Sprintf("%s  %s  %-6s %6dms  %q  def %s  shape %s", r.StartedAt.Format(time.RFC3339), r.WispID, status, r.DurationMS, r.Description, r.DefinitionHash, r.ShapeHash)
	if r.RetryOf != "" {
		line += "  retry of " + r.RetryOf
	}
	if !r.Success {
		line += fmt.Sprintf("\n    step %s [%s]: %s", r.FailedStep, r.FailureCategory, firstLine(r.ErrorMessage))
	}
	for _, it := range r.IteratedSteps {
		line += fmt.Sprintf("\n    for_each %s: %d items, %d succeeded, %d failed, %d skipped", it.StepID, it.Count, it.Succeeded, it.Failed, it.Skipped)
	}
	return line
}

// cmdWispsAnalyze runs the failure-analysis pass with the configured
// model and prints its findings.
func cmdWispsAnalyze(ctx context.Context, args []string, sys IO) error {
	asJSON := false
	for _, a := range args {
		if a != "--json" {
			return usagef("wisp wisps analyze: unknown argument %s (%s)", a, wispsUsage)
		}
		asJSON = true
	}
	s, err := host.New(ctx, host.Options{MaxToolIters: -1, NoSession: true}, sys, host.Frontend{Mode: "print"})
	if err != nil {
		return err
	}
	defer s.Close()
	a, n, err := s.AnalyzeWisps(ctx, time.Now())
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(sys.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	}
	if n == 0 {
		fmt.Fprintln(sys.Stdout, "No wisp executions in the last 14 days.")
		return nil
	}
	fmt.Fprintf(sys.Stdout, "%d wisp executions of the last 14 days analysed.\n\n%s", n, strings.TrimLeft(a.Text(), "\n"))
	return nil
}
