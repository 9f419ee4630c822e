package tool

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Info is what `wisp tools` and the MCP resource wisp://tools.md show
// about one tool.
type Info struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Class       Class           `json:"class"`
	Source      string          `json:"source"` // built-in | custom | extension
	Schema      json.RawMessage `json:"input_schema"`
	Limits      []string        `json:"limits"`
	Example     string          `json:"example"`
}

// Describer is implemented by every built-in and custom tool: it states
// the tool's limits (the numbers the tool enforces) and an example prompt
// that would make the model call it. An extension tool may leave it out;
// the catalogue then lists no limits and no example for it.
type Describer interface {
	Describe() (limits []string, example string)
}

// Catalog describes every tool of r, in order, as each tool describes
// itself. source names where each tool came from.
func Catalog(r *Registry, source func(name string) string) []Info {
	var out []Info
	for _, name := range r.Names() {
		t, _ := r.Get(name)
		s := t.Spec()
		info := Info{Name: s.Name, Description: s.Description, Class: s.Class, Schema: s.Schema, Source: source(name)}
		if d, ok := t.(Describer); ok {
			info.Limits, info.Example = d.Describe()
		}
		if info.Limits == nil {
			info.Limits = []string{}
		}
		out = append(out, info)
	}
	return out
}

// approvalOf says in words what the gate does with a class.
func approvalOf(c Class) string {
	switch c {
	case Read:
		return "runs directly"
	case Mutating:
		return "approval required (changes files)"
	default:
		return "approval required (runs a command: policy, classifier, sandbox, timeout, output bound)"
	}
}

// Markdown renders the catalogue as the document `wisp tools --markdown`
// prints and the MCP server serves as wisp://tools.md: each tool's
// description, approval class, arguments, limits and an example prompt.
func Markdown(infos []Info) string {
	var b strings.Builder
	b.WriteString("# wisp tools\n\nThe tools a wisp session gets, custom ones last. Every call passes through wisp's gate.\n")
	for _, in := range infos {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", in.Name, strings.TrimSpace(in.Description))
		fmt.Fprintf(&b, "- **Class:** %s (%s)\n", in.Class, approvalOf(in.Class))
		fmt.Fprintf(&b, "- **Source:** %s\n", in.Source)
		if args := argumentsOf(in.Schema); args != "" {
			fmt.Fprintf(&b, "- **Arguments:** %s\n", args)
		}
		for _, l := range in.Limits {
			fmt.Fprintf(&b, "- **Limit:** %s\n", l)
		}
		if in.Example != "" {
			fmt.Fprintf(&b, "- **Example prompt:** %s\n", in.Example)
		}
	}
	return b.String()
}

// argumentsOf lists a JSON Schema's properties as `name (type, required)`.
func argumentsOf(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	var parts []string
	for _, name := range sortedProps(schema) {
		p := s.Properties[name]
		desc := p.Type
		if len(p.Enum) > 0 {
			desc = strings.Join(p.Enum, "|")
		}
		if req[name] {
			desc += ", required"
		}
		parts = append(parts, fmt.Sprintf("`%s` (%s)", name, desc))
	}
	return strings.Join(parts, ", ")
}

// sortedProps returns property names in the order the schema lists them.
func sortedProps(schema json.RawMessage) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(top["properties"])))
	var names []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 {
				names = append(names, v)
				// Skip the value.
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return names
				}
			}
		}
	}
	return names
}
