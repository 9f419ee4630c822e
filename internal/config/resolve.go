package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/provider"
)

// Setting is one effective value and where it came from.
type Setting struct{ Key, Value, Source string }

// Resolved is the configuration a session runs with: each value decided
// once, by precedence (flag > environment > trusted project > user file >
// default), and the list of them with where each came from. The session,
// `wisp config` and the inspect tool all read it; none of them works out
// precedence again.
type Resolved struct {
	// Provider is the provider, model, base URL and key, with their sources.
	Provider Choice
	// SessionDir is where transcripts live.
	SessionDir string
	// MaxTokens bounds one answer; ContextWindow is the model's window
	// (0: unknown, so compacted only when the provider refuses a request).
	MaxTokens, ContextWindow int
	// Idle is how long a provider may stay silent before a retry.
	Idle time.Duration
	// rows lists the values above with their sources, and the gate's
	// settings; formatted only when someone asks (most runs never do).
	rows func() []Setting
}

// Settings lists every effective value with its source, in the order
// `wisp config` shows them.
func (r Resolved) Settings() []Setting {
	if r.rows == nil {
		return nil
	}
	return r.rows()
}

// Resolve decides the configuration from the command line's flags, the
// environment, the user's files and a trusted project's settings (zero
// when the project is not trusted; projectFile names its file). The
// error is the provider's (none configured, a bad model or base URL);
// Settings lists the rest even then, so that `wisp config` can show it.
func Resolve(f Flags, getenv Getenv, user *Loaded, project Settings, projectFile string) (Resolved, error) {
	settingsFile := user.Paths.Pretty(user.Paths.SettingsFile())
	s := Overlay(user.Settings, project)
	choice, err := Choose(f, s, getenv, settingsFile)
	r := Resolved{Provider: choice}

	dir := SessionDirOf(f, getenv, user.Paths, user.Settings)
	r.SessionDir = dir.Value
	if dir.Source == settingsFile+": session_dir" {
		dir.Source = settingsFile
	}
	var tokensFrom, windowFrom string
	r.MaxTokens, tokensFrom = firstSet(provider.MaxTokensFor(choice.Model),
		sourced{project.MaxTokens, projectFile}, sourced{user.Settings.MaxTokens, settingsFile})
	r.ContextWindow, windowFrom = firstSet(provider.ContextWindowFor(choice.Model),
		sourced{project.ContextWindow, projectFile}, sourced{user.Settings.ContextWindow, settingsFile})
	r.Idle = DefaultIdle
	idleFrom := "default"
	if n := s.IdleTimeoutSeconds; n > 0 {
		r.Idle, idleFrom = time.Duration(n)*time.Second, settingsFile
	}

	r.rows = func() []Setting {
		limit := Setting{"max_response_bytes", provider.FormatBytes(provider.DefaultMaxResponseBytes), "default"}
		if s.MaxResponseBytes != 0 {
			limit.Value, limit.Source = provider.FormatBytes(s.MaxResponseBytes), settingsFile
		}
		window := fmt.Sprint(r.ContextWindow)
		if r.ContextWindow <= 0 {
			window = "unknown (compacted only when the provider refuses a request as too long)"
		}
		rows := append(providerSettings(choice, err),
			Setting{"session_dir", user.Paths.Pretty(r.SessionDir), dir.Source},
			Setting{"max_tokens", fmt.Sprint(r.MaxTokens), tokensFrom},
			limit,
			Setting{"idle_timeout_seconds", fmt.Sprint(r.Idle.Seconds()), idleFrom},
			Setting{"context_window", window, windowFrom})
		return append(rows, gateSettings(user, settingsFile)...)
	}
	return r, err
}

// SessionDirOf is where the transcripts of sessions live, and why:
// --session-dir, WISP_SESSION_DIR, settings.json's session_dir (a leading
// ~ is the home folder), or the wisp home's sessions folder. A project
// cannot move it.
func SessionDirOf(f Flags, getenv Getenv, paths Paths, user Settings) Setting {
	return pick("session_dir", Setting{Value: paths.SessionDir(), Source: "default"},
		Setting{Value: f.SessionDir, Source: "flag --session-dir"},
		Setting{Value: getenv("WISP_SESSION_DIR"), Source: "env WISP_SESSION_DIR"},
		Setting{Value: ExpandHome(user.SessionDir, paths.UserHome), Source: paths.Pretty(paths.SettingsFile()) + ": session_dir"})
}

