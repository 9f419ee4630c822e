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
	// Settings lists every effective value with its source, in the order
	// `wisp config` shows them.
	Settings []Setting
}

// Resolve decides the configuration from the command line's flags, the
// environment, the user's files and a trusted project's settings (zero
// when the project is not trusted; projectFile names its file). The
// error is the provider's (none configured, a bad model or base URL);
// Settings is filled even then, so that `wisp config` can show the rest.
func Resolve(f Flags, getenv Getenv, user *Loaded, project Settings, projectFile string) (Resolved, error) {
	settingsFile := user.Paths.Pretty(user.Paths.SettingsFile())
	s := Overlay(user.Settings, project)
	choice, err := Choose(f, s, getenv, settingsFile)
	r := Resolved{Provider: choice}
	r.Settings = append(r.Settings, providerSettings(choice, err)...)

	dir := SessionDirOf(f, getenv, user.Paths, user.Settings)
	r.SessionDir = dir.Value
	dir.Value = user.Paths.Pretty(dir.Value)
	if dir.Source == settingsFile+": session_dir" {
		dir.Source = settingsFile
	}

	var maxTokens Setting
	r.MaxTokens, maxTokens = firstSet("max_tokens", provider.MaxTokensFor(choice.Model), fmt.Sprint,
		sourced{project.MaxTokens, projectFile}, sourced{user.Settings.MaxTokens, settingsFile})

	limit := Setting{Key: "max_response_bytes", Value: provider.FormatBytes(provider.DefaultMaxResponseBytes), Source: "default"}
	if s.MaxResponseBytes != 0 {
		limit.Value, limit.Source = provider.FormatBytes(s.MaxResponseBytes), settingsFile
	}

	r.Idle = DefaultIdle
	idle := Setting{Key: "idle_timeout_seconds", Value: fmt.Sprint(DefaultIdle.Seconds()), Source: "default"}
	if n := s.IdleTimeoutSeconds; n > 0 {
		r.Idle = time.Duration(n) * time.Second
		idle.Value, idle.Source = fmt.Sprint(n), settingsFile
	}

	var window Setting
	r.ContextWindow, window = firstSet("context_window", provider.ContextWindowFor(choice.Model), func(n ...any) string {
		if n[0].(int) <= 0 {
			return "unknown (compacted only when the provider refuses a request as too long)"
		}
		return fmt.Sprint(n...)
	}, sourced{project.ContextWindow, projectFile}, sourced{user.Settings.ContextWindow, settingsFile})

	r.Settings = append(r.Settings, dir, maxTokens, limit, idle, window)
	r.Settings = append(r.Settings, gateSettings(user, settingsFile)...)
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

// firstSet is the first number set, or the default, with its Setting row.
func firstSet(key string, def int, show func(...any) string, cands ...sourced) (int, Setting) {
	for _, c := range cands {
		if c.n != 0 {
			return c.n, Setting{Key: key, Value: show(c.n), Source: c.from}
		}
	}
	return def, Setting{Key: key, Value: show(def), Source: "default"}
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
