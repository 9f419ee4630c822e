// Package gitconfig reads git configuration files the way git reads them
// and says which settings make git run a program.
//
// The files are parsed by git itself (`git config --list --null
// --includes`), not by a parser of wisp's own: git's syntax has many
// corners (a key on the section line, quoted values and escapes,
// backslash continuations, the old [section.subsection] form, case rules,
// includes with conditions and a depth limit), and every place where a
// second parser reads a file differently from git is a setting that slips
// past. `git config --list` runs no program whatever the file says: it
// neither pages, nor runs fsmonitor, filters, editors or credential
// helpers. git runs with no system or global configuration, an empty HOME
// and working folder, and no pager.
//
// The package runs git for nothing but listing configuration, and never
// a git found inside the folder it is asked to guard.
package gitconfig

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Entry is one setting as git lists it: the key with section and name
// lower-cased (a subsection keeps its case), the file it came from.
type Entry struct {
	Origin string
	Key    string
	Value  string
	// NoValue marks a key written without "=" (boolean true).
	NoValue bool
}

// listTimeout bounds one git run; listing a config file takes
// milliseconds.
const listTimeout = 10 * time.Second

// maxOutput bounds what one listing may print.
const maxOutput = 8 << 20

// FindGit returns the git program on PATH, unless it lies inside one of
// the given folders (a command there could have planted it) or is given
// by a relative PATH entry.
func FindGit(untrusted ...string) (string, bool) {
	p, err := exec.LookPath("git")
	if err != nil || !filepath.IsAbs(p) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	for _, u := range untrusted {
		if u == "" {
			continue
		}
		if r, err := filepath.EvalSymlinks(u); err == nil {
			u = r
		}
		if inside(real, u) || inside(p, u) {
			return "", false
		}
	}
	return p, true
}

func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// List runs git's parser over one configuration file and its includes.
// A file git cannot parse is an error (git would refuse to run with it).
func List(ctx context.Context, git, file string) ([]Entry, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("list git config %s: %w", file, err)
	}
	empty, err := os.MkdirTemp("", "wisp-gitconfig-")
	if err != nil {
		return nil, fmt.Errorf("list git config %s: %w", file, err)
	}
	defer os.RemoveAll(empty)
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, git, "--no-pager", "config", "--file", abs, "--list", "--null", "--includes", "--show-origin")
	cmd.Dir = empty
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + empty, "XDG_CONFIG_HOME=" + empty,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(empty),
		"GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
	}
	var out, errb limitedBuffer
	out.max, errb.max = maxOutput, 4096
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("list git config %s: %w: %s", file, err, strings.TrimSpace(errb.String()))
	}
	if out.over {
		return nil, fmt.Errorf("list git config %s: more than %d bytes of settings", file, maxOutput)
	}
	return ParseList(out.Bytes())
}

// limitedBuffer keeps at most max bytes and notes that more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// ParseList reads the output of `git config --list --null --show-origin`:
// records "ORIGIN\0KEY\nVALUE\0", or "ORIGIN\0KEY\0" for a key without a
// value.
func ParseList(out []byte) ([]Entry, error) {
	var entries []Entry
	for len(out) > 0 {
		origin, rest, ok := bytes.Cut(out, []byte{0})
		if !ok {
			return nil, errors.New("git config listing: origin without a key")
		}
		rec, rest, ok := bytes.Cut(rest, []byte{0})
		if !ok {
			return nil, errors.New("git config listing: record without its end")
		}
		out = rest
		e := Entry{Origin: strings.TrimPrefix(string(origin), "file:")}
		key, val, hasVal := bytes.Cut(rec, []byte{'\n'})
		e.Key, e.Value, e.NoValue = string(key), string(val), !hasVal
		if e.Key == "" {
			return nil, errors.New("git config listing: empty key")
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// Split takes a listed key apart: section and name (lower case) and the
// subsection between them (its case kept, dots allowed).
func Split(key string) (section, sub, name string) {
	first := strings.IndexByte(key, '.')
	last := strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key), "", ""
	}
	section, name = strings.ToLower(key[:first]), strings.ToLower(key[last+1:])
	if last > first {
		sub = key[first+1 : last]
	}
	return section, sub, name
}

// anyKey are sections every key of which names a program, a program's
// arguments or where programs come from.
var anyKey = []string{
	"alias",      // "!cmd" runs a shell; any other alias can pass -c settings
	"pager",      // pager.<cmd> is a pager program
	"filter",     // clean, smudge, process
	"gpg",        // program, <format>.program, ssh.defaultKeyCommand
	"hook",       // hook.<name>.command
	"include",    // path: more configuration
	"includeif",  // <cond>.path: more configuration
	"protocol",   // allow: ext:: runs commands
	"difftool",   // <tool>.cmd, <tool>.path
	"mergetool",  // <tool>.cmd, <tool>.path
	"guitool",    // <tool>.cmd
	"instaweb",   // httpd, browser
	"credential", // helper, <url>.helper
	"browser",    // <tool>.cmd, <tool>.path
	"man",        // viewer, <tool>.cmd, <tool>.path
	"tar",        // <format>.command
	"trailer",    // <token>.command, <token>.cmd
	"sendemail",  // sendmailCmd, toCmd, ccCmd, smtpServer (a program path)
	"uploadpack", // packObjectsHook
}

// sectionKeys are single keys of other sections (section.name, no
// subsection) that name a program.
var sectionKeys = []string{
	"core.fsmonitor", "core.hookspath", "core.sshcommand", "core.pager",
	"core.editor", "core.askpass", "core.gitproxy", "core.alternaterefscommand",
	"diff.external", "diff.tool", "diff.guitool", "merge.tool", "merge.guitool",
	"interactive.difffilter", "sequence.editor", "web.browser",
}

// subKeys are section.*.name keys that name a program.
var subKeys = []string{
	"diff.*.textconv", "diff.*.command",
	"merge.*.driver",
	"remote.*.uploadpack", "remote.*.receivepack", "remote.*.vcs",
	"submodule.*.update", "url.*.insteadof", "url.*.pushinsteadof",
}

// RunsProgram reports whether git runs a program named by this key (or
// reads more configuration from it). url.*.insteadOf and remote.*.vcs are
// listed too: they turn an ordinary remote into a transport or remote
// helper that runs a program, and no ordinary git command writes them.
func RunsProgram(key string) bool {
	section, sub, name := Split(key)
	if slices.Contains(anyKey, section) {
		return true
	}
	if sub == "" {
		return slices.Contains(sectionKeys, section+"."+name)
	}
	return slices.Contains(subKeys, section+".*."+name)
}

// Programs returns the settings of entries that make git run a program,
// as sorted "key=value" lines: two files run the same programs when
// their Programs are equal.
func Programs(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		if !RunsProgram(e.Key) {
			continue
		}
		v := e.Key + "=" + e.Value
		if e.NoValue {
			v = e.Key
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Includes returns the files entries pull in (include.path and
// includeIf.*.path), resolved as git resolves them: ~/ against home,
// relative paths against the folder of the file that names them.
func Includes(entries []Entry, home string) []string {
	var out []string
	for _, e := range entries {
		section, _, name := Split(e.Key)
		if (section != "include" && section != "includeif") || name != "path" || e.Value == "" {
			continue
		}
		p := e.Value
		switch {
		case strings.HasPrefix(p, "~/") && home != "":
			p = filepath.Join(home, p[2:])
		case !filepath.IsAbs(p) && e.Origin != "":
			p = filepath.Join(filepath.Dir(e.Origin), p)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
