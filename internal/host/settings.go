package host

import (
	"context"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/host/hostconfig"
)

// Setting is one effective value and where it came from.
type Setting = hostconfig.Setting

// effectiveSettings lists every Setting wisp will use, with its source.
func effectiveSettings(o Options, cfg *Config, project config.Settings, projectFile string, getenv config.Getenv) []Setting {
	return hostconfig.Effective(flagsOf(o), cfg, project, projectFile, getenv)
}

// Settings lists the configuration a session started with o would use,
// each value with where it came from (a flag, the environment, the
// project, a user file, or the default), the project's trust first; and
// the warnings reading it gave.
func Settings(ctx context.Context, o Options, sys IO) ([]Setting, []string, error) {
	cfg, p, err := LoadQuietly(ctx, sys)
	if err != nil {
		return nil, nil, err
	}
	list := effectiveSettings(o, cfg, p.Settings, cfg.Paths.Pretty(config.ProjectFile(p.Root)), sys.Getenv)
	trustLine := Setting{Key: "project trust", Value: string(p.Decision.Status), Source: first(p.Decision.Source, "none") + " (" + p.Root + ")"}
	return append([]Setting{trustLine}, list...), append(cfg.Warns, p.Warns...), nil
}
