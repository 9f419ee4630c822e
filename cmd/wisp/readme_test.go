package main

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeInstall keeps the README's install steps as a new user needs
// them, word for word: the stripped install command, the line that puts
// go's bin folder on PATH (without it `wisp --version` fails in a new
// shell), and an offline demo that runs the installed wisp instead of
// `go run`, which rebuilds everything with cgo on.
func TestReadmeInstall(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	install := section(t, readme, "## Install")
	run := section(t, readme, "## Run it (the main job)")
	tests := []struct {
		name, in, text string
		want           bool
	}{
		{"stripped static install", install, "CGO_ENABLED=0 go install -ldflags='-s -w' ./cmd/wisp", true},
		{"go's bin folder on PATH", install, `export PATH="$PATH:$(go env GOPATH)/bin"`, true},
		{"the version check", install, "wisp --version", true},
		{"a warning that the first build is slow", install, "first build", true},
		{"the offline demo runs the installed wisp", run, "\nwisp --provider fake -p ", true},
		{"no go run in the demo", run, "go run ./cmd/wisp", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strings.Contains(tt.in, tt.text); got != tt.want {
				t.Errorf("README.md contains %q: %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// section returns the README's text from the heading to the next heading
// of the same level.
func section(t *testing.T, readme, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", heading)
	}
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}
