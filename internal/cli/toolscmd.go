package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/host"

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
	cfg, p, err := host.LoadQuietly(ctx, sys)
	if err != nil {
		return err
	}
	ts, err := host.BuildTools(cfg, p, sys.Extensions, io.Discard, nil)
	if err != nil {
		return err
	}
	defer ts.Bash.Close()
	ts.AddWispsCatalogue(cfg)
	for _, w := range append(cfg.Warns, ts.Warns...) {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	infos := tool.Catalog(ts.All, func(n string) string { return ts.Sources[n] })
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
	cfg, err := host.LoadConfig(sys.Getenv)
	if err != nil {
		return err
	}
	path, warn := trust.Locate(cfg.Paths.Home, sys.Getenv("WISP_TRUST_FILE"))
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
		host.AuditConfigChange(cfg, sys, audit.ConfigChange{File: cfg.Paths.Pretty(path), Key: root, Old: string(before), New: string(after)})
	}
	return err
}

// cmdSkills lists the skills a session in this folder gets.
func cmdSkills(ctx context.Context, args []string, sys IO) error {
	if len(args) > 0 {
		return usagef("wisp skills takes no arguments")
	}
	_, p, err := host.LoadQuietly(ctx, sys)
	if err != nil {
		return err
	}
	for _, w := range p.Warns {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	if len(p.Skills.Skills) == 0 {
		fmt.Fprintln(sys.Stderr, "no skills: add folders with a SKILL.md under ~/.wisp/skills, ~/.agents/skills, or (in a trusted project) .wisp/skills or .agents/skills")
		return nil
	}
	return skills.List(&p.Skills, sys.Stdout)
}

// cmdConfig prints the effective configuration and where each value
// came from.
func cmdConfig(ctx context.Context, o Options, sys IO) error {
	if len(o.Args) > 1 {
		return usagef("wisp config takes no arguments, not %q (usage: wisp config [--provider NAME] [--model NAME] [--base-url URL])", o.Args[1])
	}
	list, warns, err := host.Settings(ctx, o.Options, sys)
	if err != nil {
		return err
	}
	for _, w := range warns {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	return printSettings(sys, list)
}
