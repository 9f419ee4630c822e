package project

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/wisp-agent/wisp/internal/trust"
)

// ContextBudget bounds the text of all context files together.
const ContextBudget = 32 << 10

// UserContextName is how the user's own context file is shown.
const UserContextName = "~/.wisp/AGENTS.md"

// contextNames are the names a folder's context file may have, best
// first; a folder contributes only the first that is a regular file.
var contextNames = []string{"AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// ContextOptions say where to look for context files.
type ContextOptions struct {
	// WispHome holds the user's own AGENTS.md, loaded in every project.
	WispHome string
	// Root is the project root (default: trust.ProjectRoot(Cwd)); Cwd is where
	// wisp runs. Folders from Root down to Cwd are searched.
	Root, Cwd string
	// Trusted allows the project's files; without it only the user's
	// file loads.
	Trusted bool
	// Protected tells whether an absolute path is a protected secret
	// (nil: none). The user's own file is not asked about: wisp's home is
	// protected from the model's tools, not from wisp.
	Protected func(abs string) bool
}

// ContextFile is one loaded file.
type ContextFile struct {
	// Path is the file as the prompt shows it: relative to the project
	// root, or UserContextName.
	Path string
	// Abs is its absolute path.
	Abs  string
	Text string
}

// Context is what the context files add to the system prompt.
type Context struct {
	Files []ContextFile
	// Note says what the budget cut off, or is empty.
	Note string
	// Warnings name files that were skipped and why.
	Warnings []string
}

// LoadContext reads the user's ~/.wisp/AGENTS.md and, in a trusted
// project, the context file of every folder from the project root down
// to cwd, parents first. Symbolic links are skipped (a project could
// point one at a secret), as are protected and binary files. All text
// together stays within ContextBudget; what does not fit is named in Note.
func LoadContext(o ContextOptions) Context {
	var (
		c     Context
		left  = ContextBudget
		cutN  int64
		cutIn []string
	)
	add := func(shown, abs string, followLink bool) bool {
		text, size, warn, ok := readContextFile(abs, followLink, left)
		if warn != "" {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s skipped: %s", shown, warn))
		}
		if !ok {
			return false
		}
		if len(text) > 0 {
			c.Files = append(c.Files, ContextFile{Path: shown, Abs: abs, Text: text})
		}
		left -= len(text)
		if rest := size - int64(len(text)); rest > 0 {
			// Past the first cut nothing more goes in, not even a
			// stray byte of the next file.
			left = 0
			cutN += rest
			cutIn = append(cutIn, shown)
		}
		return true
	}
	if o.WispHome != "" {
		// The user's own file may be a link into their dotfiles.
		add(UserContextName, filepath.Join(o.WispHome, "AGENTS.md"), true)
	}
	if o.Trusted && (o.Cwd != "" || o.Root != "") {
		cwd := trust.Key(o.Cwd)
		if o.Cwd == "" {
			cwd = trust.Key(o.Root)
		}
		root := trust.ProjectRoot(cwd)
		if o.Root != "" {
			root = trust.Key(o.Root)
		}
		for _, dir := range foldersDown(root, cwd) {
			for _, name := range contextNames {
				abs := filepath.Join(dir, name)
				shown := relShown(root, abs)
				if o.Protected != nil && o.Protected(abs) {
					if _, err := os.Lstat(abs); err == nil {
						c.Warnings = append(c.Warnings, shown+" skipped: it is a protected path")
					}
					continue
				}
				if add(shown, abs, false) {
					break
				}
			}
		}
	}
	if cutN > 0 {
		c.Note = fmt.Sprintf("[context cut at 32 KiB: %d more bytes in %s]", cutN, strings.Join(cutIn, ", "))
	}
	return c
}

// foldersDown lists root and each folder below it down to cwd. A cwd
// outside root gives root alone.
func foldersDown(root, cwd string) []string {
	dirs := []string{root}
	rel, err := filepath.Rel(root, cwd)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dirs
	}
	dir := root
	for _, e := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, e)
		dirs = append(dirs, dir)
	}
	return dirs
}

func relShown(root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil {
		return filepath.ToSlash(rel)
	}
	return abs
}

// readContextFile reads at most limit bytes of the file at abs. ok is
// false when there is no usable file (none, a folder, a link, binary);
// warn says why when the user should know. size is the whole file's size.
func readContextFile(abs string, followLink bool, limit int) (text string, size int64, warn string, ok bool) {
	lfi, err := os.Lstat(abs)
	switch {
	case err != nil:
		if os.IsNotExist(err) {
			return "", 0, "", false
		}
		return "", 0, err.Error(), false
	case lfi.Mode()&os.ModeSymlink != 0 && !followLink:
		return "", 0, "it is a symbolic link", false
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", 0, err.Error(), false
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", 0, err.Error(), false
	case !fi.Mode().IsRegular():
		return "", 0, "", false
	case !followLink && !os.SameFile(lfi, fi):
		// Replaced by something else between the look and the open.
		return "", 0, "it changed while being read", false
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max(limit, 0))))
	if err != nil {
		return "", 0, err.Error(), false
	}
	if strings.IndexByte(string(data), 0) >= 0 {
		return "", 0, "it is not a text file", false
	}
	if int64(len(data)) < fi.Size() {
		data = wholeRunes(data)
	}
	return string(data), max(fi.Size(), int64(len(data))), "", true
}

// Render formats the context files for the system prompt, each under a
// heading naming it; empty when there are none.
func (c Context) Render() string {
	if len(c.Files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Context files\n\nInstructions from the user's and the project's context files. Files from deeper folders are more specific and take precedence over their parents.\n")
	for _, f := range c.Files {
		fmt.Fprintf(&b, "\n## %s\n\n%s", f.Path, strings.TrimRight(f.Text, "\n"))
		b.WriteString("\n")
	}
	if c.Note != "" {
		b.WriteString("\n" + c.Note + "\n")
	}
	return b.String()
}

// wholeRunes drops a rune cut in half at the end of data, so that a cut
// text stays valid UTF-8.
func wholeRunes(data []byte) []byte {
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				return data[:i]
			}
			break
		}
	}
	return data
}
