package host

import (
	"time"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/host/hostconfig"
	"github.com/wisp-agent/wisp/internal/provider"
)

// providerChoice is the resolved provider configuration.
type providerChoice = hostconfig.Choice

// chooseProvider resolves flags > environment > settings (see
// hostconfig.Choose).
func chooseProvider(o Options, s config.Settings, getenv config.Getenv, settingsFile string) (providerChoice, error) {
	return hostconfig.Choose(flagsOf(o), s, getenv, settingsFile)
}

// flagsOf is the part of o that configuration resolution reads.
func flagsOf(o Options) hostconfig.Flags {
	return hostconfig.Flags{Provider: o.Provider, Model: o.Model, BaseURL: o.BaseURL, SessionDir: o.SessionDir}
}

// openProvider builds the provider; close releases what it started (the
// fake provider's loopback server).
func openProvider(c providerChoice, getenv config.Getenv, idle time.Duration) (provider.Provider, func(), error) {
	return hostconfig.Open(c, getenv, idle)
}

func first(vals ...string) string { return hostconfig.First(vals...) }

// MergeProject lays a trusted project's settings over the user's.
func MergeProject(s, project config.Settings) config.Settings {
	return hostconfig.MergeProject(s, project)
}

// BaseURLVar is the variable that names a provider's base URL.
func BaseURLVar(provider string) string { return hostconfig.BaseURLVar(provider) }
