package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

const (
	// ReadLimit bounds what one Read returns.
	ReadLimit = 64 << 10
	// listLimit and listDepth bound the file list shown with a SKILL.md.
	listLimit = 50
	listDepth = 3
	// listVisits bounds the walk of a large skill folder.
	listVisits = 2000
)

// Read returns a skill's instructions: with file empty, the body of its
// SKILL.md (front matter removed) and a list of the other files in its
// folder; else the text of that file, a path relative to the skill
// folder. Paths that climb out (..), absolute paths, symbolic links
// anywhere on the way, protected paths and binary files are refused.
// At most ReadLimit bytes come back, with a note when cut.
func (c *Catalog) Read(name, file string) (string, error) {
	s, ok := c.find(name)
	if !ok {
		return "", fmt.Errorf("no skill named %q%s", name, c.known())
	}
	if file == "" {
		data, size, err := c.readFile(s, skillFile, ReadLimit+headBytes)
		if err != nil {
			return "", fmt.Errorf("skill %s: %w", name, err)
		}
		_, body, err := ParseFrontMatter(data)
		if err != nil {
			return "", fmt.Errorf("skill %s: %w", name, err)
		}
		more := size - int64(len(data))
		if len(body) > ReadLimit {
			more += int64(len(body) - ReadLimit)
			body = string(wholeRunes([]byte(body[:ReadLimit])))
		}
		var b strings.Builder
		b.WriteString(strings.TrimRight(body, "\n") + "\n")
		if more > 0 {
			fmt.Fprintf(&b, "\n[cut at 64 KiB: %d more bytes in %s]\n", more, skillFile)
		}
		if files := c.files(s); files != "" {
			b.WriteString("\n" + files)
		}
		return b.String(), nil
	}
	rel, err := cleanRel(file)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", name, err)
	}
	data, size, err := c.readFile(s, rel, ReadLimit)
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", name, err)
	}
	cut := size > int64(len(data))
	if binary(data, !cut) {
		return "", fmt.Errorf("skill %s: %s is not a text file", name, filepath.ToSlash(rel))
	}
	if !cut {
		return string(data), nil
	}
	data = wholeRunes(data)
	return fmt.Sprintf("%s\n[cut at 64 KiB: %d more bytes in %s]\n", data, size-int64(len(data)), filepath.ToSlash(rel)), nil
}

func (c *Catalog) find(name string) (Skill, bool) {
	for _, s := range c.Skills {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// known names a few skills for an error message.
func (c *Catalog) known() string {
	if len(c.Skills) == 0 {
		return " (no skills are available)"
	}
	var names []string
	for i, s := range c.Skills {
		if i == 20 {
			names = append(names, "...")
			break
		}
		names = append(names, s.Name)
	}
	return " (available: " + strings.Join(names, ", ") + ")"
}

// cleanRel checks a file argument and returns it as a clean relative
// path inside the skill folder.
func cleanRel(file string) (string, error) {
	if strings.ContainsRune(file, 0) {
		return "", errors.New("file name holds a NUL byte")
	}
	if filepath.IsAbs(file) || strings.HasPrefix(file, "/") || strings.HasPrefix(file, `\`) || filepath.VolumeName(file) != "" {
		return "", fmt.Errorf("file %q must be a path relative to the skill folder", file)
	}
	for _, e := range strings.FieldsFunc(file, func(r rune) bool { return r == '/' || r == '\\' }) {
		if e == ".." {
			return "", fmt.Errorf("file %q must stay inside the skill folder", file)
		}
	}
	rel := filepath.Clean(filepath.FromSlash(file))
	if rel == "." {
		return "", fmt.Errorf("file %q names the skill folder itself", file)
	}
	return rel, nil
}

// noLinks checks that no element of path below top is a symbolic link.
// path must be top or inside it. A missing element is an error wrapping
// fs.ErrNotExist.
func noLinks(top, path string) error {
	rel, err := filepath.Rel(top, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is outside %s", path, top)
	}
	if rel == "." {
		return nil
	}
	at := top
	for _, e := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, e)
		fi, err := os.Lstat(at)
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link", at)
		}
	}
	return nil
}

// refused reports whether abs may not be shown to the model. Files in
// wisp's home are judged by their path inside it, rooted at "/": the
// protection of the home as a whole keeps the model's own file tools
// out, but the user's skills there are meant to be read, and a protected
// name (a .env, a key) inside them is still refused.
func (c *Catalog) refused(abs string) bool {
	if c.protected == nil {
		return false
	}
	if c.wispHome != "" {
		if rel, err := filepath.Rel(c.wispHome, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return c.protected(string(filepath.Separator) + rel)
		}
	}
	return c.protected(abs)
}

// readFile reads at most limit bytes of the regular file rel inside the
// skill s, and gives its whole size.
func (c *Catalog) readFile(s Skill, rel string, limit int) ([]byte, int64, error) {
	shown := filepath.ToSlash(rel)
	abs := filepath.Join(s.Dir, rel)
	if err := noLinks(s.top, abs); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("%s does not exist", shown)
		}
		return nil, 0, fmt.Errorf("%s refused: %w", shown, err)
	}
	if c.refused(abs) {
		return nil, 0, fmt.Errorf("%s refused: it is a protected path", shown)
	}
	lfi, err := os.Lstat(abs)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", shown, err)
	}
	if lfi.IsDir() {
		return nil, 0, fmt.Errorf("%s is a folder", shown)
	}
	if !lfi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file", shown)
	}
	// The root confines the open to the skill folder even if a link
	// appears between the check and the open.
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return nil, 0, fmt.Errorf("open skill folder: %w", err)
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", shown, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", shown, err)
	}
	if !os.SameFile(lfi, fi) {
		return nil, 0, fmt.Errorf("%s refused: it changed while being read", shown)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", shown, err)
	}
	return data, max(fi.Size(), int64(len(data))), nil
}

// files lists the files of a skill other than SKILL.md, for the model to
// ask for; links, hidden and protected entries are left out.
func (c *Catalog) files(s Skill) string {
	var list []string
	more, visited := 0, 0
	_ = filepath.WalkDir(s.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == s.Dir {
			return nil
		}
		if visited++; visited > listVisits {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(s.Dir, path)
		depth := strings.Count(rel, string(filepath.Separator)) + 1
		switch {
		case strings.HasPrefix(d.Name(), "."), c.refused(path):
			if d.IsDir() {
				return filepath.SkipDir
			}
		case d.IsDir():
			if depth >= listDepth {
				return filepath.SkipDir
			}
		case !d.Type().IsRegular(), rel == skillFile:
		case len(list) == listLimit:
			more++
		default:
			list = append(list, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(list) == 0 {
		return ""
	}
	sort.Strings(list)
	var b strings.Builder
	b.WriteString("Files in this skill (read one with the skill tool's file argument):\n")
	for _, f := range list {
		b.WriteString("- " + f + "\n")
	}
	if more > 0 {
		fmt.Fprintf(&b, "- ... and %d more\n", more)
	}
	return b.String()
}

// binary reports whether data looks like something other than text: a
// NUL byte, or bytes that are not UTF-8 (a rune cut by the end of a
// partial read aside).
func binary(data []byte, whole bool) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	if !whole {
		data = wholeRunes(data)
	}
	return !utf8.Valid(data)
}

// wholeRunes drops a rune cut in half at the end of data.
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
