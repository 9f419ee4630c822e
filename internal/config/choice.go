package config

import (
	"fmt"
	"strings"
	"time"
)

// Default models, used when neither a flag, the environment nor the
// settings name one.
const (
	defaultAnthropicModel = "claude-sonnet-5-5"
	defaultOpenAIModel    = "gpt-5.5"
)

// DefaultIdle is how long a provider may stay silent (no headers, no
// stream bytes) before wisp gives up on the request and retries it:
// long enough for a model that thinks quietly, short enough that a
// stalled connection does not hang a run.
const DefaultIdle = 300 * time.Second

// Choice is the resolved provider configuration.
type Choice struct {
	Name, Model, BaseURL, APIKey string
	// MaxResponseBytes bounds one reply held in memory (0: the default).
	MaxResponseBytes int64
	// From says where provider, model, base_url and api_key came from:
	// a flag (--model), a variable (WISP_MODEL), a file and key
	// ("~/.wisp/settings.json: model"), or how wisp chose it. Every
	// reader of the configuration (the session, wisp config, the
	// inspect tool) shows these; none works out precedence again.
	From map[string]string
}

// origin is a setting's value and where it came from: a flag, an
// environment variable, or a file and key ("~/.wisp/settings.json: model").
type origin struct{ value, from string }

// firstOrigin is the first origin that holds a value.
func firstOrigin(vals ...origin) origin {
	for _, o := range vals {
		if o.value != "" {
			return o
		}
	}
	return origin{}
}

// bad is the usage error for a value of key that is wrong: it names the
// flag or variable, or the file and the key, so the person knows what to
// fix (`--base-url "localhost:8080": must start with http:// or https://`).
func (o origin) bad(key string, problem error) error {
	if strings.Contains(o.from, ": ") {
		return Usagef("%s %q (%s): %v", key, o.value, o.from, problem)
	}
	return Usagef("%s %q: %v", o.from, o.value, problem)
}

// Choose resolves flags > environment > settings. With nothing
// configured it names exactly what to set; a bad value names where it
// came from.
func Choose(o Flags, s Settings, getenv Getenv, settingsFile string) (Choice, error) {
	name := firstOrigin(origin{o.Provider, "--provider"}, origin{getenv("WISP_PROVIDER"), "WISP_PROVIDER"}, origin{s.Provider, s.Source("provider")})
	model := firstOrigin(origin{o.Model, "--model"}, origin{getenv("WISP_MODEL"), "WISP_MODEL"}, origin{s.Model, s.Source("model")})
	if model.value != "" {
		if err := CheckModel(model.value); err != nil {
			return Choice{}, model.bad("model", err)
		}
	}
	c := Choice{Name: name.value, MaxResponseBytes: s.MaxResponseBytes,
		From: map[string]string{"provider": name.from, "model": model.from, "base_url": "the provider's default"}}
	if c.Name == "" {
		c.From["provider"] = "inferred from the API key"
		switch {
		case getenv("ANTHROPIC_API_KEY") != "" || s.AnthropicAPIKey != "":
			c.Name = "anthropic"
		case getenv("OPENAI_API_KEY") != "" || s.OpenAIAPIKey != "":
			c.Name = "openai"
		default:
			return c, fmt.Errorf("no model provider is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, "+
				"or choose one with --provider or WISP_PROVIDER (anthropic, openai, openai-compatible, fake), "+
				"or set \"provider\" in %s", settingsFile)
		}
	}
	c.Model = model.value
	base := firstOrigin(origin{o.BaseURL, "--base-url"}, origin{getenv("WISP_BASE_URL"), "WISP_BASE_URL"},
		origin{getenv(BaseURLVar(c.Name)), BaseURLVar(c.Name)}, origin{s.BaseURL, s.Source("base_url")})
	if c.Name == "fake" {
		// The fake provider starts its own server; only a flag or
		// variable given for this run is checked.
		base = firstOrigin(origin{o.BaseURL, "--base-url"}, origin{getenv("WISP_BASE_URL"), "WISP_BASE_URL"})
	}
	if base.value != "" {
		c.From["base_url"] = base.from
	}
	if base.value != "" && KnownProvider(c.Name) {
		if err := CheckBaseURL(base.value); err != nil {
			return c, base.bad("base_url", err)
		}
	}
	if c.Model == "" {
		c.From["model"] = "the default for " + c.Name
	}
	key := keyOrigin(c.Name, s, getenv, settingsFile)
	c.From["api_key"] = First(key.from, "not set")
	switch c.Name {
	case "anthropic":
		c.BaseURL = base.value
		c.APIKey = key.value
		c.Model = First(c.Model, defaultAnthropicModel)
		if c.APIKey == "" {
			return c, fmt.Errorf("anthropic needs an API key: set ANTHROPIC_API_KEY (or WISP_API_KEY, or \"anthropic_api_key\" in %s)", settingsFile)
		}
	case "openai":
		c.BaseURL = base.value
		c.APIKey = key.value
		c.Model = First(c.Model, defaultOpenAIModel)
		if c.APIKey == "" {
			return c, fmt.Errorf("openai needs an API key: set OPENAI_API_KEY (or WISP_API_KEY, or \"openai_api_key\" in %s)", settingsFile)
		}
	case "openai-compatible":
		c.BaseURL = base.value
		// Local servers (Ollama, llama.cpp) take any key; the SDK wants one.
		c.APIKey = First(key.value, "none")
		if c.BaseURL == "" {
			return c, fmt.Errorf("openai-compatible needs the server's address: set --base-url or WISP_BASE_URL (e.g. http://localhost:11434/v1 for Ollama)")
		}
		if c.Model == "" {
			return c, fmt.Errorf("openai-compatible needs a model name: set --model or WISP_MODEL (e.g. qwen3-coder)")
		}
	case "fake":
		c.Model = First(c.Model, "fake")
	default:
		return c, Usagef("unknown provider %q (%s): use anthropic, openai, openai-compatible or fake", c.Name, name.from)
	}
	return c, nil
}

// keyOrigin is the API key a provider uses, and where it came from, in
// the order each provider looks: its own variable first, WISP_API_KEY,
// then settings.json's provider key and api_key. An openai-compatible
// server takes WISP_API_KEY first: its key is seldom OpenAI's.
func keyOrigin(provider string, s Settings, getenv Getenv, settingsFile string) origin {
	wisp := origin{getenv("WISP_API_KEY"), "WISP_API_KEY"}
	general := origin{s.APIKey, settingsFile + ": api_key"}
	switch provider {
	case "anthropic":
		return firstOrigin(origin{getenv("ANTHROPIC_API_KEY"), "ANTHROPIC_API_KEY"}, wisp, origin{s.AnthropicAPIKey, settingsFile + ": anthropic_api_key"}, general)
	case "openai":
		return firstOrigin(origin{getenv("OPENAI_API_KEY"), "OPENAI_API_KEY"}, wisp, origin{s.OpenAIAPIKey, settingsFile + ": openai_api_key"}, general)
	case "openai-compatible":
		return firstOrigin(wisp, origin{getenv("OPENAI_API_KEY"), "OPENAI_API_KEY"}, general, origin{s.OpenAIAPIKey, settingsFile + ": openai_api_key"})
	}
	return origin{}
}

// describe words where a value came from for a person: "flag --model",
// "env WISP_MODEL", or the file and key as they are.
func describe(from string) string {
	switch {
	case strings.HasPrefix(from, "--"):
		return "flag " + from
	case from != "" && strings.ToUpper(from) == from && !strings.ContainsAny(from, " :/"):
		return "env " + from
	}
	return from
}
