package config

import (
	"errors"
	"fmt"

	"github.com/wisp-agent/wisp/internal/policy"
)

// Loaded is the user's configuration, read once per process: both user
// files, and the command policy compiled from config.json.
type Loaded struct {
	Paths    Paths
	Settings Settings
	File     File
	Policy   *policy.Policy
	Warns    []string
}

// Load reads ~/.wisp/settings.json and ~/.wisp/config.json. A bad file
// or pattern is a MalformedError naming the file and the key.
func Load(getenv Getenv) (*Loaded, error) {
	paths, err := ResolvePaths(getenv)
	if err != nil {
		return nil, err
	}
	l := &Loaded{Paths: paths}
	var warns []string
	l.Settings, warns, err = LoadSettings(paths)
	l.Warns = append(l.Warns, warns...)
	if err != nil {
		return nil, err
	}
	l.File, warns, err = LoadFile(paths)
	l.Warns = append(l.Warns, warns...)
	if err != nil {
		return nil, err
	}
	l.Policy, err = policy.Compile(l.File.CommandPolicy.Deny, l.File.CommandPolicy.Allow)
	var pe *policy.PatternError
	if errors.As(err, &pe) {
		return nil, &MalformedError{File: paths.Pretty(paths.ConfigFile()), What: pe.Error()}
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// UsageError is a request that cannot be met as asked (a bad flag, a
// session that does not exist, an unknown subcommand's argument): the
// command line's exit code 2. It is the one usage error of wisp: every
// package that can be asked for something impossible returns it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef makes a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// Flags are the command-line values that take precedence over the
// environment and the files.
type Flags struct{ Provider, Model, BaseURL, SessionDir string }

// First is the first non-empty value.
func First(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// BaseURLVar is the variable that names a provider's base URL.
func BaseURLVar(provider string) string {
	if provider == "anthropic" {
		return "ANTHROPIC_BASE_URL"
	}
	return "OPENAI_BASE_URL"
}
