package skills

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/workspace"
)

// env is a home, wisp's home and a project, all in temporary folders.
type env struct {
	home, wispHome, project string
}

func newEnv(t *testing.T) env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := env{home: filepath.Join(base, "home"), project: filepath.Join(base, "proj")}
	e.wispHome = filepath.Join(e.home, ".wisp")
	t.Setenv("HOME", e.home)
	t.Setenv("WISP_HOME", e.wispHome)
	for _, d := range []string{e.wispHome, e.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// at maps "P/..." to the project, "W/..." to wisp's home, "H/..." to home.
func (e env) at(p string) string {
	switch {
	case strings.HasPrefix(p, "P/"):
		return filepath.Join(e.project, p[2:])
	case strings.HasPrefix(p, "W/"):
		return filepath.Join(e.wispHome, p[2:])
	case strings.HasPrefix(p, "H/"):
		return filepath.Join(e.home, p[2:])
	}
	return p
}

func (e env) write(t testing.TB, p, text string) {
	t.Helper()
	abs := e.at(p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e env) link(t *testing.T, target, p string) {
	t.Helper()
	abs := e.at(p)
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(e.at(target), abs); err != nil {
		t.Skip("no symlinks:", err)
	}
}

// skill writes a valid skill named after its folder.
func (e env) skill(t testing.TB, dir, desc string) {
	t.Helper()
	e.write(t, dir+"/SKILL.md", fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# %s\n\nBody of %s.\n", filepath.Base(dir), desc, filepath.Base(dir), dir))
}

func (e env) options(trusted bool) Options {
	return Options{
		Project: e.project, Trusted: trusted, Home: e.home, WispHome: e.wispHome,
		Protected: workspace.NewProtection(e.home, nil, e.wispHome).Match,
	}
}

func TestDiscoverPrecedence(t *testing.T) {
	e := newEnv(t)
	e.skill(t, "P/.wisp/skills/deploy", "project wisp")
	e.skill(t, "P/.agents/skills/deploy", "project agents")
	e.skill(t, "P/.agents/skills/lint", "project agents lint")
	e.skill(t, "W/skills/deploy", "user wisp")
	e.skill(t, "W/skills/lint", "user wisp lint")
	e.skill(t, "W/skills/review", "user wisp review")
	e.skill(t, "H/.agents/skills/review", "user agents review")
	e.skill(t, "H/.agents/skills/write-docs", "user agents docs")
	tests := []struct {
		name    string
		trusted bool
		want    []string
	}{
		{name: "trusted", trusted: true, want: []string{
			"deploy|.wisp/skills|project wisp",
			"lint|.agents/skills|project agents lint",
			"review|~/.wisp/skills|user wisp review",
			"write-docs|~/.agents/skills|user agents docs",
		}},
		{name: "untrusted skips the project", trusted: false, want: []string{
			"deploy|~/.wisp/skills|user wisp",
			"lint|~/.wisp/skills|user wisp lint",
			"review|~/.wisp/skills|user wisp review",
			"write-docs|~/.agents/skills|user agents docs",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat, warns := Discover(e.options(tc.trusted))
			if len(warns) > 0 {
				t.Fatalf("warnings %q", warns)
			}
			var got []string
			for _, s := range cat.Skills {
				got = append(got, s.Name+"|"+s.Source+"|"+s.Description)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			var out bytes.Buffer
			if err := List(&cat, &out); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), "not trusted") == tc.trusted {
				t.Fatalf("list:\n%s", out.String())
			}
		})
	}
}

func TestDiscoverSkips(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, e env)
		want     []string // names found
		warnHas  string   // "" means no warnings
		trusted  bool
		noSkills bool
	}{
		{
			name: "name differs from folder",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/deploy/SKILL.md", "---\nname: ship\ndescription: d\n---\nbody")
			},
			warnHas: `name "ship" differs from the folder name "deploy"`,
		},
		{
			name: "upper-case name",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/Deploy/SKILL.md", "---\nname: Deploy\ndescription: d\n---\n")
			},
			warnHas: "lowercase",
		},
		{
			name: "name too long",
			setup: func(t *testing.T, e env) {
				n := strings.Repeat("a", 65)
				e.write(t, "W/skills/"+n+"/SKILL.md", "---\nname: "+n+"\ndescription: d\n---\n")
			},
			warnHas: "over 64",
		},
		{
			name: "name of 64 is fine",
			setup: func(t *testing.T, e env) {
				e.skill(t, "W/skills/"+strings.Repeat("a", 64), "d")
			},
			want: []string{strings.Repeat("a", 64)},
		},
		{
			name: "double hyphen",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/a--b/SKILL.md", "---\nname: a--b\ndescription: d\n---\n")
			},
			warnHas: "hyphen",
		},
		{
			name: "description missing",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/x/SKILL.md", "---\nname: x\n---\n")
			},
			warnHas: "description is missing",
		},
		{
			name: "description too long",
			setup: func(t *testing.T, e env) {
				e.skill(t, "W/skills/x", strings.Repeat("d", 1025))
			},
			warnHas: "over 1024",
		},
		{
			name: "no front matter",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/x/SKILL.md", "# x\n")
			},
			warnHas: "does not start with a ---",
		},
		{
			name: "bad yaml",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/x/SKILL.md", "---\nname: [x\n---\n")
			},
			warnHas: "front matter",
		},
		{
			name: "no SKILL.md",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/x/README.md", "hi")
			},
			warnHas: "SKILL.md does not exist",
		},
		{
			name: "files and hidden folders ignored",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/README.md", "hi")
				e.write(t, "W/skills/.cache/SKILL.md", "junk")
				e.skill(t, "W/skills/ok", "d")
			},
			want: []string{"ok"},
		},
		{
			name: "valid skill survives an invalid neighbour",
			setup: func(t *testing.T, e env) {
				e.write(t, "W/skills/bad/SKILL.md", "nope")
				e.skill(t, "W/skills/good", "d")
			},
			want:    []string{"good"},
			warnHas: "~/.wisp/skills/bad skipped",
		},
		{
			name: "symlinked skill folder in the project",
			setup: func(t *testing.T, e env) {
				e.skill(t, "H/elsewhere/x", "d")
				e.link(t, "H/elsewhere/x", "P/.wisp/skills/x")
			},
			trusted: true,
			warnHas: ".wisp/skills/x skipped: it is a symbolic link",
		},
		{
			name: "symlinked skills folder in the project",
			setup: func(t *testing.T, e env) {
				e.skill(t, "H/elsewhere/x", "d")
				e.link(t, "H/elsewhere", "P/.agents/skills")
			},
			trusted: true,
			warnHas: "is a symbolic link",
		},
		{
			name: "symlinked .wisp in the project",
			setup: func(t *testing.T, e env) {
				e.skill(t, "H/elsewhere/skills/x", "d")
				e.link(t, "H/elsewhere", "P/.wisp")
			},
			trusted: true,
			warnHas: "is a symbolic link",
		},
		{
			name: "symlinked SKILL.md in the project",
			setup: func(t *testing.T, e env) {
				e.skill(t, "H/elsewhere/x", "d")
				e.link(t, "H/elsewhere/x/SKILL.md", "P/.wisp/skills/x/SKILL.md")
			},
			trusted: true,
			warnHas: "is a symbolic link",
		},
		{
			name: "the user may link a skill folder in",
			setup: func(t *testing.T, e env) {
				e.skill(t, "H/shared/x", "d")
				e.link(t, "H/shared/x", "H/.agents/skills/x")
			},
			want: []string{"x"},
		},
		{
			name: "the user's whole skills folder may be a link",
			setup: func(t *testing.T, e env) {
				e.skill(t, "H/dotfiles/skills/x", "d")
				e.link(t, "H/dotfiles/skills", "W/skills")
			},
			want: []string{"x"},
		},
		{
			name: "protected SKILL.md folder",
			setup: func(t *testing.T, e env) {
				e.skill(t, "P/.wisp/skills/x", "d")
				// A project skill inside a protected folder name.
				e.write(t, "P/.agents/skills/id_rsa/SKILL.md", "---\nname: id_rsa\ndescription: d\n---\n")
			},
			trusted: true,
			want:    []string{"x"},
			warnHas: "protected",
		},
		{
			name: "untrusted project skills are not read at all",
			setup: func(t *testing.T, e env) {
				e.write(t, "P/.wisp/skills/x/SKILL.md", "broken")
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.setup(t, e)
			cat, warns := Discover(e.options(tc.trusted))
			var got []string
			for _, s := range cat.Skills {
				got = append(got, s.Name)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("skills %q, want %q (warnings %q)", got, tc.want, warns)
			}
			all := strings.Join(warns, "\n")
			if tc.warnHas == "" && all != "" || !strings.Contains(all, tc.warnHas) {
				t.Fatalf("warnings %q, want %q", all, tc.warnHas)
			}
		})
	}
}

