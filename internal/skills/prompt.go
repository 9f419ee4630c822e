package skills

import (
	"fmt"
	"strings"
)

const (
	// PromptLimit bounds the catalogue in the system prompt.
	PromptLimit = 4 << 10
	// promptDescription bounds one description there.
	promptDescription = 200
)

const promptHead = "# Skills\n\nSkills are folders of instructions for particular tasks. When a task matches a skill below, call the `skill` tool with its name to read its instructions before you start.\n\n"

// Prompt is the skills catalogue for the system prompt: each skill's name
// and description on one line, within PromptLimit bytes; empty when there
// are no skills.
func (c *Catalog) Prompt() string {
	if c == nil || len(c.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(promptHead)
	for i, s := range c.Skills {
		line := fmt.Sprintf("- %s: %s\n", s.Name, oneLine(s.Description, promptDescription))
		rest := len(c.Skills) - i
		// Keep room for the line that says how many were left out.
		tail := 0
		if rest > 1 {
			tail = len(fmt.Sprintf("- (%d more skills not listed)\n", rest))
		}
		if b.Len()+len(line)+tail > PromptLimit {
			fmt.Fprintf(&b, "- (%d more skills not listed)\n", rest)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
