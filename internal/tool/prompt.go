package tool

import (
	"strings"
)

// PromptMetadata is optional guidance an extension attaches to a tool it
// registers. It is descriptive only: it reaches the system prompt when the
// tool is exposed for the run, and nothing else. It has no field that
// could change the tool's class, sandboxing, protected paths or approval,
// and it never enters the provider-facing tool schema.
type PromptMetadata struct {
	// Guidance is advice for the model on when and how to use the tool.
	Guidance string
}

// Bounds of prompt guidance, so that extensions cannot crowd out the
// conversation.
const (
	MaxGuidancePerTool = 600
	MaxGuidanceTotal   = 2400
)

// Register adds an extension's tool with optional prompt metadata. A name
// already taken is refused: an extension cannot replace a built-in or
// another extension's tool.
func (r *Registry) Register(t Tool, meta *PromptMetadata) error {
	name := t.Spec().Name
	if _, taken := r.tools[name]; taken {
		return &NameTakenError{Name: name}
	}
	r.Add(t)
	if meta != nil && strings.TrimSpace(meta.Guidance) != "" {
		if r.guidance == nil {
			r.guidance = map[string]string{}
		}
		r.guidance[name] = strings.TrimSpace(meta.Guidance)
	}
	return nil
}

// NameTakenError is a registration under a name already in use.
type NameTakenError struct{ Name string }

func (e *NameTakenError) Error() string { return "tool " + e.Name + " is already registered" }

// Guidance returns the prompt guidance of the registry's tools, in
// registration order: each entry cut to MaxGuidancePerTool, identical
// texts given once, the whole bounded by MaxGuidanceTotal.
func (r *Registry) Guidance() []string {
	seen := map[string]bool{}
	var out []string
	total := 0
	for _, name := range r.order {
		g, ok := r.guidance[name]
		if !ok {
			continue
		}
		if len(g) > MaxGuidancePerTool {
			g = cutUTF8(g, MaxGuidancePerTool-1) + "…"
		}
		if seen[g] {
			continue
		}
		seen[g] = true
		entry := name + ": " + g
		if total+len(entry) > MaxGuidanceTotal {
			break
		}
		total += len(entry)
		out = append(out, entry)
	}
	return out
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
