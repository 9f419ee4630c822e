package trust

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/wisp-agent/wisp/internal/config"
)

const usage = "usage: wisp trust status|allow|revoke|forget [path]"

// Command runs `wisp trust` with the arguments after "trust". The path
// (default: cwd) stands for its project, the git root above it, which is
// what wisp decides about when it runs there. env is WISP_TRUST as read
// from the real process environment.
func Command(args []string, stdout, stderr io.Writer, store *Store, env, cwd string) error {
	if len(args) == 0 {
		return &config.UsageError{Msg: usage}
	}
	verb := args[0]
	switch verb {
	case "-h", "--help", "help":
		_, err := fmt.Fprintln(stdout, usage+helpText)
		return err
	case "status", "allow", "revoke", "forget":
	default:
		return &config.UsageError{Msg: fmt.Sprintf("wisp trust: unknown command %q (%s)", verb, usage)}
	}
	if len(args) > 2 {
		return &config.UsageError{Msg: fmt.Sprintf("wisp trust %s: too many arguments (%s)", verb, usage)}
	}
	target := cwd
	if len(args) == 2 {
		target = args[1]
		if target == "" {
			return &config.UsageError{Msg: fmt.Sprintf("wisp trust %s: empty path (%s)", verb, usage)}
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cwd, target)
		}
	}
	project := ProjectRoot(target)
	switch verb {
	case "status":
		return status(stdout, stderr, store, env, project)
	case "allow", "revoke":
		trusted := verb == "allow"
		if err := store.Set(project, trusted); err != nil {
			return err
		}
		word := Untrusted
		if trusted {
			word = Trusted
		}
		if _, err := fmt.Fprintf(stdout, "%s %s\n", word, project); err != nil {
			return err
		}
		if overrides := (env == "1" && !trusted) || (env == "0" && trusted); overrides {
			_, err := fmt.Fprintf(stderr, "note: WISP_TRUST=%s in this environment overrides the stored decision for this process\n", env)
			return err
		}
		return nil
	default: // forget
		found, err := store.forget(project)
		if err != nil {
			return err
		}
		if !found {
			_, err = fmt.Fprintf(stdout, "no decision stored for %s\n", project)
			return err
		}
		_, err = fmt.Fprintf(stdout, "forgot %s\n", project)
		return err
	}
}

const helpText = `

  status  print trusted, untrusted or undecided, and where that comes from
  allow   persistently trust the project
  revoke  persistently mark the project untrusted
  forget  remove the decision so that wisp asks again

The path (default: the current folder) stands for its project: the
nearest folder above it holding .git, else the path itself.`

// status prints the state word on its own line, then its source and the
// project it is about. A store that cannot be read is an error here, not
// a warning: the user asked about it.
func status(stdout, stderr io.Writer, store *Store, env, project string) error {
	var source string
	d, warn := Decide(env, store, project)
	switch d.Source {
	case SourceEnv:
		source = fmt.Sprintf("source: env (WISP_TRUST=%s, this process only", env)
		if st, err := store.Status(project); err == nil && st != Undecided {
			source += "; stored: " + string(st)
		}
		source += ")"
	case SourceStore:
		if _, err := store.Status(project); err != nil {
			return err
		}
		source = fmt.Sprintf("source: store (%s)", store.Path())
	default:
		source = "source: none (interactive runs ask; other runs treat the project as untrusted)"
	}
	if warn != "" {
		if _, err := fmt.Fprintf(stderr, "warning: %s\n", warn); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(stdout, "%s\n%s\nproject: %s\n", d.Status, source, project)
	return err
}
