// Package skills finds Agent Skills (folders holding a SKILL.md with a
// name and a description) in the project and the user's folders, offers
// their names and descriptions to the model, and reads one skill's
// instructions or files on request.
//
// It must never read a project's skills unless the caller says the
// project is trusted, never follow a symbolic link out of a skill
// folder, and never hand the model a protected file.
package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	// skillFile is the file that makes a folder a skill.
	skillFile = "SKILL.md"
	// maxPerSource bounds how many skills one folder may offer.
	maxPerSource = 200
	// headBytes is how much of a SKILL.md discovery reads for its
	// front matter.
	headBytes = maxFrontMatter + 4<<10
)

// Options say where to look for skills.
type Options struct {
	// Project is the project root; its .wisp/skills and .agents/skills
	// are read only when Trusted.
	Project string
	Trusted bool
	// Home is the user's home (for ~/.agents/skills); WispHome is wisp's
	// (for ~/.wisp/skills).
	Home, WispHome string
	// Protected tells whether an absolute path is a protected secret
	// (nil: none). Files in WispHome are judged by their path inside it:
	// wisp's home is protected from the model's file tools, not from the
	// skills the user keeps there.
	Protected func(abs string) bool
}

// Skill is one discovered skill.
type Skill struct {
	Name        string
	Description string
	// Dir is the skill's folder, links resolved for user skills.
	Dir string
	// Source is the skills folder it came from, as shown to the user
	// (".wisp/skills", "~/.agents/skills", ...).
	Source string
	// top is the folder below which no path element may be a link: the
	// project root for project skills, Dir for the user's (who may link
	// a skill folder in from elsewhere).
	top string
}

// Catalog is the skills available to a session.
type Catalog struct {
	// Skills are sorted by name; on a name clash the first source in
	// precedence order won.
	Skills []Skill

	protected func(string) bool
	wispHome  string // resolved
	searched  []string
	// untrusted is set when the project has skills that were not read
	// because it is not trusted.
	untrusted bool
}

type source struct {
	dir, label string
	project    bool
}

// Discover finds the skills in, by precedence, <project>/.wisp/skills and
// <project>/.agents/skills (trusted projects only), ~/.wisp/skills and
// ~/.agents/skills. An invalid skill is skipped with a warning; a missing
// folder is no warning.
func Discover(o Options) (Catalog, []string) {
	c := Catalog{protected: o.Protected, wispHome: resolved(o.WispHome)}
	var warns []string
	var srcs []source
	project := resolved(o.Project)
	if project != "" && o.Trusted {
		srcs = append(srcs,
			source{filepath.Join(project, ".wisp", "skills"), ".wisp/skills", true},
			source{filepath.Join(project, ".agents", "skills"), ".agents/skills", true})
	}
	if project != "" && !o.Trusted {
		for _, d := range []string{".wisp/skills", ".agents/skills"} {
			if _, err := os.Lstat(filepath.Join(project, filepath.FromSlash(d))); err == nil {
				c.untrusted = true
			}
		}
	}
	if o.WispHome != "" {
		srcs = append(srcs, source{dir: filepath.Join(o.WispHome, "skills"), label: pretty(o.Home, filepath.Join(o.WispHome, "skills"))})
	}
	if o.Home != "" {
		srcs = append(srcs, source{dir: filepath.Join(o.Home, ".agents", "skills"), label: "~/.agents/skills"})
	}
	seen := map[string]bool{}
	for _, src := range srcs {
		c.searched = append(c.searched, src.label)
		found, w := c.scan(src, project)
		warns = append(warns, w...)
		for _, s := range found {
			if !seen[s.Name] {
				seen[s.Name] = true
				c.Skills = append(c.Skills, s)
			}
		}
	}
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].Name < c.Skills[j].Name })
	return c, warns
}

// scan reads one skills folder.
func (c *Catalog) scan(src source, project string) ([]Skill, []string) {
	dir := src.dir
	if src.project {
		// A project may not point its skills folder elsewhere.
		if err := noLinks(project, dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return nil, []string{fmt.Sprintf("%s skipped: %v", src.label, err)}
		}
	} else {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return nil, nil
		}
		dir = real
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, []string{fmt.Sprintf("%s skipped: %v", src.label, err)}
	}
	var out []Skill
	var warns []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if len(out) == maxPerSource {
			warns = append(warns, fmt.Sprintf("%s: more than %d skills; the rest skipped", src.label, maxPerSource))
			break
		}
		shown := src.label + "/" + name
		s := Skill{Source: src.label, Dir: filepath.Join(dir, name)}
		switch {
		case e.Type()&os.ModeSymlink != 0 && src.project:
			warns = append(warns, shown+" skipped: it is a symbolic link")
			continue
		case e.Type()&os.ModeSymlink != 0:
			real, err := filepath.EvalSymlinks(s.Dir)
			if err != nil {
				warns = append(warns, fmt.Sprintf("%s skipped: %v", shown, err))
				continue
			}
			if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
				continue
			}
			s.Dir = real
		case !e.IsDir():
			continue
		}
		s.top = s.Dir
		if src.project {
			s.top = project
		}
		fm, err := c.readHeader(s, name)
		if err != nil {
			warns = append(warns, fmt.Sprintf("%s skipped: %v", shown, err))
			continue
		}
		s.Name, s.Description = fm.Name, fm.Description
		out = append(out, s)
	}
	return out, warns
}

// readHeader reads and checks the front matter of a skill's SKILL.md;
// folder is the name the skill has in its skills folder.
func (c *Catalog) readHeader(s Skill, folder string) (FrontMatter, error) {
	data, _, err := c.readFile(s, skillFile, headBytes)
	if err != nil {
		return FrontMatter{}, err
	}
	fm, _, err := ParseFrontMatter(data)
	if err != nil {
		return FrontMatter{}, err
	}
	return fm, fm.Validate(folder)
}

// resolved is path made absolute with its links resolved, or cleaned
// when it does not exist; "" stays "".
func resolved(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// pretty shows a path under home as ~/...
func pretty(home, path string) string {
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}

// List prints the skills for `wisp skills`: name, source and description,
// aligned; or says where it looked when there are none.
func List(cat *Catalog, w io.Writer) error {
	var b strings.Builder
	if len(cat.Skills) == 0 {
		fmt.Fprintf(&b, "no skills found (looked in %s)\n", strings.Join(cat.searched, ", "))
	} else {
		nameW, srcW := len("NAME"), len("SOURCE")
		for _, s := range cat.Skills {
			nameW, srcW = max(nameW, len(s.Name)), max(srcW, len(s.Source))
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", nameW, "NAME", srcW, "SOURCE", "DESCRIPTION")
		for _, s := range cat.Skills {
			fmt.Fprintf(&b, "%-*s  %-*s  %s\n", nameW, s.Name, srcW, s.Source, oneLine(s.Description, 100))
		}
	}
	if cat.untrusted {
		b.WriteString("project skills not loaded: the project is not trusted (see wisp trust)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine folds text onto one line of at most n runes.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
