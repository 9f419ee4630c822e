package host

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/provider/anthropic"
	"github.com/wisp-agent/wisp/internal/provider/fake"
	"github.com/wisp-agent/wisp/internal/provider/openai"
)

// flagsOf is the part of o that configuration resolution reads.
func flagsOf(o Options) config.Flags {
	return config.Flags{Provider: o.Provider, Model: o.Model, BaseURL: o.BaseURL, SessionDir: o.SessionDir}
}

// openProvider builds the chosen provider; close releases what it
// started (the fake provider's loopback server).
func openProvider(c config.Choice, getenv config.Getenv, idle time.Duration) (p provider.Provider, closeFn func(), err error) {
	closeFn = func() {}
	if idle <= 0 {
		idle = config.DefaultIdle
	}
	client := &http.Client{Transport: provider.IdleTransport(nil, idle)}
	switch c.Name {
	case "anthropic":
		p = anthropic.New(anthropic.Options{APIKey: c.APIKey, BaseURL: c.BaseURL, HTTPClient: client, MaxResponseBytes: c.MaxResponseBytes})
	case "openai", "openai-compatible":
		p = openai.New(openai.Options{APIKey: c.APIKey, BaseURL: c.BaseURL, HTTPClient: client, MaxResponseBytes: c.MaxResponseBytes})
	case "fake":
		script := fake.Demo()
		if path := getenv("WISP_FAKE_SCRIPT"); path != "" {
			script, err = fake.LoadScript(path)
			if err != nil {
				return nil, closeFn, fmt.Errorf("WISP_FAKE_SCRIPT: %w", err)
			}
		}
		srv, err := fake.Start(script)
		if err != nil {
			return nil, closeFn, fmt.Errorf("start the fake provider: %w", err)
		}
		closeFn = srv.Close
		// The fake speaks both wire formats; WISP_FAKE_FORMAT picks which
		// official client talks to it.
		if strings.EqualFold(getenv("WISP_FAKE_FORMAT"), "openai") {
			p = openai.New(openai.Options{APIKey: "fake", BaseURL: srv.URL() + "/v1", HTTPClient: client, MaxResponseBytes: c.MaxResponseBytes})
		} else {
			p = anthropic.New(anthropic.Options{APIKey: "fake", BaseURL: srv.URL(), HTTPClient: client, MaxResponseBytes: c.MaxResponseBytes})
		}
	}
	return provider.WithRetry(p, provider.RetryPolicy{}), closeFn, nil
}

func first(vals ...string) string { return config.First(vals...) }

// BaseURLVar is the variable that names a provider's base URL.
func BaseURLVar(provider string) string { return config.BaseURLVar(provider) }
