package audit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/segmentio/encoding/json"
	"github.com/wisp-agent/wisp/internal/config"
)

// FormatText renders a line for people: local time, the session id's
// first 8 characters ("-" for none), the kind, and a summary of the
// details, e.g.
//
//	09:15:02 3f2a1b0c command.outcome exit=0 1.2s sandboxed "go test ./..."
func FormatText(l Line) string {
	session := l.Session
	switch {
	case session == "":
		session = "-"
	default:
		session = cutRunes(session, 8)
	}
	var summary string
	if d, err := l.Decode(); err == nil {
		summary = d.summary()
	} else {
		// A kind from a newer wisp, or details that do not fit: show them.
		var b bytes.Buffer
		if json.Compact(&b, l.Details) == nil {
			summary = shorten(b.String())
		}
	}
	return fmt.Sprintf("%s %-8s %s %s", l.Time.Local().Format("15:04:05"), session, l.Kind, summary)
}

func usagef(format string, a ...any) error {
	return &config.UsageError{Msg: fmt.Sprintf(format, a...)}
}

// LogsUsage is the help text of `wisp logs`.
const LogsUsage = `Usage: wisp logs [--session ID] [--kind KIND]... [--tool NAME] [--last N] [--json] [--follow]

Shows the audit log (~/.wisp/logs/audit.jsonl), oldest first.

  --session ID   lines of the session with this id (or id prefix)
  --kind KIND    lines of this kind; repeat for more (session.start, tool.call, command.outcome, ...)
  --tool NAME    lines about calls of this tool: the call, its verdict, approval and outcome
  --last N       only the last N lines selected
  --json         the raw JSON lines instead of one summary line each
  --follow, -f   keep printing lines as they are written (Ctrl-C stops)
`

// Logs implements `wisp logs`: it parses args (the words after "logs"),
// then prints the selected lines of the log in dir (Dir(wispHome)) to
// stdout. Bad flags give a *config.UsageError. A missing log is not an error: a
// note goes to stderr and Logs returns nil (with --follow it waits for
// the log). With --follow it runs until ctx ends and returns ctx's error.
func Logs(ctx context.Context, stdout, stderr io.Writer, dir string, args []string) error {
	o, err := parseLogsArgs(args)
	if err != nil {
		return err
	}
	if o.help {
		_, err := io.WriteString(stdout, LogsUsage)
		return err
	}
	w := bufio.NewWriter(stdout)
	// A failed write shows up in the Flush after it.
	show := func(l Line) {
		if o.json {
			_, _ = w.Write(l.Raw)
		} else {
			_, _ = w.WriteString(FormatText(l))
		}
		_ = w.WriteByte('\n')
	}
	path := filepath.Join(dir, FileName)
	// One damaged line must not hide the rest of the log.
	o.filter.Malformed = func(fe *FormatError) {
		fmt.Fprintf(stderr, "wisp: warning: skipped %s\n", visible(strings.TrimPrefix(fe.Error(), "audit: ")))
	}
	if o.follow {
		if files, err := logFiles(dir); err == nil && len(files) == 0 {
			fmt.Fprintf(stderr, "wisp: no audit log yet (%s); waiting for it\n", path)
		}
		var werr error
		err := Follow(ctx, dir, o.filter, func(l Line) {
			if werr == nil {
				show(l)
				werr = w.Flush()
			}
		})
		if werr != nil {
			return fmt.Errorf("write audit lines: %w", werr)
		}
		return err
	}
	lines, err := Read(dir, o.filter)
	if errors.Is(err, ErrNoLog) {
		fmt.Fprintf(stderr, "wisp: no audit log yet (%s); wisp writes it as soon as a session runs\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		fmt.Fprintln(stderr, "wisp: no audit lines match")
		return nil
	}
	for _, l := range lines {
		show(l)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write audit lines: %w", err)
	}
	return nil
}

type logsArgs struct {
	filter       Filter
	json, follow bool
	help         bool
}

// parseLogsArgs reads the flags of `wisp logs`. Flags take their value
// as the next word or after "=", as the rest of wisp's flags do.
func parseLogsArgs(args []string) (logsArgs, error) {
	var o logsArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usagef("%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		noValue := func() error {
			if hasVal {
				return usagef("%s takes no value", name)
			}
			return nil
		}
		var err error
		switch name {
		case "--session":
			o.filter.Session, err = value()
			if err == nil && o.filter.Session == "" {
				err = usagef("--session needs a session id or a prefix of one")
			}
		case "--kind":
			var k string
			if k, err = value(); err == nil {
				err = addKinds(&o.filter, k)
			}
		case "--tool":
			o.filter.Tool, err = value()
			if err == nil && o.filter.Tool == "" {
				err = usagef("--tool needs a tool name")
			}
		case "--last", "-n":
			var v string
			if v, err = value(); err == nil {
				n, perr := strconv.Atoi(v)
				if perr != nil || n < 1 {
					err = usagef("--last needs a positive number, not %q", v)
				}
				o.filter.Last = n
			}
		case "--json":
			o.json, err = true, noValue()
		case "--follow", "-f":
			o.follow, err = true, noValue()
		case "--help", "-h":
			o.help, err = true, noValue()
		default:
			if strings.HasPrefix(a, "-") {
				err = usagef("unknown flag %s for wisp logs (see wisp logs --help)", name)
			} else {
				err = usagef("wisp logs takes no arguments, got %q (see wisp logs --help)", a)
			}
		}
		if err != nil {
			return logsArgs{}, err
		}
	}
	return o, nil
}

// addKinds adds a --kind value, which may list kinds separated by commas.
func addKinds(f *Filter, v string) error {
	known := Kinds()
	for k := range strings.SplitSeq(v, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(known, k) {
			return usagef("unknown audit kind %q (kinds: %s)", k, strings.Join(known, ", "))
		}
		if !slices.Contains(f.Kinds, k) {
			f.Kinds = append(f.Kinds, k)
		}
	}
	return nil
}

// visible shows control characters of text read from a damaged file as
// escapes, so that a warning about it cannot act on the terminal.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
