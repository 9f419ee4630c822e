package host

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/project"
	"github.com/wisp-agent/wisp/internal/prompt"
	"github.com/wisp-agent/wisp/internal/skills"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
	"github.com/wisp-agent/wisp/internal/tool/builtin/bashtool"
	"github.com/wisp-agent/wisp/internal/tool/custom"
	"github.com/wisp-agent/wisp/internal/trust"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// project is what wisp knows about the folder it runs in: whether it is
// trusted, and what a trusted project adds (settings, context, skills).
type Project struct {
	Root     string
	Decision trust.Decision
	Settings config.Settings
	Context  project.Context
	Skills   skills.Catalog
	Warns    []string
}

// decideTrust settles whether the project's own files may be read. Only
// an interactive run asks; every other run treats an undecided project
// as untrusted. ask is nil when nobody can answer.
func decideTrust(ctx context.Context, cfg *Config, sys IO, ask trust.Asker) (string, trust.Decision, []string) {
	var warns []string
	root := trust.ProjectRoot(sys.Workdir)
	path, warn := trust.Locate(cfg.Paths.Home, sys.Getenv("WISP_TRUST_FILE"))
	if warn != "" {
		warns = append(warns, warn)
	}
	store, err := trust.Open(path)
	if err != nil {
		warns = append(warns, err.Error())
		store = nil
	}
	d, warn := trust.Decide(sys.Getenv("WISP_TRUST"), store, root)
	if warn != "" {
		warns = append(warns, warn)
	}
	d, err = trust.Settle(ctx, d, store, root, ask)
	if err != nil {
		warns = append(warns, err.Error())
	}
	return root, d, warns
}

// loadProject reads what a trusted project adds. Untrusted projects stay
// fully usable: wisp just ignores their files.
func LoadProject(ctx context.Context, cfg *Config, sys IO, ask trust.Asker) (*Project, error) {
	p := &Project{}
	p.Root, p.Decision, p.Warns = decideTrust(ctx, cfg, sys, ask)
	protect := workspace.NewProtection(cfg.Paths.UserHome, cfg.Settings.ProtectedPaths, cfg.Paths.Home)
	if p.Decision.Trusted {
		s, warns, err := config.LoadProject(cfg.Paths, p.Root)
		p.Warns = append(p.Warns, warns...)
		if err != nil {
			return nil, err
		}
		p.Settings = s
	}
	p.Context = project.LoadContext(project.ContextOptions{
		WispHome: cfg.Paths.Home, Root: p.Root, Cwd: sys.Workdir, Trusted: p.Decision.Trusted, Protected: protect.Match,
	})
	p.Warns = append(p.Warns, p.Context.Warnings...)
	cat, warns := skills.Discover(skills.Options{
		Project: p.Root, Trusted: p.Decision.Trusted, Home: cfg.Paths.UserHome, WispHome: cfg.Paths.Home, Protected: protect.Match,
	})
	p.Skills = cat
	p.Warns = append(p.Warns, warns...)
	return p, nil
}

// builtinNames are the names a custom tool may not take: the built-ins,
// their aliases, and tools wisp adds on its own.
func builtinNames(all *tool.Registry) []string {
	names := all.Names()
	for alias := range toolAliases {
		names = append(names, alias)
	}
	return append(names, "skill", "spawn_wisps")
}

// toolSet is every tool a session gets, before print mode narrows what is
// exposed: the built-ins the user did not disable, the skill tool when
// there are skills, then the user's custom tools.
type ToolSet struct {
	All     *tool.Registry
	Sources map[string]string
	Bash    *bashtool.Tool
	Warns   []string
}

func BuildTools(cfg *Config, p *Project, exts []Extension, stderr io.Writer, insp builtin.InspectSource) (*ToolSet, error) {
	ts := &ToolSet{Bash: bashtool.New(), Sources: map[string]string{}}
	all := tool.NewRegistry(allBuiltins(ts.Bash, stderr, insp)...)
	if p != nil && len(p.Skills.Skills) > 0 {
		all.Add(builtin.Skill(&p.Skills))
	}
	for _, n := range all.Names() {
		ts.Sources[n] = "built-in"
	}
	for _, name := range cfg.File.Tools.Disabled {
		canon := name
		if a, ok := toolAliases[name]; ok {
			canon = a
		}
		if _, ok := all.Get(canon); !ok {
			ts.Warns = append(ts.Warns, fmt.Sprintf("%s: tools.disabled: unknown tool %q ignored", cfg.Paths.Pretty(cfg.Paths.ConfigFile()), name))
			continue
		}
		all.Remove(canon)
	}
	for _, e := range exts {
		if err := all.Register(e.Tool, e.Meta); err != nil {
			return nil, fmt.Errorf("extension: %w", err)
		}
		ts.Sources[e.Tool.Spec().Name] = "extension"
	}
	customs, err := custom.Parse(cfg.File.Tools.Custom, builtinNames(all), custom.Options{Home: cfg.Paths.UserHome})
	if err != nil {
		// Every Parse error is about the user's definitions.
		return nil, &config.MalformedError{File: cfg.Paths.Pretty(cfg.Paths.ConfigFile()), What: err.Error()}
	}
	for _, c := range customs {
		all.Add(c)
		ts.Sources[c.Name()] = "custom"
	}
	ts.All = all
	return ts, nil
}

// AddMCP registers the tools of the user's MCP servers, after every
// other tool, so that exposure treats them as it does the rest.
func (ts *ToolSet) AddMCP(tools []tool.Tool) {
	for _, t := range tools {
		ts.All.Add(t)
		ts.Sources[t.Spec().Name] = "mcp"
	}
}

// systemPrompt builds the system prompt for the exposed tools, with the
// project's context files and skill catalogue when trusted.
func systemPrompt(sys IO, exposed *tool.Registry, p *Project) string {
	o := prompt.Options{Workdir: sys.Workdir, Now: time.Now(), Tools: exposed.Names(), Guidance: exposed.Guidance()}
	if p != nil {
		o.Context = p.Context.Render()
		if _, ok := exposed.Get("skill"); ok {
			o.Skills = p.Skills.Prompt()
		}
	}
	return prompt.Build(o)
}
