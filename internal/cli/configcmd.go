package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/provider"
)

// setting is one effective value and where it came from.
type setting struct{ key, value, source string }

// pick returns the first non-empty candidate with its source, or the
// fallback.
func pick(key string, fallback setting, cands ...setting) setting {
	for _, c := range cands {
		if c.value != "" {
			c.key = key
			return c
		}
	}
	fallback.key = key
	return fallback
}

// effectiveSettings lists every setting wisp will use, with its source:
// flag, environment, project, a user file, or the default.
func effectiveSettings(o Options, cfg *loaded, project config.Settings, projectFile string, getenv config.Getenv) []setting {
	settingsFile := cfg.paths.Pretty(cfg.paths.SettingsFile())
	configFile := cfg.paths.Pretty(cfg.paths.ConfigFile())
	s, f := cfg.settings, cfg.file
	var out []setting
	choice, err := chooseProvider(o, mergeProject(s, project), getenv, settingsFile)
	prov := pick("provider", setting{value: "(none: set ANTHROPIC_API_KEY or OPENAI_API_KEY)", source: "default"},
		setting{value: o.Provider, source: "flag --provider"},
		setting{value: getenv("WISP_PROVIDER"), source: "env WISP_PROVIDER"},
		setting{value: project.Provider, source: projectFile},
		setting{value: s.Provider, source: settingsFile},
		setting{value: choice.Name, source: "inferred from the API key in the environment"})
	out = append(out, prov)
	modelDefault := setting{value: "(none)", source: "default"}
	if choice.Model != "" {
		modelDefault = setting{value: choice.Model, source: "default for " + choice.Name}
	}
	model := pick("model", modelDefault,
		setting{value: o.Model, source: "flag --model"},
		setting{value: getenv("WISP_MODEL"), source: "env WISP_MODEL"},
		setting{value: project.Model, source: projectFile},
		setting{value: s.Model, source: settingsFile})
	out = append(out, model)
	out = append(out, pick("base_url", setting{value: "(provider default)", source: "default"},
		setting{value: o.BaseURL, source: "flag --base-url"},
		setting{value: getenv("WISP_BASE_URL"), source: "env WISP_BASE_URL"},
		setting{value: baseURLEnv(choice.Name, getenv), source: "env " + baseURLVar(choice.Name)},
		setting{value: s.BaseURL, source: settingsFile}))
	key := "(not set)"
	if err == nil && choice.APIKey != "" {
		key = "set (" + mask(choice.APIKey) + ")"
	}
	out = append(out, setting{key: "api_key", value: key, source: keySource(choice.Name, s, getenv, settingsFile)})
	out = append(out, pick("session_dir", setting{value: cfg.paths.Pretty(cfg.paths.SessionDir()), source: "default"},
		setting{value: o.SessionDir, source: "flag --session-dir"},
		setting{value: getenv("WISP_SESSION_DIR"), source: "env WISP_SESSION_DIR"},
		setting{value: s.SessionDir, source: settingsFile}))
	maxTokens := pick("max_tokens", setting{value: fmt.Sprint(provider.MaxTokensFor(choice.Model)), source: "default"},
		setting{value: positive(project.MaxTokens), source: projectFile},
		setting{value: positive(s.MaxTokens), source: settingsFile})
	limit := setting{key: "max_response_bytes", value: provider.FormatBytes(provider.DefaultMaxResponseBytes), source: "default"}
	if s.MaxResponseBytes != 0 {
		limit.value, limit.source = provider.FormatBytes(s.MaxResponseBytes), settingsFile
	}
	out = append(out, maxTokens, limit,
		pick("idle_timeout_seconds", setting{value: fmt.Sprint(defaultIdle.Seconds()), source: "default"},
			setting{value: positive(s.IdleTimeoutSeconds), source: settingsFile}))
	fromFile := func(set bool) string {
		if set {
			return configFile
		}
		return "default"
	}
	bytes, lines := f.OutputBound()
	out = append(out,
		setting{"approval.threshold", f.Threshold(), fromFile(f.Approval.Threshold != "")},
		setting{"approval.timeoutSeconds", fmt.Sprint(f.ApprovalTimeout().Seconds()), fromFile(f.Approval.TimeoutSeconds != 0)},
		setting{"commandTimeoutSeconds", fmt.Sprint(f.CommandTimeout().Seconds()), fromFile(f.CommandTimeoutSeconds != 0)},
		setting{"outputLimit", fmt.Sprintf("%d bytes, %d lines", bytes, lines), fromFile(f.OutputLimit.Bytes != 0 || f.OutputLimit.Lines != 0)},
		setting{"sandbox.enabled", fmt.Sprint(f.SandboxEnabled()), fromFile(f.Sandbox.Enabled != nil)},
		setting{"sandbox.allowNetwork", fmt.Sprint(f.AllowNetwork()), fromFile(f.Sandbox.AllowNetwork != nil)},
		setting{"sandbox.writablePaths", fmt.Sprint(f.Sandbox.WritablePaths), fromFile(len(f.Sandbox.WritablePaths) > 0)},
		setting{"commandPolicy.deny", fmt.Sprintf("%d defaults + %d yours", len(cfg.policy.Deny())-len(f.CommandPolicy.Deny), len(f.CommandPolicy.Deny)), fromFile(len(f.CommandPolicy.Deny) > 0)},
		setting{"commandPolicy.allow", fmt.Sprint(f.CommandPolicy.Allow), fromFile(len(f.CommandPolicy.Allow) > 0)},
		setting{"tools.disabled", fmt.Sprint(f.Tools.Disabled), fromFile(len(f.Tools.Disabled) > 0)},
		setting{"protected_paths", fmt.Sprintf("built-in + %v", s.ProtectedPaths), fromFile(len(s.ProtectedPaths) > 0)},
	)
	if len(s.ProtectedPaths) > 0 {
		out[len(out)-1].source = settingsFile
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

func mergeProject(s, project config.Settings) config.Settings {
	// Overlay also keeps which file each value came from, for errors.
	return config.Overlay(s, project)
}

func baseURLVar(provider string) string {
	if provider == "anthropic" {
		return "ANTHROPIC_BASE_URL"
	}
	return "OPENAI_BASE_URL"
}

func baseURLEnv(provider string, getenv config.Getenv) string { return getenv(baseURLVar(provider)) }

func keySource(provider string, s config.Settings, getenv config.Getenv, settingsFile string) string {
	switch {
	case provider == "anthropic" && getenv("ANTHROPIC_API_KEY") != "":
		return "env ANTHROPIC_API_KEY"
	case strings.HasPrefix(provider, "openai") && getenv("OPENAI_API_KEY") != "":
		return "env OPENAI_API_KEY"
	case getenv("WISP_API_KEY") != "":
		return "env WISP_API_KEY"
	case s.APIKey != "" || s.AnthropicAPIKey != "" || s.OpenAIAPIKey != "":
		return settingsFile
	}
	return "-"
}

// mask shows only the end of a secret.
func mask(k string) string {
	if len(k) <= 8 {
		return "…"
	}
	return "…" + k[len(k)-4:]
}

func printSettings(sys IO, list []setting) error {
	tw := tabwriter.NewWriter(sys.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.key, s.value, s.source)
	}
	return tw.Flush()
}
