package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// loaded writes the user's settings.json under a fresh home and loads it.
func loaded(t *testing.T, settings string) *Loaded {
	t.Helper()
	home := t.TempDir()
	if settings != "" {
		if err := os.MkdirAll(filepath.Join(home, ".wisp"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".wisp", "settings.json"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, err := Load(envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func envOf(m map[string]string) Getenv { return func(k string) string { return m[k] } }

// setting is the row of key in r.Settings.
func setting(t *testing.T, r Resolved, key string) Setting {
	t.Helper()
	for _, s := range r.Settings() {
		if s.Key == key {
			return s
		}
	}
	t.Fatalf("no %s row in %+v", key, r.Settings())
	return Setting{}
}

// TestResolvePrecedence: each value is decided once, flag > environment >
// trusted project > user file > default, and the row `wisp config` shows
// says the same value and where it came from.
func TestResolvePrecedence(t *testing.T) {
	user := `{"provider":"fake","model":"user-model","max_tokens":1000,"context_window":50000,"session_dir":"~/transcripts","idle_timeout_seconds":30}`
	tests := []struct {
		name       string
		flags      Flags
		env        map[string]string
		project    Settings
		key        string
		want, from string
	}{
		{"model from the user file", Flags{}, nil, Settings{}, "model", "user-model", "settings.json"},
		{"model from the project", Flags{}, nil, Settings{Model: "project-model"}, "model", "project-model", "project.json"},
		{"model from the environment", Flags{}, map[string]string{"WISP_MODEL": "env-model"}, Settings{Model: "project-model"}, "model", "env-model", "env WISP_MODEL"},
		{"model from the flag", Flags{Model: "flag-model"}, map[string]string{"WISP_MODEL": "env-model"}, Settings{}, "model", "flag-model", "flag --model"},
		{"max_tokens from the user file", Flags{}, nil, Settings{}, "max_tokens", "1000", "settings.json"},
		{"max_tokens from the project", Flags{}, nil, Settings{MaxTokens: 2000}, "max_tokens", "2000", "project.json"},
		{"context_window from the user file", Flags{}, nil, Settings{}, "context_window", "50000", "settings.json"},
		{"context_window from the project", Flags{}, nil, Settings{ContextWindow: 70000}, "context_window", "70000", "project.json"},
		{"session_dir from the user file, ~ expanded", Flags{}, nil, Settings{}, "session_dir", "~/transcripts", "settings.json"},
		{"session_dir from the environment", Flags{}, map[string]string{"WISP_SESSION_DIR": "/tmp/s"}, Settings{}, "session_dir", "/tmp/s", "env WISP_SESSION_DIR"},
		{"session_dir from the flag", Flags{SessionDir: "/tmp/f"}, map[string]string{"WISP_SESSION_DIR": "/tmp/s"}, Settings{}, "session_dir", "/tmp/f", "flag --session-dir"},
		{"idle from the user file", Flags{}, nil, Settings{}, "idle_timeout_seconds", "30", "settings.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := loaded(t, user)
			// As LoadProject leaves them: each value knows its file.
			tt.project.noteSources("/p/.wisp/project.json")
			r, err := Resolve(tt.flags, envOf(tt.env), l, tt.project, "/p/.wisp/project.json")
			if err != nil {
				t.Fatal(err)
			}
			row := setting(t, r, tt.key)
			if row.Value != tt.want || !strings.Contains(row.Source, tt.from) {
				t.Errorf("%s = %q from %q, want %q from %q", tt.key, row.Value, row.Source, tt.want, tt.from)
			}
			// The values the session uses are the rows' values.
			switch tt.key {
			case "model":
				if r.Provider.Model != tt.want {
					t.Errorf("the session's model is %q, the row says %q", r.Provider.Model, tt.want)
				}
			case "max_tokens":
				if got := r.MaxTokens; strconv.Itoa(got) != tt.want {
					t.Errorf("the session's max_tokens is %d, the row says %s", got, tt.want)
				}
			case "context_window":
				if got := r.ContextWindow; strconv.Itoa(got) != tt.want {
					t.Errorf("the session's window is %d, the row says %s", got, tt.want)
				}
			case "session_dir":
				if l.Paths.Pretty(r.SessionDir) != tt.want || !filepath.IsAbs(r.SessionDir) {
					t.Errorf("the session's folder is %q, the row says %q", r.SessionDir, tt.want)
				}
			case "idle_timeout_seconds":
				if r.Idle != 30*time.Second {
					t.Errorf("idle = %v", r.Idle)
				}
			}
		})
	}
}

// TestResolveDefaults: with nothing set, the defaults, and a model's
// window and answer size from the tables.
func TestResolveDefaults(t *testing.T) {
	r, err := Resolve(Flags{Provider: "fake"}, envOf(nil), loaded(t, ""), Settings{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Idle != DefaultIdle || r.MaxTokens <= 0 || !strings.HasSuffix(r.SessionDir, filepath.Join(".wisp", "sessions")) {
		t.Errorf("defaults: %+v", r)
	}
	if row := setting(t, r, "context_window"); row.Source != "default" || !strings.Contains(row.Value, "unknown") {
		t.Errorf("the fake model's window: %+v", row)
	}
}

// TestResolveProviderErrorKeepsTheRest: with no provider configured the
// error says what to set, and the other rows are still there.
func TestResolveProviderErrorKeepsTheRest(t *testing.T) {
	r, err := Resolve(Flags{}, envOf(nil), loaded(t, ""), Settings{}, "")
	if err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("err = %v, want what to set", err)
	}
	if row := setting(t, r, "provider"); !strings.Contains(row.Value, "none") {
		t.Errorf("provider row %+v", row)
	}
	setting(t, r, "approval.threshold")
}

// TestSessionDirOfIgnoresTheProject: a project cannot move transcripts.
func TestSessionDirOfIgnoresTheProject(t *testing.T) {
	l := loaded(t, `{"session_dir":"~/mine"}`)
	r, err := Resolve(Flags{Provider: "fake"}, envOf(nil), l, Settings{SessionDir: "/elsewhere"}, "p")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(l.Paths.UserHome, "mine"); r.SessionDir != want {
		t.Errorf("session dir %q, want %q", r.SessionDir, want)
	}
}
