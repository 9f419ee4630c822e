package wisps

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/wisp-agent/wisp/internal/wisps/template"
)

var (
	stepID   = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	aliasRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	sourceRe = regexp.MustCompile(`^\{\{\s*steps\.([A-Za-z0-9_-]+)\.result((?:\.[^.{}\s]+)*)\s*\}\}$`)
)

// Validate checks everything that can be checked before a wisp runs.
// The first problem is a Structural *Error naming the step and field.
func Validate(d *Definition) error {
	seen := map[string]int{}
	for i := range d.Steps {
		st := &d.Steps[i]
		if st.ID == "" {
			return structural("#"+itoa(i+1), "id", "required")
		}
		if !stepID.MatchString(st.ID) {
			return structural(st.ID, "id", "use letters, digits, - and _ only")
		}
		low := strings.ToLower(st.ID)
		if _, dup := seen[low]; dup {
			return structural(st.ID, "id", "duplicate step id (ids are case-insensitive)")
		}
		seen[low] = i
	}
	for i := range d.Steps {
		st := &d.Steps[i]
		checks := []func(*Step) error{checkMode, checkFiles, checkOnFailure(d, i), checkForEach(seen, i)}
		for _, c := range checks {
			if err := c(st); err != nil {
				return err
			}
		}
	}
	for _, t := range d.Tools {
		if strings.TrimSpace(t) == "" {
			return structural("", "tools", "an entry is empty")
		}
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

func checkMode(st *Step) error {
	if st.TimeoutMinutes < 0 {
		return structural(st.ID, "timeout_minutes", "must not be negative")
	}
	if st.Mode == Llm {
		if strings.TrimSpace(st.Prompt) == "" {
			return structural(st.ID, "prompt", "an Llm step needs a prompt")
		}
		for _, f := range []struct{ name, v string }{{"gateway", string(st.Gateway)}, {"server", st.Server}, {"tool", st.Tool}, {"agent", st.Agent}, {"skill", st.Skill}, {"message", st.Message}, {"language", st.Language}} {
			if f.v != "" {
				return structural(st.ID, f.name, "only for Direct steps")
			}
		}
		if len(st.Params) > 0 {
			return structural(st.ID, "params", "only for Direct steps")
		}
		return nil
	}
	if st.Prompt != "" {
		return structural(st.ID, "prompt", "only for Llm steps")
	}
	return checkGateway(st)
}

func checkGateway(st *Step) error {
	switch st.Gateway {
	case "":
		return structural(st.ID, "gateway", "a Direct step needs a gateway: Mcp, A2A, Script or Web")
	case Mcp:
		if st.Tool == "" {
			return structural(st.ID, "tool", "an Mcp step needs tool (server__tool, or server + tool)")
		}
	case A2A:
		for _, f := range []struct{ name, v string }{{"agent", st.Agent}, {"skill", st.Skill}, {"message", st.Message}} {
			if f.v == "" {
				return structural(st.ID, f.name, "an A2A step needs agent, skill and message")
			}
		}
		if st.OutputTo != "" {
			return structural(st.ID, "output_to", "an A2A step returns before the remote task ends, so it has no output to write")
		}
	case Script:
		if !slices.Contains(Languages, st.ScriptLanguage()) {
			return structural(st.ID, "language", "%q is not supported; use %s", st.Language, strings.Join(Languages, ", "))
		}
		var p struct {
			Script any `json:"script"`
		}
		_ = json.Unmarshal(st.Params, &p)
		if s, ok := p.Script.(string); !ok || strings.TrimSpace(s) == "" {
			return structural(st.ID, "params", "a Script step needs params.script (the script's text)")
		}
	case Web:
		if st.Tool != "web_search" && st.Tool != "web_browse" {
			return structural(st.ID, "tool", "a Web step calls web_search or web_browse, not %q", st.Tool)
		}
		if len(st.Params) == 0 {
			return structural(st.ID, "params", "a Web step needs params")
		}
	}
	if st.Gateway != A2A && (st.Agent != "" || st.Skill != "" || st.Message != "") {
		return structural(st.ID, firstSet(st), "only for A2A steps")
	}
	if st.Gateway != Script && st.Language != "" {
		return structural(st.ID, "language", "only for Script steps")
	}
	if st.Gateway != Mcp && st.Server != "" {
		return structural(st.ID, "server", "only for Mcp steps")
	}
	return nil
}

func firstSet(st *Step) string {
	switch {
	case st.Agent != "":
		return "agent"
	case st.Skill != "":
		return "skill"
	}
	return "message"
}

func checkFiles(st *Step) error {
	for _, f := range []struct{ name, v string }{{"output_to", st.OutputTo}, {"input_from", st.InputFrom}} {
		if f.v == "" {
			continue
		}
		if err := confinedName(f.v); err != nil {
			return structural(st.ID, f.name, "%v", err)
		}
	}
	return nil
}

// confinedName accepts a path relative to the shared volume that stays
// inside it; templates are allowed and checked again once resolved.
func confinedName(p string) error {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
		return errOutside(p)
	}
	clean := path.Clean(p)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return errOutside(p)
	}
	return nil
}

