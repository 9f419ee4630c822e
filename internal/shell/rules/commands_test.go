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
