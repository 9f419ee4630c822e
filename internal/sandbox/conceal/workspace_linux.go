//go:build linux

package conceal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp/internal/gitconfig"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// Bounds of the walk that finds the workspace's own secrets: a command
// starts after it, so it must stay short in a large repository.
const (
	wsWalkEntries = 100000
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

// Plan is what an auto-run command's mount namespace hides of the
// workspace: its protected files and its repositories' configuration.
// It is made before the namespaces, because reading configuration runs
// git, and a process started after the PID namespace is made would
// become that namespace's init.
type Plan struct {
	files   []string
	configs []gitCover
}

// PlanWorkspace finds, for an auto-run command, the files in the
// workspace that the file tools refuse as protected (.env, private keys,
// .npmrc and the like): a recursive reader the classifier rates safe
// (grep -r TOKEN .) would otherwise print them; and the configuration of
// the repositories the command can reach. The walk is bounded
// (wsWalkEntries, wsWalkDepth); a protected file beyond it stays
// readable, and more than wsHideMax of them is an error.
func PlanWorkspace(workdir string) (Plan, error) {
	root, err := filepath.EvalSymlinks(workdir)
	if err != nil || workdir == "" {
		return Plan{}, nil // no workspace: nothing of it to hide
	}
	w := &wsWalk{prot: workspace.NewProtection("", nil), gitDirs: repoGitDirs(root), visited: []string{root}}
	w.walk(root, nil)
	// A link to a folder outside the workspace is read through by
	// grep -R and the like: its protected files are hidden too, with
	// the same budget.
	for len(w.links) > 0 && w.err == nil && w.seen <= wsWalkEntries {
		l := w.links[0]
		w.links = w.links[1:]
		w.walk(l.target, l.elems)
	}
	w.skim()
	if w.err == nil && w.seen > wsWalkEntries {
		// What lies beyond the walk could be a protected file: fail
		// closed (the gate asks instead, see TooLarge).
		w.err = errTooLarge
	}
	if w.err != nil {
		return Plan{}, fmt.Errorf("hide the workspace's protected files: %w", w.err)
	}
	w.plan.configs = planGitConfig(w.gitDirs, root)
	// Reflog messages keep the URLs given to git pull and fetch, tokens
	// included.
	for _, d := range w.gitDirs {
		if fi, err := os.Lstat(filepath.Join(d, "logs")); err == nil && fi.IsDir() && !slices.Contains(w.plan.files, filepath.Join(d, "logs")) {
			w.plan.files = append(w.plan.files, filepath.Join(d, "logs"))
		}
	}
	return w.plan, nil
}

var errTooLarge = fmt.Errorf("more than %d entries to search for protected files", wsWalkEntries)

// TooLarge says why the auto-run profile cannot be built for the
// workspace workdir ("" when it can): its walk for protected files would
// not end within its bounds, or finds more than can be hidden. The gate
// asks about such a workspace's lines instead of running them unasked.
func TooLarge(workdir string) string {
	if _, err := PlanWorkspace(workdir); errors.Is(err, errTooLarge) || errors.Is(err, errTooManySecrets) {
		return err.Error()
	}
	return ""
}

// wsWalk is the walk planWorkspace makes.
type wsWalk struct {
	prot    *workspace.Protection
	plan    Plan
	gitDirs []string
	seen    int
	err     error
	// visited are the folders walked from (resolved); links are linked
	// folders still to walk, each with the path elements of its link.
	visited []string
	links   []wsLink
	// skimmed are package folders the walk does not enter (wsSkip);
	// skim looks at their packages' tops only.
	skimmed []wsSkimmed
}

type wsSkimmed struct {
	path  string
	elems []string
}

// wsSkimGlobs are where, in a package folder, a package's own clone or
// secrets lie: pip's editable installs (.venv/src/NAME, a clone whose
// remote URL may carry a token), a package's or a scoped package's top.
var wsSkimGlobs = []string{"*/.git", "*/*/.git", "src/*/.git", "*/.env*", "*/*/.env*", "*/*.pem", "*/*.key"}

// skim finds, at the tops of the package folders the walk skipped, the
// nested clones and protected files a recursive reader would still
// print, at a few directory listings each rather than a walk.
func (w *wsWalk) skim() {
	for _, sk := range w.skimmed {
		for _, g := range wsSkimGlobs {
			matches, _ := filepath.Glob(filepath.Join(sk.path, g))
			for _, m := range matches {
				if filepath.Base(m) == ".git" {
					if d := gitconfig.GitDirOf(filepath.Dir(m)); d != "" {
						w.gitDirs = append(w.gitDirs, gitconfig.WithCommon(d)...)
					}
					continue
				}
				rel := strings.Split(strings.ToLower(m[len(sk.path)+1:]), "/")
				if w.prot.MatchEntry(append(slices.Clip(sk.elems), rel...)) && !slices.Contains(w.plan.files, m) && len(w.plan.files) < wsHideMax {
					w.plan.files = append(w.plan.files, m)
				}
			}
		}
	}
}

type wsLink struct {
	target string
	elems  []string
}

// walk records what is protected beneath base, whose entries' path
// elements from the workspace start with prefix.
func (w *wsWalk) walk(base string, prefix []string) {
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: the command cannot read it either
		}
		if w.seen++; w.seen > wsWalkEntries {
			return filepath.SkipAll
		}
		if p == base {
			return nil
		}
		if d.Name() == ".git" {
			// A nested clone's configuration holds its remotes' URLs.
			if g := gitconfig.GitDirOf(filepath.Dir(p)); g != "" {
				w.gitDirs = append(w.gitDirs, gitconfig.WithCommon(g)...)
			}
		}
		elems := append(slices.Clip(prefix), strings.Split(strings.ToLower(p[len(base)+1:]), "/")...)
		return w.visit(p, d, elems)
	})
	if err != nil && w.err == nil {
		w.err = err
	}
}

