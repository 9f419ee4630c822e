//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// gitConfigMax bounds a configuration file copied for an auto-run
// command; a larger one is hidden whole.
const gitConfigMax = 1 << 20

// gitKeepSections are the sections of a repository's configuration an
// auto-run command sees: what git needs to read the repository (its
// format, its branches' names). Remotes, submodules, credential and http
// settings are left out: their URLs and headers hold tokens
// (https://user:TOKEN@host), and a line rated read-only could print them
// (git remote -v, grep -r url .git).
var gitKeepSections = map[string]bool{
	"core": true, "extensions": true, "branch": true, "index": true, "feature": true, "pack": true,
}

// hideGitConfig covers each configuration file of the workspace's
// repository (its own, its worktrees' and its submodules') with a copy
// that keeps only gitKeepSections, written to the command's temporary
// folder; with no such folder, or a file too large, with /dev/null.
func hideGitConfig(root, tempDir string) error {
	for i, p := range gitConfigFiles(root) {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		src := os.DevNull
		if data, err := os.ReadFile(p); err == nil && tempDir != "" && len(data) <= gitConfigMax {
			copyPath := filepath.Join(tempDir, fmt.Sprintf(".wisp-gitconfig-%d", i))
			if err := os.WriteFile(copyPath, keepGitSections(data), 0o600); err == nil {
				src = copyPath
			}
		}
		if err := unix.Mount(src, p, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return nil
}

// gitConfigFiles lists the configuration files git reads for the
// repository in root: .git as a folder or a gitfile, its common folder,
// and the worktrees' and submodules' folders beneath them.
func gitConfigFiles(root string) []string {
	dot := filepath.Join(root, ".git")
	dir := dot
	if data, err := os.ReadFile(dot); err == nil {
		line, _, _ := strings.Cut(string(data), "\n")
		d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return nil
		}
		dir = strings.TrimSpace(d)
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
	}
	dirs := []string{dir}
	if c, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		dirs = append(dirs, common)
	}
	var files []string
	for _, d := range dirs {
		files = append(files, filepath.Join(d, "config"), filepath.Join(d, "config.worktree"))
		for _, pattern := range []string{"worktrees/*/config.worktree", "modules/*/config", "modules/*/*/config", "modules/*/*/*/config"} {
			m, _ := filepath.Glob(filepath.Join(d, pattern))
			files = append(files, m...)
		}
	}
	return files
}

// gitProgramKeys are the keys of the kept sections that make git run a
// program; an auto-run command's git runs none of them.
var gitProgramKeys = map[string]bool{
	"fsmonitor": true, "hookspath": true, "pager": true, "editor": true,
	"sshcommand": true, "askpass": true, "gitproxy": true,
}

// runsProgram reports whether a configuration line sets one of
// gitProgramKeys (a section header line may carry the setting).
func runsProgram(line string) bool {
	if strings.HasPrefix(line, "[") {
		_, line, _ = strings.Cut(line, "]")
	}
	key, _, _ := strings.Cut(line, "=")
	return gitProgramKeys[strings.ToLower(strings.TrimSpace(key))]
}

// keepGitSections returns the lines of a configuration file that lie in
// gitKeepSections, less those that set gitProgramKeys. A section header may carry a setting on its own line
// ([core] bare = false); a value continued onto the next line stays with
// its section.
func keepGitSections(data []byte) []byte {
	var out bytes.Buffer
	keep := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), gitConfigMax)
	continued := false
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " \t\ufeff")
		if !continued && strings.HasPrefix(trimmed, "[") {
			name := strings.ToLower(strings.TrimLeft(trimmed, "["))
			if i := strings.IndexAny(name, " \t\".]"); i >= 0 {
				name = name[:i]
			}
			keep = gitKeepSections[strings.TrimSpace(name)]
		}
		if keep && (continued || !runsProgram(trimmed)) {
			out.WriteString(line)
			out.WriteByte('\n')
		}
		continued = strings.HasSuffix(strings.TrimRight(line, "\r"), "\\")
	}
	return out.Bytes()
}
