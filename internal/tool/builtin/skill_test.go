package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/skills"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/workspace"
)

func TestSkillTool(t *testing.T) {
	home := t.TempDir()
	wispHome := filepath.Join(home, ".wisp")
	t.Setenv("HOME", home)
	t.Setenv("WISP_HOME", wispHome)
	files := map[string]string{
		"skills/deploy/SKILL.md":      "---\nname: deploy\ndescription: Ship the app.\n---\n\nRun scripts/go.sh.\n",
		"skills/deploy/scripts/go.sh": "echo go\n",
		"skills/deploy/.env":          "SECRET=1\n",
		"skills/deploy/data/blob.bin": "\x00\x01",
	}
	for name, text := range files {
		p := filepath.Join(wispHome, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	protect := workspace.NewProtection(home, nil, wispHome)
	cat, warns := skills.Discover(skills.Options{Home: home, WispHome: wispHome, Protected: protect.Match})
	if len(warns) > 0 || len(cat.Skills) != 1 {
		t.Fatalf("skills %v, warnings %q", cat.Skills, warns)
	}
	tl := Skill(&cat)
	if spec := tl.Spec(); spec.Name != "skill" || spec.Class != tool.Read || !json.Valid(spec.Schema) || spec.Description == "" {
		t.Fatalf("spec %+v", spec)
	}
	tests := []struct {
		name   string
		args   string
		has    []string
		hasNot []string
		isErr  bool
	}{
		{name: "instructions", args: `{"name":"deploy"}`, has: []string{"Skill deploy (folder ", "Run scripts/go.sh.", "- scripts/go.sh"}, hasNot: []string{"description:", ".env"}},
		{name: "resource", args: `{"name":"deploy","file":"scripts/go.sh"}`, has: []string{"echo go"}},
		{name: "protected", args: `{"name":"deploy","file":".env"}`, has: []string{"protected"}, hasNot: []string{"SECRET"}, isErr: true},
		{name: "traversal", args: `{"name":"deploy","file":"../../settings.json"}`, has: []string{"inside the skill folder"}, isErr: true},
		{name: "absolute", args: `{"name":"deploy","file":"/etc/passwd"}`, has: []string{"relative"}, isErr: true},
		{name: "binary", args: `{"name":"deploy","file":"data/blob.bin"}`, has: []string{"not a text file"}, isErr: true},
		{name: "unknown", args: `{"name":"nope"}`, has: []string{`no skill named "nope"`}, isErr: true},
		{name: "no name", args: `{}`, has: []string{"name is required"}, isErr: true},
		{name: "bad type", args: `{"name":3}`, has: []string{"invalid arguments"}, isErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tl.Run(context.Background(), &tool.Env{Workdir: t.TempDir(), Protected: protect.Match}, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tc.isErr {
				t.Fatalf("IsError %v: %s", res.IsError, res.Content)
			}
			for _, h := range tc.has {
				if !strings.Contains(res.Content, h) {
					t.Fatalf("content\n%s\nlacks %q", res.Content, h)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(res.Content, h) {
					t.Fatalf("content\n%s\nhas %q", res.Content, h)
				}
			}
		})
	}
	t.Run("no catalogue", func(t *testing.T) {
		res, err := Skill(nil).Run(context.Background(), &tool.Env{}, json.RawMessage(`{"name":"x"}`))
		if err != nil || !res.IsError {
			t.Fatalf("%+v %v", res, err)
		}
	})
}
