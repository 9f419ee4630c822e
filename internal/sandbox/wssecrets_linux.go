//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/wisp-agent/wisp/internal/workspace"
)

// Bounds of the walk that finds the workspace's own secrets: a command
// starts after it, so it must stay short in a large repository.
const (
	wsWalkEntries = 50000
	wsWalkDepth   = 8
	wsHideMax     = 256
)

// wsSkip are folders the walk does not enter: package caches and build
// output, which are large and hold no project secrets, and .git, which
// git itself must read (its config is judged by the classifier instead).
var wsSkip = map[string]bool{
	".git": true, "node_modules": true, "vendor": true, "target": true,
	".venv": true, "venv": true, "__pycache__": true, "dist": true, "build": true,
}

// hideWorkspaceSecrets covers, for an auto-run command, the files in the
// workspace that the file tools refuse as protected (.env, private keys,
// .npmrc and the like) with /dev/null: a recursive reader the classifier
// rates safe (grep -r TOKEN .) would otherwise print them. The walk is
// bounded (wsWalkEntries, wsWalkDepth); a protected file beyond it stays
// readable, and more than wsHideMax of them is an error, so that such a
// workspace gets its lines asked about rather than half hidden.
func hideWorkspaceSecrets(cfg Config) error {
	root, err := filepath.EvalSymlinks(cfg.Workdir)
	if err != nil || cfg.Workdir == "" {
		return nil // no workspace: nothing of it to hide
	}
	prot := workspace.NewProtection("", nil)
	var found []string
	seen := 0
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the command cannot read it either
		}
		seen++
		if seen > wsWalkEntries {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != root && (wsSkip[d.Name()] || strings.Count(p[len(root):], "/") > wsWalkDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && d.Name() != ".git" && prot.Match(p) {
			found = append(found, p)
			if len(found) > wsHideMax {
				return errTooManySecrets
			}
		}
		return nil
	})
	if walkErr != nil {
		return fmt.Errorf("hide the workspace's protected files: %w", walkErr)
	}
	for _, p := range found {
		if err := unix.Mount(os.DevNull, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return nil
}

var errTooManySecrets = errors.New("more than 256 protected files in the workspace")
