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
	wsHideMax     = 4096
)

// wsSkip are folders the walk does not enter: package caches, which are
// large and hold no project secrets, and .git, which git itself must
// read (its configuration is covered by hideGitConfig instead). Build
// output and vendored code are walked: a copied .env lands there.
var wsSkip = map[string]bool{
	".git": true, "node_modules": true, "target": true,
	".venv": true, "venv": true, "__pycache__": true,
}

// wsPlan is what an auto-run command's mount namespace hides of the
// workspace: its protected files and its repositories' configuration.
// It is made before the namespaces, because reading configuration runs
// git, and a process started after the PID namespace is made would
// become that namespace's init.
type wsPlan struct {
	files   []string
	configs []gitCover
}

// planWorkspace finds, for an auto-run command, the files in the
// workspace that the file tools refuse as protected (.env, private keys,
// .npmrc and the like): a recursive reader the classifier rates safe
// (grep -r TOKEN .) would otherwise print them; and the configuration of
// the repositories the command can reach. The walk is bounded
// (wsWalkEntries, wsWalkDepth); a protected file beyond it stays
// readable, and more than wsHideMax of them is an error.
func planWorkspace(cfg Config) (wsPlan, error) {
	root, err := filepath.EvalSymlinks(cfg.Workdir)
	if err != nil || cfg.Workdir == "" {
		return wsPlan{}, nil // no workspace: nothing of it to hide
	}
	prot := workspace.NewProtection("", nil)
	var plan wsPlan
	gitDirs := repoGitDirs(root)
	seen := 0
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the command cannot read it either
		}
		seen++
		if seen > wsWalkEntries {
			return filepath.SkipAll
		}
		if d.Name() == ".git" && p != filepath.Join(root, ".git") {
			// A nested clone's configuration holds its remotes' URLs.
			if g := gitDirOf(filepath.Dir(p)); g != "" {
				gitDirs = append(gitDirs, withCommon(g)...)
			}
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
			plan.files = append(plan.files, p)
			if len(plan.files) > wsHideMax {
				return errTooManySecrets
			}
		}
		return nil
	})
	if walkErr != nil {
		return wsPlan{}, fmt.Errorf("hide the workspace's protected files: %w", walkErr)
	}
	plan.configs = planGitConfig(gitDirs, root)
	return plan, nil
}

// apply hides what the plan names; it runs inside the new mount
// namespace.
func (plan wsPlan) apply() error {
	for _, p := range plan.files {
		fi, err := os.Stat(p)
		if err != nil {
			continue // a link to nothing: nothing to read
		}
		// The mount follows a link to its target.
		if err := hide(p, fi.IsDir()); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return applyGitConfig(plan.configs)
}

var errTooManySecrets = errors.New("more than 4096 protected files in the workspace")
