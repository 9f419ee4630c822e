//go:build linux

package conceal

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/gitconfig"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestKeptConfig(t *testing.T) {
	entries := []gitconfig.Entry{
		{Key: "core.bare", Value: "false"},
		{Key: "core.fsmonitor", Value: "./x"},
		{Key: "core.excludesfile", Value: `C:\dir\`},
		{Key: "remote.origin.url", Value: "https://u:TOKEN@h/r"},
		{Key: "branch.we\"ird.remote", Value: "origin"},
		{Key: "http.extraheader", Value: "Authorization: TOKEN"},
		{Key: "extensions.worktreeconfig", NoValue: true},
	}
	want := "[core]\n\tbare = \"false\"\n\texcludesfile = \"C:\\\\dir\\\\\"\n[branch \"we\\\"ird\"]\n\tremote = \"origin\"\n[extensions]\n\tworktreeconfig\n"
	if got := string(keptConfig(entries)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A .git or commondir that is a FIFO, or a link to /dev/zero, must not
// hang or exhaust the walk that plans an auto-run command.
func TestPlanWorkspaceRefusesSpecialFiles(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"fifo", "zero", "common/.git"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ws, "fifo", ".git"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ws, "zero", ".git")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "common", ".git", "HEAD"), "ref: refs/heads/main\n")
	if err := syscall.Mkfifo(filepath.Join(ws, "common", ".git", "commondir"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := PlanWorkspace(ws)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("planning the workspace hung on a FIFO")
	}
}
