package config

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// Providers are the provider names wisp knows, in the order a message
// lists them.
var Providers = []string{"anthropic", "openai", "openai-compatible", "fake"}

// KnownProvider says whether name is one of Providers.
func KnownProvider(name string) bool {
	for _, p := range Providers {
		if p == name {
			return true
		}
	}
	return false
}

// Source names where a setting's value came from, for an error about that
// value: "FILE: key" for a file (`~/.wisp/settings.json: provider`), ""
// when the key was not set by any file.
func (s Settings) Source(key string) string {
	if f := s.sources[key]; f != "" {
		return f + ": " + key
	}
	return ""
}

// noteSources records, for each of the keys an error may be about that
// holds a value, the file it came from.
func (s *Settings) noteSources(file string) {
	set := map[string]bool{
		"provider": s.Provider != "", "model": s.Model != "", "base_url": s.BaseURL != "",
		"max_tokens": s.MaxTokens != 0, "session_dir": s.SessionDir != "", "context_window": s.ContextWindow != 0,
	}
	for k, ok := range set {
		if ok {
			if s.sources == nil {
				s.sources = map[string]string{}
			}
			s.sources[k] = file
		}
	}
}

// Overlay puts a trusted project's settings above the user's: the keys a
// project may set (provider, model, max_tokens, context_window) replace the user's when
// the project sets them, and Source then names the project's file.
func Overlay(user, project Settings) Settings {
	out := user
	out.sources = maps.Clone(user.sources)
	if out.sources == nil {
		out.sources = map[string]string{}
	}
	if project.Provider != "" {
		out.Provider, out.sources["provider"] = project.Provider, project.sources["provider"]
	}
	if project.Model != "" {
		out.Model, out.sources["model"] = project.Model, project.sources["model"]
	}
	if project.MaxTokens != 0 {
		out.MaxTokens, out.sources["max_tokens"] = project.MaxTokens, project.sources["max_tokens"]
	}
	if project.ContextWindow != 0 {
		out.ContextWindow, out.sources["context_window"] = project.ContextWindow, project.sources["context_window"]
	}
	return out
}

// CheckBaseURL says what is wrong with a provider address, nil when it is
// an absolute http or https URL with a host. The message is meant to
// follow the value and where it came from (`--base-url "x": …`).
func CheckBaseURL(raw string) error {
	if strings.TrimSpace(raw) != raw || strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return fmt.Errorf("must not hold spaces or control characters")
	}
	scheme, _, found := strings.Cut(raw, "://")
	if !found || !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return fmt.Errorf("must start with http:// or https://")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("is not a valid URL: %v", err)
	}
	if u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("has no host (e.g. http://localhost:11434/v1)")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("has port %s; a port is from 1 to 65535", port)
		}
	}
	if u.User != nil {
		return fmt.Errorf("must not hold a user name or password; set the key with an API key variable")
	}
	return nil
}

// CheckModel says what is wrong with a model name, nil when nothing is:
// providers take names such as claude-sonnet-5-5 or qwen3-coder:30b, never
// one with spaces, which a stray quote or paste brings in.
func CheckModel(name string) error {
	if strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return fmt.Errorf("must not hold spaces or control characters")
	}
	if len(name) > 200 {
		return fmt.Errorf("is longer than 200 characters")
	}
	return nil
}