func (w *wsWalk) visit(p string, d fs.DirEntry, elems []string) error {
	protected := w.prot.MatchEntry(elems)
	switch {
	case d.IsDir() && wsSkip[d.Name()] && d.Name() != ".git":
		w.skimmed = append(w.skimmed, wsSkimmed{p, elems})
		return filepath.SkipDir
	case d.IsDir() && (wsSkip[d.Name()] || len(elems) > wsWalkDepth):
		return filepath.SkipDir
	case d.IsDir() && !protected:
		return nil
	case d.Type()&fs.ModeSymlink != 0 && !protected:
		w.follow(p, elems)
		return nil
	case d.Name() == ".git" || !protected:
		return nil
	}
	// A protected folder is covered whole; a protected name that is a
	// link is hidden where it leads (.env -> ../shared.env).
	w.plan.files = append(w.plan.files, p)
	if len(w.plan.files) > wsHideMax {
		return errTooManySecrets
	}
	if d.IsDir() {
		return filepath.SkipDir
	}
	return nil
}

// follow queues the folder a link leads to, once.
func (w *wsWalk) follow(p string, elems []string) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil || len(elems) > wsWalkDepth {
		return
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		return
	}
	if slices.ContainsFunc(w.visited, func(v string) bool { return within(target, v) }) {
		return
	}
	w.visited = append(w.visited, target)
	w.links = append(w.links, wsLink{target: target, elems: elems})
}

// Apply hides what the plan names; it runs inside the new mount
// namespace.
func (plan Plan) Apply() error {
	for _, p := range plan.files {
		fi, err := os.Stat(p)
		if err != nil {
			continue // a link to nothing: nothing to read
		}
		// The mount follows a link to its target.
		if err := Hide(p, fi.IsDir()); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return applyGitConfig(plan.configs)
}

var errTooManySecrets = errors.New("more than 4096 protected files in the workspace")