type outsideError string

func (e outsideError) Error() string {
	return "path " + string(e) + " is outside the shared volume; use a path relative to it"
}

func errOutside(p string) error { return outsideError(p) }

func checkOnFailure(d *Definition, i int) func(*Step) error {
	return func(st *Step) error {
		if st.OnFailure == nil {
			return nil
		}
		switch st.OnFailure.Action {
		case ActionAbort, "":
			if st.OnFailure.SkipTo != "" {
				return structural(st.ID, "on_failure", "skip_to is only for action skip_to")
			}
			return nil
		case ActionSkipTo:
		default:
			return structural(st.ID, "on_failure", "action %q is not abort or skip_to", st.OnFailure.Action)
		}
		target := strings.ToLower(st.OnFailure.SkipTo)
		if target == "" {
			return structural(st.ID, "on_failure", "action skip_to needs skip_to, the id of a later step")
		}
		for _, later := range d.Steps[i+1:] {
			if strings.ToLower(later.ID) == target {
				return nil
			}
		}
		return structural(st.ID, "on_failure", "skip_to %q is not a later step of this wisp", st.OnFailure.SkipTo)
	}
}

func checkForEach(ids map[string]int, i int) func(*Step) error {
	return func(st *Step) error {
		if !st.Iterates() {
			return noIteration(st)
		}
		if st.Mode == Llm {
			return structural(st.ID, "for_each", "only Direct steps iterate; an Llm step calls its tools itself")
		}
		if st.Gateway == A2A {
			return structural(st.ID, "for_each", "an A2A step cannot iterate: a dispatch is refused while another is pending")
		}
		m := sourceRe.FindStringSubmatch(st.ForEach)
		if m == nil {
			return structural(st.ID, "for_each", "must be one {{steps.<id>.result[.path]}} template")
		}
		if j, ok := ids[strings.ToLower(m[1])]; !ok || j >= i {
			return structural(st.ID, "for_each", "%q is not an earlier step", m[1])
		}
		if st.As != "" && (!aliasRe.MatchString(st.As) || slices.Contains([]string{"item", "item_index", "steps"}, st.As)) {
			return structural(st.ID, "as", "%q is not a usable alias (a name other than item, item_index and steps)", st.As)
		}
		switch st.OnItemFailure {
		case "", ItemAbort, ItemContinue:
		default:
			return structural(st.ID, "on_item_failure", "%q is not abort or continue", st.OnItemFailure)
		}
		return nil
	}
}

// noIteration refuses the iteration fields and {{item}} on a step that
// does not iterate.
func noIteration(st *Step) error {
	for _, f := range []struct {
		name string
		set  bool
	}{{"as", st.As != ""}, {"max_items", st.MaxItems != 0}, {"concurrency", st.Concurrency != 0}, {"on_item_failure", st.OnItemFailure != ""}} {
		if f.set {
			return structural(st.ID, f.name, "only with for_each")
		}
	}
	for _, f := range []struct{ name, text string }{{"params", string(st.Params)}, {"message", st.Message}, {"prompt", st.Prompt}} {
		for _, ref := range template.References(f.text) {
			if ref == "item" || ref == "item_index" || strings.HasPrefix(ref, "item.") {
				return structural(st.ID, f.name, "{{%s}} is only available in a for_each step", ref)
			}
		}
	}
	return nil
}
