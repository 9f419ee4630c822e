package host

import (
	"context"

	"github.com/wisp-agent/wisp/internal/config"
)

// Setting is one effective value and where it came from.
type Setting = config.Setting

// Settings lists the configuration a session started with o would use,
// each value with where it came from (a flag, the environment, the
// project, a user file, or the default), the project's trust first; and
// the warnings reading it gave.
func Settings(ctx context.Context, o Options, sys IO) ([]Setting, []string, error) {
	cfg, p, err := LoadQuietly(ctx, sys)
	if err != nil {
		return nil, nil, err
	}
	// A provider that is not configured is shown as such; the rest stands.
	r, _ := config.Resolve(flagsOf(o), sys.Getenv, cfg, p.Settings, cfg.Paths.Pretty(config.ProjectFile(p.Root)))
	trustLine := Setting{Key: "project trust", Value: string(p.Decision.Status), Source: first(p.Decision.Source, "none") + " (" + p.Root + ")"}
	return append([]Setting{trustLine}, r.Settings()...), append(cfg.Warns, p.Warns...), nil
}
