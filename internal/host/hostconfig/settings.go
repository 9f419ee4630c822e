package hostconfig

import (
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/provider"
)

// Setting is one effective value and where it came from.
type Setting struct{ Key, Value, Source string }

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

// Effective lists every Setting wisp will use, with its source:
// flag, environment, project, a user file, or the default.
func Effective(o Flags, cfg *Config, project config.Settings, projectFile string, getenv config.Getenv) []Setting {
	settingsFile := cfg.Paths.Pretty(cfg.Paths.SettingsFile())
	configFile := cfg.Paths.Pretty(cfg.Paths.ConfigFile())
	s, f := cfg.Settings, cfg.File
	var out []Setting
	choice, err := Choose(o, MergeProject(s, project), getenv, settingsFile)
	out = append(out, providerSettings(choice, err)...)
	out = append(out, pick("session_dir", Setting{Value: cfg.Paths.Pretty(cfg.Paths.SessionDir()), Source: "default"},
		Setting{Value: o.SessionDir, Source: "flag --session-dir"},
		Setting{Value: getenv("WISP_SESSION_DIR"), Source: "env WISP_SESSION_DIR"},
		Setting{Value: s.SessionDir, Source: settingsFile}))
	maxTokens := pick("max_tokens", Setting{Value: fmt.Sprint(provider.MaxTokensFor(choice.Model)), Source: "default"},
		Setting{Value: positive(project.MaxTokens), Source: projectFile},
		Setting{Value: positive(s.MaxTokens), Source: settingsFile})
	limit := Setting{Key: "max_response_bytes", Value: provider.FormatBytes(provider.DefaultMaxResponseBytes), Source: "default"}
	if s.MaxResponseBytes != 0 {
		limit.Value, limit.Source = provider.FormatBytes(s.MaxResponseBytes), settingsFile
	}
	window := Setting{Value: "unknown (compacted only when the provider refuses a request as too long)", Source: "default"}
	if n := provider.ContextWindowFor(choice.Model); n > 0 {
		window.Value = fmt.Sprint(n)
	}
	out = append(out, maxTokens, limit,
		pick("idle_timeout_seconds", Setting{Value: fmt.Sprint(DefaultIdle.Seconds()), Source: "default"},
			Setting{Value: positive(s.IdleTimeoutSeconds), Source: settingsFile}),
		pick("context_window", window,
			Setting{Value: positive(project.ContextWindow), Source: projectFile},
			Setting{Value: positive(s.ContextWindow), Source: settingsFile}))
	fromFile := func(set bool) string {
		if set {
			return configFile
		}
		return "default"
	}
	bytes, lines := f.OutputBound()
	out = append(out,
		Setting{"approval.threshold", f.Threshold(), fromFile(f.Approval.Threshold != "")},
		Setting{"approval.timeoutSeconds", fmt.Sprint(f.ApprovalTimeout().Seconds()), fromFile(f.Approval.TimeoutSeconds != 0)},
		Setting{"commandTimeoutSeconds", fmt.Sprint(f.CommandTimeout().Seconds()), fromFile(f.CommandTimeoutSeconds != 0)},
		Setting{"outputLimit", fmt.Sprintf("%d bytes, %d lines", bytes, lines), fromFile(f.OutputLimit.Bytes != 0 || f.OutputLimit.Lines != 0)},
		Setting{"sandbox.enabled", fmt.Sprint(f.SandboxEnabled()), fromFile(f.Sandbox.Enabled != nil)},
		Setting{"sandbox.allowNetwork", fmt.Sprint(f.AllowNetwork()), fromFile(f.Sandbox.AllowNetwork != nil)},
		Setting{"sandbox.writablePaths", fmt.Sprint(f.Sandbox.WritablePaths), fromFile(len(f.Sandbox.WritablePaths) > 0)},
		Setting{"commandPolicy.deny", fmt.Sprintf("%d defaults + %d yours", len(cfg.Policy.Deny())-len(f.CommandPolicy.Deny), len(f.CommandPolicy.Deny)), fromFile(len(f.CommandPolicy.Deny) > 0)},
		Setting{"commandPolicy.allow", fmt.Sprint(f.CommandPolicy.Allow), fromFile(len(f.CommandPolicy.Allow) > 0)},
		Setting{"tools.disabled", fmt.Sprint(f.Tools.Disabled), fromFile(len(f.Tools.Disabled) > 0)},
		Setting{"protected_paths", fmt.Sprintf("built-in + %v", s.ProtectedPaths), fromFile(len(s.ProtectedPaths) > 0)},
	)
	if len(s.ProtectedPaths) > 0 {
		out[len(out)-1].Source = settingsFile
	}
	return out
}

// positive shows a number that was set, and nothing for 0 (not set).
func positive(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
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
