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

// The workspace's own protected files (.env, keys, .npmrc) read empty to
// an auto-run command, however a recursive reader reaches them.
func TestAutoRunHidesWorkspaceSecrets(t *testing.T) {
	w := autoRunWorld(t)
	const mark = "WS-SECRET-5521"
	if err := os.MkdirAll(filepath.Join(w.ws, "pkg", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".env", ".env.local", "pkg/deep/.env", "server.pem", ".npmrc", "pkg/id_rsa"} {
		writeFile(t, filepath.Join(w.ws, f), "TOKEN="+mark+"\n")
	}
	writeFile(t, filepath.Join(w.ws, "main.go"), "package main // TOKEN\n")
	auto := w.cfg
	auto.AutoRun = true
	r := run(t, auto, "grep -r TOKEN . ; cat .env pkg/deep/.env")
	if strings.Contains(r.stdout+r.stderr, mark) {
		t.Errorf("auto-run read a workspace secret:\n%s%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "main.go") {
		t.Errorf("auto-run lost the ordinary files:\n%s%s", r.stdout, r.stderr)
	}
	if r := run(t, w.cfg, "grep -r TOKEN ."); strings.Count(r.stdout, mark) != 6 {
		t.Errorf("control: the approved profile should read all six:\n%s", r.stdout)
	}
}