// ExpandHome replaces a leading ~ (alone or before a slash) with home.
func ExpandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}

// gateSettings are the command gate's settings from config.json.
func gateSettings(user *Loaded, settingsFile string) []Setting {
	configFile := user.Paths.Pretty(user.Paths.ConfigFile())
	f, s := user.File, user.Settings
	fromFile := func(set bool) string {
		if set {
			return configFile
		}
		return "default"
	}
	bytes, lines := f.OutputBound()
	out := []Setting{
		{"approval.threshold", f.Threshold(), fromFile(f.Approval.Threshold != "")},
		{"approval.timeoutSeconds", fmt.Sprint(f.ApprovalTimeout().Seconds()), fromFile(f.Approval.TimeoutSeconds != 0)},
		{"commandTimeoutSeconds", fmt.Sprint(f.CommandTimeout().Seconds()), fromFile(f.CommandTimeoutSeconds != 0)},
		{"outputLimit", fmt.Sprintf("%d bytes, %d lines", bytes, lines), fromFile(f.OutputLimit.Bytes != 0 || f.OutputLimit.Lines != 0)},
		{"sandbox.enabled", fmt.Sprint(f.SandboxEnabled()), fromFile(f.Sandbox.Enabled != nil)},
		{"sandbox.allowNetwork", fmt.Sprint(f.AllowNetwork()), fromFile(f.Sandbox.AllowNetwork != nil)},
		{"sandbox.writablePaths", fmt.Sprint(f.Sandbox.WritablePaths), fromFile(len(f.Sandbox.WritablePaths) > 0)},
		{"commandPolicy.deny", fmt.Sprintf("%d defaults + %d yours", len(user.Policy.Deny())-len(f.CommandPolicy.Deny), len(f.CommandPolicy.Deny)), fromFile(len(f.CommandPolicy.Deny) > 0)},
		{"commandPolicy.allow", fmt.Sprint(f.CommandPolicy.Allow), fromFile(len(f.CommandPolicy.Allow) > 0)},
		{"tools.disabled", fmt.Sprint(f.Tools.Disabled), fromFile(len(f.Tools.Disabled) > 0)},
		{"protected_paths", fmt.Sprintf("built-in + %v", s.ProtectedPaths), "default"},
	}
	if len(s.ProtectedPaths) > 0 {
		out[len(out)-1].Source = settingsFile
	}
	return out
}

// sourced is a number a file may set (0: not set) and the file.
type sourced struct {
	n    int
	from string
}

// firstSet is the first number set, or the default, and where it came from.
func firstSet(def int, cands ...sourced) (int, string) {
	for _, c := range cands {
		if c.n != 0 {
			return c.n, c.from
		}
	}
	return def, "default"
}

// pick returns the first non-empty candidate with its source, or the
// fallback.
func pick(key string, fallback Setting, cands ...Setting) Setting {
	for _, c := range cands {
		if c.Value != "" {
			c.Key = key
			return c
		}
	}
	fallback.Key = key
	return fallback
}

// providerSettings shows the provider, model, base URL and key a
// session uses, as Choose resolved them (never the key itself).
func providerSettings(c Choice, err error) []Setting {
	shown := func(key, value, fallback string) Setting {
		if value == "" {
			return Setting{Key: key, Value: fallback, Source: "default"}
		}
		// The row names the key; a file's source need not say it again.
		return Setting{Key: key, Value: value, Source: strings.TrimSuffix(describe(c.From[key]), ": "+key)}
	}
	key := Setting{Key: "api_key", Value: "(not set)", Source: "-"}
	if err == nil && c.APIKey != "" && c.From["api_key"] != "not set" {
		key = Setting{Key: "api_key", Value: "set (" + mask(c.APIKey) + ")", Source: describe(c.From["api_key"])}
	}
	return []Setting{
		shown("provider", c.Name, "(none: set ANTHROPIC_API_KEY or OPENAI_API_KEY)"),
		shown("model", c.Model, "(none)"),
		shown("base_url", c.BaseURL, "(provider default)"),
		key,
	}
}

// mask shows only the end of a secret.
func mask(k string) string {
	if len(k) <= 8 {
		return "…"
	}
	return "…" + k[len(k)-4:]
}
