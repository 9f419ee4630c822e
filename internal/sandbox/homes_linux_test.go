//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An auto-run command sees of the home folder only the workspace, the
// temp folder and PATH's folders, however it reaches the rest (.., a
// symlink in the workspace, an absolute path); an approved one sees it all.
func TestAutoRunHidesHome(t *testing.T) {
	w := autoRunWorld(t)
	ws := filepath.Join(w.home, "proj")
	bin := filepath.Join(w.home, "bin")
	for _, d := range []string{ws, bin, filepath.Join(w.home, ".config", "sops")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const mark = "HOME-SECRET-7731"
	writeFile(t, filepath.Join(w.home, ".boto"), mark)
	writeFile(t, filepath.Join(w.home, ".config", "sops", "keys.txt"), mark)
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	if err := os.WriteFile(filepath.Join(bin, "hello"), []byte("#!/bin/sh\necho hello-from-path\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(w.home, filepath.Join(ws, "h")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	cfg := w.cfg
	cfg.Workdir = ws
	reads := []string{"cat ../.boto", "cat h/.boto", "cat " + w.home + "/.config/sops/keys.txt", "grep -r " + mark + " h/ ..", "cd .. && cat .boto"}
	for _, line := range reads {
		t.Run(line, func(t *testing.T) {
			auto := cfg
			auto.AutoRun = true
			if r := run(t, auto, line); strings.Contains(r.stdout+r.stderr, mark) {
				t.Errorf("auto-run read the home folder (exit %d): %s%s", r.code, r.stdout, r.stderr)
			}
			if r := run(t, cfg, line); !strings.Contains(r.stdout, mark) {
				t.Errorf("control: the approved profile did not read it (exit %d): %s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
	auto := cfg
	auto.AutoRun = true
	if r := run(t, auto, "cat main.go && hello && ls .."); r.code != 0 || !strings.Contains(r.stdout, "package main") || !strings.Contains(r.stdout, "hello-from-path") {
		t.Errorf("auto-run lost the workspace or PATH (exit %d): %s%s", r.code, r.stdout, r.stderr)
	}
}
