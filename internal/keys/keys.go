// Package keys keeps the model providers' API keys out of every place a
// command could read them. At start wisp moves the keys out of its
// environment: it re-executes itself without them and hands their values
// over through an inherited pipe, so /proc/<pid>/environ of the running
// wisp holds no key; it also marks itself non-dumpable, so no process of
// the same user can read its memory, environ or file descriptors or
// ptrace it. The keys then live only in a [Store] that the configuration
// reads through, and [Redact] takes any key that still shows up out of a
// tool's output.
//
// The package holds no global state, reads no files and never writes a
// key anywhere but to the hand-over pipe.
package keys

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Names are the environment variables that hold provider keys. The
// settings file's keys (api_key, anthropic_api_key, openai_api_key) are
// not in the environment; they are redacted, not moved.
func Names() []string {
	return []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "WISP_API_KEY"}
}

// fdVar names the descriptor the parent hands the keys over on. It is a
// WISP_ variable, so commands never see it (sandbox.CommandEnv).
const fdVar = "WISP_KEYS_FD"

// maxPayload bounds the hand-over: it must fit a pipe's buffer before the
// reader exists (16 KiB is the smallest pipe buffer among the systems wisp
// runs on), and no API key comes near it.
const maxPayload = 16 << 10

// Store holds the keys handed over at start. The zero value holds none.
type Store struct {
	vals map[string]string
}

// Lookup returns the key an environment variable held when wisp started.
func (s *Store) Lookup(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	v, ok := s.vals[name]
	return v, ok
}

// Getenv reads key variables from the store and every other variable
// through fallback, so that configuration code keeps one way to read the
// environment.
func (s *Store) Getenv(fallback func(string) string) func(string) string {
	return func(name string) string {
		if v, ok := s.Lookup(name); ok {
			return v
		}
		if slices.Contains(Names(), name) {
			// A key that was not handed over was not set: never fall
			// back to an environment the keys were taken out of.
			return ""
		}
		return fallback(name)
	}
}

// encode writes NAME=VALUE records separated by NUL, which no environment
// value can hold.
func encode(vals map[string]string) []byte {
	names := make([]string, 0, len(vals))
	for n := range vals {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(vals[n])
		b.WriteByte(0)
	}
	return b.Bytes()
}

// decode reads what encode wrote; only the names in Names are accepted.
func decode(data []byte) (map[string]string, error) {
	vals := map[string]string{}
	for _, rec := range bytes.Split(data, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		name, val, ok := strings.Cut(string(rec), "=")
		if !ok || !slices.Contains(Names(), name) {
			return nil, fmt.Errorf("malformed key hand-over record %q", clip(name))
		}
		vals[name] = val
	}
	return vals, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// MinRedact is the shortest key Redact replaces: a shorter value (a test
// key such as "none", a local server's "x") would turn ordinary words of
// the output into [redacted].
const MinRedact = 8

// Redacted is what a key is replaced with.
const Redacted = "[redacted]"

// Secrets gathers the key values to redact: the key variables as getenv
// reads them and any configured values, without duplicates and without
// values shorter than MinRedact.
func Secrets(getenv func(string) string, configured ...string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= MinRedact && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if getenv != nil {
		for _, n := range Names() {
			add(getenv(n))
		}
	}
	for _, v := range configured {
		add(v)
	}
	// Longest first, so a key that contains another is replaced whole.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Redact replaces every occurrence of each secret in s with Redacted.
// Secrets shorter than MinRedact are left alone.
func Redact(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= MinRedact && strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, Redacted)
		}
	}
	return s
}
