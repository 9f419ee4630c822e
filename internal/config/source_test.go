package config

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckBaseURL(t *testing.T) {
	tests := []struct {
		url, want string // want: "" for fine, else a part of the message
	}{
		{"https://api.anthropic.com", ""},
		{"http://localhost:11434/v1", ""},
		{"HTTP://127.0.0.1:8080", ""},
		{"http://[::1]:8080/v1", ""},
		{"localhost:8080", "must start with http:// or https://"},
		{"api.openai.com/v1", "must start with http:// or https://"},
		{"ftp://example.com", "must start with http:// or https://"},
		{"/v1", "must start with http:// or https://"},
		{"http://", "has no host"},
		{"http:///v1", "has no host"},
		{"https://:8080", "has no host"},
		{"http://localhost:99999999999/", "a port is from 1 to 65535"},
		{"http://x.example/%zz", "is not a valid URL"},
		{"http://local host", "must not hold spaces"},
		{" https://x.example", "must not hold spaces"},
		{"https://user:secret@x.example", "must not hold a user name or password"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := CheckBaseURL(tt.url)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckBaseURL(%q) = %v, want no error", tt.url, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckBaseURL(%q) = %v, want %q", tt.url, err, tt.want)
			}
		})
	}
}

func FuzzCheckBaseURL(f *testing.F) {
	for _, s := range []string{"https://api.anthropic.com", "localhost:8080", "http://", "http://[::1", "https://a@b", "http://x/%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckBaseURL(raw) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || (!strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https")) || u.Hostname() == "" || u.User != nil {
			t.Fatalf("CheckBaseURL accepted %q (%+v, %v)", raw, u, err)
		}
	})
}

func TestCheckModel(t *testing.T) {
	tests := []struct {
		model string
		ok    bool
	}{
		{"claude-sonnet-5-5", true},
		{"qwen3-coder:30b", true},
		{"gpt-5.5", true},
		{"gpt 5", false},
		{" gpt-5", false},
		{"gpt-5\n", false},
		{strings.Repeat("m", 201), false},
	}
	for _, tt := range tests {
		if err := CheckModel(tt.model); (err == nil) != tt.ok {
			t.Errorf("CheckModel(%q) = %v, want ok %v", tt.model, err, tt.ok)
		}
	}
}

// TestSourceNamesTheFile: a value read from a file is traced to the file
// and the key, the project's above the user's.
func TestSourceNamesTheFile(t *testing.T) {
	p := paths(t)
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(p.SettingsFile(), `{"provider":"opnai","model":"m1","base_url":"localhost:1"}`)
	root := t.TempDir()
	write(ProjectFile(root), `{"model":"m2"}`)
	user, _, err := LoadSettings(p)
	if err != nil {
		t.Fatal(err)
	}
	project, _, err := LoadProject(p, root)
	if err != nil {
		t.Fatal(err)
	}
	merged := Overlay(user, project)
	tests := []struct {
		s         Settings
		key, want string
	}{
		{user, "provider", "~/.wisp/settings.json: provider"},
		{user, "base_url", "~/.wisp/settings.json: base_url"},
		{user, "max_tokens", ""},
		{merged, "provider", "~/.wisp/settings.json: provider"},
		{merged, "model", p.Pretty(ProjectFile(root)) + ": model"},
		{Settings{Provider: "x"}, "provider", ""},
	}
	for _, tt := range tests {
		if got := tt.s.Source(tt.key); got != tt.want {
			t.Errorf("Source(%s) = %q, want %q", tt.key, got, tt.want)
		}
	}
	if merged.Model != "m2" || user.Model != "m1" || user.Source("model") != "~/.wisp/settings.json: model" {
		t.Errorf("overlay changed the user's settings or missed the project's: %+v / %+v", user, merged)
	}
}
