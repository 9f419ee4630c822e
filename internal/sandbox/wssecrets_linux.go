//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/internal/workspace"
)

// Bounds of the walk that finds the workspace's own secrets: a command
// starts after it, so it must stay short in a large repository.
const (
	wsWalkEntries = 50000
	wsWalkDepth   = 24
	wsHideMax     = 256
)

// wsSkip are folders the walk does not enter: package caches, which are
// large and hold no project secrets, and .git, which git itself must
// read (its configuration is covered by hideGitConfig instead). Build
// output and vendored code are walked: a copied .env lands there.
var wsSkip = map[string]bool{
	".git": true, "node_modules": true, "target": true,
	".venv": true, "venv": true, "__pycache__": true,
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
		// A protected name that is a link is hidden where it leads:
		// .env -> ../shared.env reads that file.
		if (d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0) && d.Name() != ".git" && prot.Match(p) {
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
		fi, err := os.Stat(p)
		if err != nil {
			continue // a link to nothing: nothing to read
		}
		// The mount follows a link to its target.
		if err := hide(p, fi.IsDir()); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	tmp := cfg.TempDir
	if tmp == "" {
		tmp = os.Getenv("TMPDIR")
	}
	return hideGitConfig(root, tmp)
}

var errTooManySecrets = errors.New("more than 256 protected files in the workspace")
