package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/wisp-agent/wisp/internal/skills"
	"github.com/wisp-agent/wisp/internal/tool"
)

//go:embed skill.md
var skillDescription string

var skillSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"skill name from the catalogue"},"file":{"type":"string","description":"a file in the skill folder, relative to it; omit for the instructions"}},"required":["name"],"additionalProperties":false}`)

type skillArgs struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// skillTool reads skills from a catalogue. The catalogue does its own
// confinement and protection checks: skills may live in wisp's home,
// which env.Protected refuses as a whole.
type skillTool struct{ cat *skills.Catalog }

// Skill returns the skill tool over a catalogue.
func Skill(cat *skills.Catalog) tool.Tool { return skillTool{cat: cat} }

func (skillTool) Spec() tool.Spec {
	return tool.Spec{Name: "skill", Description: strings.TrimSpace(skillDescription), Schema: skillSchema, Class: tool.Read}
}

// Describe states the limits skill enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (skillTool) Describe() (limits []string, example string) {
	return []string{"reads a skill's SKILL.md or one of its files", "no traversal, no symlinks, protected paths refused"},
		"Use the release skill to prepare a release."
}

func (s skillTool) Run(ctx context.Context, _ *tool.Env, raw json.RawMessage) (tool.Result, error) {
	var a skillArgs
	if msg := decodeFileArgs(raw, &a); msg != "" {
		return tool.Errorf("%s", msg), nil
	}
	if a.Name == "" {
		return tool.Errorf("name is required"), nil
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	if s.cat == nil {
		return tool.Errorf("no skills are available"), nil
	}
	text, err := s.cat.Read(a.Name, a.File)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if a.File == "" {
		for _, sk := range s.cat.Skills {
			if sk.Name == a.Name {
				text = "Skill " + sk.Name + " (folder " + sk.Dir + ")\n\n" + text
				break
			}
		}
	}
	return tool.Result{Content: text}, nil
}
