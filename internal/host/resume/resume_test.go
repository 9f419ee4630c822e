package resume

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/config"
)

// Find refuses the flag combinations that name no session, and starts a
// new session (saying so) when --continue finds none in the folder.
func TestFind(t *testing.T) {
	tests := []struct {
		name      string
		which     Which
		usage     string // a UsageError's text, "" for none
		stderrHas string
	}{
		{"nothing asked", Which{}, "", ""},
		{"continue and resume", Which{Continue: true, Resume: "ab"}, "use --continue or --resume, not both", ""},
		{"fork alone", Which{Fork: true}, "--fork needs --continue or --resume", ""},
		{"continue with none", Which{Continue: true}, "", "no earlier session in"},
		{"fork with none", Which{Continue: true, Fork: true}, "--fork: no earlier session in", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			path, err := Find(tt.which, t.TempDir(), t.TempDir(), &stderr)
			var ue *config.UsageError
			switch {
			case tt.usage == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.usage != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), tt.usage)):
				t.Fatalf("error %v, want a usage error with %q", err, tt.usage)
			}
			if path != "" {
				t.Errorf("path %q, want a new session", path)
			}
			if !strings.Contains(stderr.String(), tt.stderrHas) || (tt.stderrHas == "" && stderr.Len() > 0) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderrHas)
			}
		})
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/work/a-b_c": "/work/a-b_c",
		"":            "''",
		"~/x":         "'~/x'",
		"it's here":   `'it'\''s here'`,
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
