package rules

import (
	"strings"
	"testing"
)

func TestParseCommandsBuiltIn(t *testing.T) {
	c, err := ParseCommands(commandsText)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Examples()) < 200 {
		t.Fatalf("only %d examples", len(c.Examples()))
	}
	for name, want := range map[string]Command{
		"shred":     {Level: "dangerous", Why: "destroys file contents beyond recovery"},
		"git":       {Judge: "git"},
		":":         {Judge: "print", Why: "does nothing"},
		"mkfs.ext4": {Judge: "disk"},
	} {
		got, ok := c.Lookup(name)
		got.Verbs = nil
		if !ok || got != want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	if _, ok := c.Lookup("frobnicate"); ok {
		t.Error("an unknown program has an entry")
	}
}

func TestParseCommandsRefuses(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"no example", "moderate make : builds\n", "has no example"},
		{"no example before next", "moderate make : builds\nmoderate cmake : builds\nexample moderate cmake\n", "has no example"},
		{"twice", "moderate a : x\nexample moderate a\nmoderate a : y\nexample moderate a\n", "twice"},
		{"level without why", "moderate a\nexample moderate a\n", "want LEVEL"},
		{"bad level", "risky a : x\nexample moderate a\n", "want LEVEL"},
		{"bad example level", "moderate a : x\nexample risky a\n", "want example"},
		{"example first", "example safe ls\n", "want example"},
		{"judge without names", "judge git\nexample safe git status\n", "want LEVEL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCommands(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestGitKeys(t *testing.T) {
	if _, err := ParseGitKeys(gitKeysText); err != nil {
		t.Fatal(err)
	}
	bad := []struct{ name, text string }{
		{"example disagrees", "shows color.\nexample runs color.ui"},
		{"unknown keyword", "hides x\nexample changes y"},
		{"no examples", "shows color."},
		{"example without key", "shows color.\nexample shows"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseGitKeys(tc.text); err == nil {
				t.Errorf("ParseGitKeys accepted %q", tc.text)
			}
		})
	}
	g := DefaultGitKeys()
	for key, want := range map[string]string{
		"diff.command": GitKeyRuns, "diff.a.b.textconv": GitKeyRuns, "merge.driver": GitKeyRuns,
		"color": GitKeyChanges, "colorful.x": GitKeyChanges, "core.pager": GitKeyRuns,
	} {
		if got := g.Judge(key); got != want {
			t.Errorf("Judge(%q) = %s, want %s", key, got, want)
		}
	}
}

func TestVerbLines(t *testing.T) {
	good := "judge g g\nmoderate a b : changes\nwhen a dangerous -f --force : forces\nexample moderate g a\n"
	c, err := ParseCommands(good)
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := c.Lookup("g")
	if cmd.Verbs.Moderate["b"] != "changes" || len(cmd.Verbs.When["a"]) != 1 || cmd.Verbs.When["a"][0].Options[1] != "--force" {
		t.Errorf("verbs = %+v", cmd.Verbs)
	}
	bad := []struct{ name, text string }{
		{"moderate in a verbs entry", "verbs g : x\nmoderate a : y\nexample moderate g"},
		{"when in a verbs entry", "verbs g : x\nwhen a dangerous -f : y\nexample moderate g"},
		{"when without options", "judge g g\nwhen a dangerous : y\nexample moderate g"},
		{"when with a bad level", "judge g g\nwhen a awful -f : y\nexample moderate g"},
		{"verb twice", "judge g g\nmoderate a : x\ndangerous a : y\nexample moderate g"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseCommands(tc.text); err == nil {
				t.Errorf("ParseCommands accepted %q", tc.text)
			}
		})
	}
}

func TestWordLines(t *testing.T) {
	good := "judge words g\non-unknown dangerous : unknown\non safe -l --list* : lists\nelse moderate : changes\nexample moderate g x\n"
	c, err := ParseCommands(good)
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := c.Lookup("g")
	v := cmd.Verbs
	if v.Else.Level != "moderate" || len(v.Words) != 2 {
		t.Fatalf("verbs = %+v", v)
	}
	cases := []struct {
		known bool
		val   string
		want  [2]bool // matches the on-unknown line, the on line
	}{
		{false, "$x", [2]bool{true, false}},
		{true, "-l", [2]bool{false, true}},
		{true, "--list-all", [2]bool{false, true}},
		{true, "-L", [2]bool{false, false}},
	}
	for _, tc := range cases {
		got := [2]bool{v.Words[0].Matches(tc.known, tc.val), v.Words[1].Matches(tc.known, tc.val)}
		if got != tc.want {
			t.Errorf("%q (known %v) matches %v, want %v", tc.val, tc.known, got, tc.want)
		}
	}
	bad := []struct{ name, text string }{
		{"on without words", "judge words g\non safe : x\nexample moderate g"},
		{"on-unknown with words", "judge words g\non-unknown safe -l : x\nexample moderate g"},
		{"else twice", "judge words g\nelse safe : x\nelse moderate : y\nexample moderate g"},
		{"else without why", "judge words g\nelse safe\nexample moderate g"},
		{"on in a verbs entry", "verbs g : x\non safe -l : y\nexample moderate g"},
		{"bad level", "judge words g\non fine -l : y\nexample moderate g"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseCommands(tc.text); err == nil {
				t.Errorf("ParseCommands accepted %q", tc.text)
			}
		})
	}
}
