// Package config loads wisp's user files (~/.wisp/settings.json and, for
// the command gate, ~/.wisp/config.json) into one typed value, and
// resolves the configuration a session runs with (Resolve: flags >
// environment > trusted project > user file > default, each value with
// where it came from). It never reads a project's files unless the
// caller says the project is trusted, and a malformed file is an error
// that names the file and the key. It builds no provider and runs
// nothing.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Settings is what ~/.wisp/settings.json holds for the spine.
type Settings struct {
	Provider        string `json:"provider"`
	Model           string `json:"model"`
	BaseURL         string `json:"base_url"`
	APIKey          string `json:"api_key"`
	AnthropicAPIKey string `json:"anthropic_api_key"`
	OpenAIAPIKey    string `json:"openai_api_key"`
	SessionDir      string `json:"session_dir"`
	// MaxTokens bounds each reply (default: 32,000, or less for a model
	// known to allow less).
	MaxTokens int `json:"max_tokens" range:"1,1000000"`
	// IdleTimeoutSeconds is how long a provider may stay silent before
	// the request is retried (default 300).
	IdleTimeoutSeconds int `json:"idle_timeout_seconds" range:"1,86400"`
	// MaxResponseBytes bounds the text and tool arguments of one reply
	// held in memory (default 8 MiB); a reply that passes it is stopped.
	MaxResponseBytes int64 `json:"max_response_bytes" range:"65536,1073741824"`
	// ContextWindow is the model's context window in tokens, for models
	// wisp's table does not know (0: the table's, or none). A session
	// is compacted when a request comes within a reserve of it.
	ContextWindow int `json:"context_window" range:"1024,100000000"`
	// ProtectedPaths add to the built-in protected paths (user file only).
	ProtectedPaths []string `json:"protected_paths"`
	// MCPServers is read by the MCP client.
	MCPServers json.RawMessage `json:"mcp_servers"`
	// MCP tunes how the MCP servers' tools are offered (user file only).
	MCP MCPSettings `json:"mcp"`
	// WebSearch is the search backend of web_search, and A2AAgents the
	// agents invoke_agent may call (user file only; see wisps.go).
	WebSearch json.RawMessage `json:"web_search"`
	A2AAgents json.RawMessage `json:"a2a_agents"`

	// sources maps a key to the file (as shown) its value came from.
	sources map[string]string
}

// Paths says where wisp keeps its files.
type Paths struct {
	// Home is ~/.wisp or $WISP_HOME.
	Home string
	// UserHome is the person's home folder, for showing paths as ~.
	UserHome string
}

// Getenv reads an environment variable; tests hand in their own.
type Getenv func(string) string

// ResolvePaths finds wisp's home from WISP_HOME or HOME.
func ResolvePaths(getenv Getenv) (Paths, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return Paths{}, fmt.Errorf("find the home folder: %w", err)
		}
		home = h
	}
	p := Paths{UserHome: home, Home: filepath.Join(home, ".wisp")}
	if w := getenv("WISP_HOME"); w != "" {
		abs, err := filepath.Abs(w)
		if err != nil {
			return Paths{}, fmt.Errorf("WISP_HOME %q: %w", w, err)
		}
		p.Home = abs
	}
	return p, nil
}

// Pretty shows a path with the home folder as ~.
func (p Paths) Pretty(path string) string {
	if p.UserHome != "" && (path == p.UserHome || strings.HasPrefix(path, p.UserHome+string(filepath.Separator))) {
		return "~" + path[len(p.UserHome):]
	}
	return path
}

// SettingsFile is the path of the user settings.
func (p Paths) SettingsFile() string { return filepath.Join(p.Home, "settings.json") }

// SessionDir is the default transcript folder.
func (p Paths) SessionDir() string { return filepath.Join(p.Home, "sessions") }

// MalformedError reports a user file that cannot be used.
type MalformedError struct {
	File string // as shown to the person (~ for home)
	What string
}

func (e *MalformedError) Error() string { return fmt.Sprintf("malformed %s: %s", e.File, e.What) }

// LoadSettings reads the user settings. A missing file is no error. Keys
// wisp does not know come back as warnings.
func LoadSettings(p Paths) (Settings, []string, error) {
	var s Settings
	warn, err := loadFile(p, p.SettingsFile(), &s)
	s.noteSources(p.Pretty(p.SettingsFile()))
	return s, warn, err
}

// loadFile reads a user file into dst. A missing or empty file is no
// error; unknown keys come back as warnings naming the file.
func loadFile(p Paths, path string, dst any) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	shown := p.Pretty(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if !json.Valid(data) {
		var v any
		return nil, &MalformedError{File: shown, What: describeJSONError(data, json.Unmarshal(data, &v))}
	}
	warns, err := decodeObject(data, dst, "")
	for i, w := range warns {
		warns[i] = shown + ": " + w
	}
	if err != nil {
		return warns, &MalformedError{File: shown, What: err.Error()}
	}
	return warns, nil
}

func describeJSONError(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "the file must hold a JSON object"
	}
	return err.Error()
}
