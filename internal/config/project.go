package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// ProjectFile is a project's own settings, read only when the project is
// trusted.
func ProjectFile(root string) string { return filepath.Join(root, ".wisp", "settings.json") }

// projectForbidden are the settings a project may never set: they would
// let a repository define what runs, where keys go, or what is protected.
var projectForbidden = map[string]string{
	"mcp_servers":       "a project cannot define MCP servers",
	"mcp":               "a project cannot change how MCP tools are offered",
	"protected_paths":   "a project cannot change protected paths",
	"tools":             "a project cannot define tools",
	"commandPolicy":     "a project cannot change the command gate",
	"approval":          "a project cannot change the command gate",
	"sandbox":           "a project cannot change the command gate",
	"base_url":          "a project cannot redirect the provider (your API key would follow it)",
	"api_key":           "a project cannot hold API keys",
	"anthropic_api_key": "a project cannot hold API keys",
	"openai_api_key":    "a project cannot hold API keys",
	"session_dir":       "a project cannot move your sessions",
}

// LoadProject reads a trusted project's .wisp/settings.json. Keys a
// project may not set are dropped with a warning; the rest (provider,
// model, max_tokens, context_window) apply above the user's settings.
func LoadProject(p Paths, root string) (Settings, []string, error) {
	var s Settings
	path := ProjectFile(root)
	shown := p.Pretty(path)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil, nil
	}
	if err != nil {
		return s, nil, fmt.Errorf("read %s: %w", shown, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		var v any
		return s, nil, &MalformedError{File: shown, What: describeJSONError(data, json.Unmarshal(data, &v))}
	}
	var warns []string
	for _, k := range sortedKeys(raw) {
		if why, bad := projectForbidden[k]; bad {
			warns = append(warns, fmt.Sprintf("%s: %q ignored: %s", shown, k, why))
			delete(raw, k)
		}
	}
	kept, _ := json.Marshal(raw)
	var all Settings
	w, err := decodeObject(kept, &all, "")
	for _, x := range w {
		warns = append(warns, shown+": "+x)
	}
	if err != nil {
		return s, warns, &MalformedError{File: shown, What: err.Error()}
	}
	s.Provider, s.Model, s.MaxTokens, s.ContextWindow = all.Provider, all.Model, all.MaxTokens, all.ContextWindow
	s.noteSources(shown)
	return s, warns, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
