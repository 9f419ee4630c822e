package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/frontend"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/skills"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/trust"
)

// cmdTools lists the tools a session gets, custom ones last: aligned
// columns on a terminal, `name<TAB>description` when piped, the full
// catalogue with --json, limits and examples with --markdown.
func cmdTools(ctx context.Context, args []string, sys IO) error {
	format := "text"
	for _, a := range args {
		switch a {
		case "--json":
			format = "json"
		case "--markdown":
			format = "markdown"
		default:
			return usagef("wisp tools: unknown argument %s (usage: wisp tools [--json|--markdown])", a)
		}
	}
	cfg, p, err := loadQuietly(ctx, sys)
	if err != nil {
		return err
	}
	ts, err := buildTools(cfg, p, sys.Extensions, io.Discard, nil)
	if err != nil {
		return err
	}
	defer ts.bash.Close()
	for _, w := range append(cfg.warns, ts.warns...) {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	infos := tool.Catalog(ts.all, func(n string) string { return ts.sources[n] }, ts.describe)
	switch format {
	case "json":
		enc := json.NewEncoder(sys.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(infos)
	case "markdown":
		_, err := io.WriteString(sys.Stdout, tool.Markdown(infos))
		return err
	}
	if !sys.StdoutTTY {
		for _, in := range infos {
			fmt.Fprintf(sys.Stdout, "%s\t%s\n", in.Name, frontend.OneLine(in.Description, 1000))
		}
		return nil
	}
	tw := tabwriter.NewWriter(sys.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tCLASS\tSOURCE\tDESCRIPTION")
	for _, in := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", in.Name, in.Class, in.Source, frontend.OneLine(in.Description, 80))
	}
	return tw.Flush()
}

// cmdTrust records whether a project's files may be read.
func cmdTrust(args []string, sys IO) error {
	cfg, err := loadConfig(sys.Getenv)
	if err != nil {
		return err
	}
	path, warn := trust.Locate(cfg.paths.Home, sys.Getenv("WISP_TRUST_FILE"))
	if warn != "" {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", warn)
	}
	store, err := trust.Open(path)
	if err != nil {
		return err
	}
	target := sys.Workdir
	if len(args) > 1 {
		target = args[1]
		if !filepath.IsAbs(target) {
			target = filepath.Join(sys.Workdir, target)
		}
	}
	root := trust.ProjectRoot(target)
	before, _ := store.Status(root)
	err = trust.Command(args, sys.Stdout, sys.Stderr, store, sys.Getenv("WISP_TRUST"), sys.Workdir)
	if after, serr := store.Status(root); err == nil && serr == nil && after != before {
		auditConfigChange(cfg, sys, audit.ConfigChange{File: cfg.paths.Pretty(path), Key: root, Old: string(before), New: string(after)})
	}
	var ue *trust.UsageError
	if errors.As(err, &ue) {
		return usagef("%s", ue.Msg)
	}
	return err
}

// cmdSkills lists the skills a session in this folder gets.
func cmdSkills(ctx context.Context, args []string, sys IO) error {
	if len(args) > 0 {
		return usagef("wisp skills takes no arguments")
	}
	_, p, err := loadQuietly(ctx, sys)
	if err != nil {
		return err
	}
	for _, w := range p.warns {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	if len(p.skills.Skills) == 0 {
		fmt.Fprintln(sys.Stderr, "no skills: add folders with a SKILL.md under ~/.wisp/skills, ~/.agents/skills, or (in a trusted project) .wisp/skills or .agents/skills")
		return nil
	}
	return skills.List(&p.skills, sys.Stdout)
}

// cmdConfig prints the effective configuration and where each value
// came from.
func cmdConfig(ctx context.Context, o Options, sys IO) error {
	if len(o.Args) > 1 {
		return usagef("wisp config takes no arguments, not %q (usage: wisp config [--provider NAME] [--model NAME] [--base-url URL])", o.Args[1])
	}
	cfg, p, err := loadQuietly(ctx, sys)
	if err != nil {
		return err
	}
	for _, w := range append(cfg.warns, p.warns...) {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	list := effectiveSettings(o, cfg, p.settings, cfg.paths.Pretty(config.ProjectFile(p.root)), sys.Getenv)
	trustLine := setting{key: "project trust", value: string(p.decision.Status), source: first(p.decision.Source, "none") + " (" + p.root + ")"}
	return printSettings(sys, append([]setting{trustLine}, list...))
}

// auditConfigChange records a change a wisp command made to one of the
// user's files.
func auditConfigChange(cfg *loaded, sys IO, d audit.ConfigChange) {
	log, err := audit.Open(audit.Dir(cfg.paths.Home), audit.Options{Version: Version})
	if err != nil {
		fmt.Fprintf(sys.Stderr, "wisp: warning: audit log: %v\n", err)
		return
	}
	defer log.Close()
	if err := log.Write(audit.Entry{Details: d}); err != nil {
		fmt.Fprintf(sys.Stderr, "wisp: warning: audit log: %v\n", err)
	}
}

// loadQuietly reads the configuration and the project for a command that
// starts no session: nobody is asked about trust, so an undecided project
// counts as untrusted.
func loadQuietly(ctx context.Context, sys IO) (*loaded, *project, error) {
	cfg, err := loadConfig(sys.Getenv)
	if err != nil {
		return nil, nil, err
	}
	p, err := loadProject(ctx, cfg, sys, nil, io.Discard)
	if err != nil {
		return nil, nil, err
	}
	return cfg, p, nil
}
