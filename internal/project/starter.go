package project

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// starterScan bounds how much of each build file the starter reads.
const starterScan = 256 << 10

// StarterAgentsMD is the text `/init` writes as a new AGENTS.md in root:
// a short template, with build and test commands filled in from what
// the project's build files show (go.mod, package.json scripts, Makefile
// targets, Cargo.toml). Nothing is run.
func StarterAgentsMD(root string) string {
	var cmds, style []string
	if mod := goModule(root); mod != "" {
		cmds = append(cmds, "- Build: `go build ./...`", "- Test: `go test ./...`", "- Vet: `go vet ./...`")
		style = append(style, "- Go: format with `gofmt`; keep `go vet ./...` clean.")
	}
	if scripts := npmScripts(root); len(scripts) > 0 {
		for _, s := range scripts {
			cmds = append(cmds, fmt.Sprintf("- `npm run %s`", s))
		}
	}
	if fileExists(filepath.Join(root, "Cargo.toml")) {
		cmds = append(cmds, "- Build: `cargo build`", "- Test: `cargo test`")
		style = append(style, "- Rust: format with `cargo fmt`; keep `cargo clippy` clean.")
	}
	if targets := makeTargets(root); len(targets) > 0 {
		for _, t := range targets {
			cmds = append(cmds, fmt.Sprintf("- `make %s`", t))
		}
	}
	var b strings.Builder
	b.WriteString("# AGENTS.md\n\nGuidance for coding agents working in this repository.\n\n")
	b.WriteString("## Project overview\n\n<!-- What this project is, its main parts and where they live. -->\n")
	if mod := goModule(root); mod != "" {
		fmt.Fprintf(&b, "\nGo module `%s`.\n", mod)
	}
	b.WriteString("\n## Build & test commands\n\n")
	if len(cmds) == 0 {
		b.WriteString("<!-- How to build, test and lint; the commands to run before finishing a change. -->\n")
	} else {
		b.WriteString(strings.Join(cmds, "\n") + "\n")
	}
	b.WriteString("\n## Code style\n\n<!-- Conventions to follow: formatting, naming, error handling, tests. -->\n")
	if len(style) > 0 {
		b.WriteString("\n" + strings.Join(style, "\n") + "\n")
	}
	b.WriteString("\n## Things to avoid\n\n<!-- Files not to edit, commands not to run, patterns not to use. -->\n")
	return b.String()
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// readHead reads the start of a regular file, or nothing.
func readHead(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, starterScan))
	return data
}

// goModule is the module path declared in root/go.mod, or "".
func goModule(root string) string {
	sc := bufio.NewScanner(strings.NewReader(string(readHead(filepath.Join(root, "go.mod")))))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// npmScripts lists the scripts of root/package.json, the usual ones
// first, at most eight.
func npmScripts(root string) []string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(readHead(filepath.Join(root, "package.json")), &pkg) != nil {
		return nil
	}
	rank := map[string]int{"build": 1, "test": 2, "lint": 3, "dev": 4, "start": 5}
	names := make([]string, 0, len(pkg.Scripts))
	for n := range pkg.Scripts {
		if strings.TrimSpace(n) == n && n != "" && !strings.ContainsAny(n, "`\n") {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank[names[i]], rank[names[j]]
		if ri == 0 {
			ri = 100
		}
		if rj == 0 {
			rj = 100
		}
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names[:min(len(names), 8)]
}

var makeTarget = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:([^=]|$)`)

// makeTargets lists the explicit targets of root/Makefile in file order,
// at most eight.
func makeTargets(root string) []string {
	data := readHead(filepath.Join(root, "Makefile"))
	if data == nil {
		data = readHead(filepath.Join(root, "GNUmakefile"))
	}
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() && len(out) < 8 {
		m := makeTarget.FindStringSubmatch(sc.Text())
		if m == nil || seen[m[1]] || strings.Contains(m[1], "%") {
			continue
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	return out
}