func TestRead(t *testing.T) {
	e := newEnv(t)
	body := "# Deploy\n\nRun scripts/deploy.sh.\n"
	e.write(t, "P/.wisp/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: ship it\nlicense: MIT\n---\n\n"+body)
	e.write(t, "P/.wisp/skills/deploy/scripts/deploy.sh", "#!/bin/sh\necho deploy\n")
	e.write(t, "P/.wisp/skills/deploy/reference.md", "ref\n")
	e.write(t, "P/.wisp/skills/deploy/.env", "SECRET=1\n")
	e.write(t, "P/.wisp/skills/deploy/keys/server.pem", "-----BEGIN\n")
	e.write(t, "P/.wisp/skills/deploy/logo.png", "\x89PNG\x00\x00")
	e.write(t, "P/.wisp/skills/deploy/big.txt", strings.Repeat("é", 40<<10))
	e.write(t, "P/secret.txt", "project secret\n")
	e.write(t, "H/.ssh/id_ed25519", "key\n")
	e.link(t, "P/secret.txt", "P/.wisp/skills/deploy/link.txt")
	e.link(t, "P/.wisp/skills/deploy/scripts", "P/.wisp/skills/deploy/scripts-link")
	e.skill(t, "W/skills/mine", "user skill")
	e.write(t, "W/skills/mine/notes.md", "user notes\n")
	e.write(t, "W/skills/mine/.env", "SECRET=2\n")
	cat, warns := Discover(e.options(true))
	if len(warns) > 0 || len(cat.Skills) != 2 {
		t.Fatalf("skills %v, warnings %q", cat.Skills, warns)
	}
	tests := []struct {
		name, skill, file string
		want              string // exact
		has               []string
		hasNot            []string
		errHas            string
	}{
		{name: "SKILL.md body", skill: "deploy", has: []string{body, "Files in this skill", "- scripts/deploy.sh\n", "- reference.md\n"},
			hasNot: []string{"license: MIT", "name: deploy", ".env", "link.txt", "scripts-link", "server.pem", "- SKILL.md"}},
		{name: "resource", skill: "deploy", file: "scripts/deploy.sh", want: "#!/bin/sh\necho deploy\n"},
		{name: "resource with ./", skill: "deploy", file: "./reference.md", want: "ref\n"},
		{name: "user skill in wisp's home", skill: "mine", has: []string{"Body of W/skills/mine.", "- notes.md"}, hasNot: []string{".env"}},
		{name: "user skill resource in wisp's home", skill: "mine", file: "notes.md", want: "user notes\n"},
		{name: "protected in wisp's home", skill: "mine", file: ".env", errHas: "protected"},
		{name: "parent traversal", skill: "deploy", file: "../../../secret.txt", errHas: "must stay inside"},
		{name: "hidden traversal", skill: "deploy", file: "scripts/../../x", errHas: "must stay inside"},
		{name: "backslash traversal", skill: "deploy", file: `scripts\..\..\x`, errHas: "must stay inside"},
		{name: "absolute", skill: "deploy", file: e.at("P/secret.txt"), errHas: "relative"},
		{name: "absolute home key", skill: "deploy", file: e.at("H/.ssh/id_ed25519"), errHas: "relative"},
		{name: "symlinked file", skill: "deploy", file: "link.txt", errHas: "symbolic link"},
		{name: "through a symlinked folder", skill: "deploy", file: "scripts-link/deploy.sh", errHas: "symbolic link"},
		{name: "protected .env", skill: "deploy", file: ".env", errHas: "protected"},
		{name: "protected pem", skill: "deploy", file: "keys/server.pem", errHas: "protected"},
		{name: "binary", skill: "deploy", file: "logo.png", errHas: "not a text file"},
		{name: "folder", skill: "deploy", file: "scripts", errHas: "is a folder"},
		{name: "skill folder itself", skill: "deploy", file: ".", errHas: "skill folder itself"},
		{name: "missing", skill: "deploy", file: "nope.md", errHas: "does not exist"},
		{name: "unknown skill", skill: "nope", errHas: `no skill named "nope" (available: deploy, mine)`},
		{name: "big file cut", skill: "deploy", file: "big.txt", has: []string{"[cut at 64 KiB: " + fmt.Sprint(80<<10-(64<<10)) + " more bytes in big.txt]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cat.Read(tc.skill, tc.file)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want %q (got %q)", err, tc.errHas, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for _, h := range tc.has {
				if !strings.Contains(got, h) {
					t.Fatalf("got\n%s\nlacks %q", got, h)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(got, h) {
					t.Fatalf("got\n%s\nhas %q", got, h)
				}
			}
			if len(got) > ReadLimit+200 {
				t.Fatalf("%d bytes", len(got))
			}
			if strings.ToValidUTF8(got, "?") != got {
				t.Fatal("not valid UTF-8")
			}
		})
	}
	t.Run("skill folder replaced by a link after discovery", func(t *testing.T) {
		dir := e.at("P/.wisp/skills/deploy")
		moved := e.at("P/moved")
		if err := os.Rename(dir, moved); err != nil {
			t.Fatal(err)
		}
		defer os.Rename(moved, dir)
		if err := os.Symlink(moved, dir); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(dir)
		if _, err := cat.Read("deploy", "reference.md"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("err %v", err)
		}
	})
}

func TestReadLongBody(t *testing.T) {
	e := newEnv(t)
	e.write(t, "W/skills/long/SKILL.md", "---\nname: long\ndescription: d\n---\n"+strings.Repeat("line\n", 20<<10))
	cat, _ := Discover(e.options(false))
	got, err := cat.Read("long", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("[cut at 64 KiB: %d more bytes in SKILL.md]", 100<<10-64<<10); !strings.Contains(got, want) {
		t.Fatalf("lacks %q:\n...%s", want, got[len(got)-200:])
	}
}

func TestPrompt(t *testing.T) {
	mk := func(n int, desc string) *Catalog {
		c := &Catalog{}
		for i := range n {
			c.Skills = append(c.Skills, Skill{Name: fmt.Sprintf("skill-%03d", i), Description: desc})
		}
		return c
	}
	tests := []struct {
		name    string
		cat     *Catalog
		empty   bool
		has     []string
		hasMore bool
	}{
		{name: "none", cat: &Catalog{}, empty: true},
		{name: "nil", cat: nil, empty: true},
		{name: "few", cat: mk(2, "Deploys\n  the   app."), has: []string{"- skill-000: Deploys the app.\n", "- skill-001: Deploys the app.\n", "`skill` tool"}},
		{name: "long descriptions shortened", cat: mk(1, strings.Repeat("word ", 300)), has: []string{"…\n"}},
		{name: "many skills bounded", cat: mk(300, strings.Repeat("x", 150)), hasMore: true},
		{name: "many multibyte descriptions", cat: mk(100, strings.Repeat("é", 1000)), hasMore: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.cat.Prompt()
			if (p == "") != tc.empty {
				t.Fatalf("prompt %q", p)
			}
			if len(p) > PromptLimit {
				t.Fatalf("%d bytes, over %d", len(p), PromptLimit)
			}
			for _, h := range tc.has {
				if !strings.Contains(p, h) {
					t.Fatalf("prompt\n%s\nlacks %q", p, h)
				}
			}
			if strings.Contains(p, "more skills not listed)\n") != tc.hasMore {
				t.Fatalf("prompt tail:\n%s", p[max(0, len(p)-200):])
			}
			if strings.ToValidUTF8(p, "?") != p {
				t.Fatal("not valid UTF-8")
			}
		})
	}
}

func TestList(t *testing.T) {
	cat := &Catalog{Skills: []Skill{
		{Name: "deploy", Source: ".wisp/skills", Description: "Ship\nit."},
		{Name: "write-docs", Source: "~/.agents/skills", Description: "Docs."},
	}}
	var out bytes.Buffer
	if err := List(cat, &out); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME        SOURCE            DESCRIPTION\n" +
		"deploy      .wisp/skills      Ship it.\n" +
		"write-docs  ~/.agents/skills  Docs.\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	empty := &Catalog{searched: []string{"~/.wisp/skills", "~/.agents/skills"}}
	if err := List(empty, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "no skills found (looked in ~/.wisp/skills, ~/.agents/skills)\n" {
		t.Fatalf("got %q", out.String())
	}
}
