// Package prompt builds the system prompt: wisp's standing instructions,
// where the model is working, and guidance for the tools it was given.
// Every word the model reads before the conversation comes from here.
package prompt

import (
	_ "embed"
	"fmt"
	"runtime"
	"strings"
	"time"
)

//go:embed system.md
var base string

// Options say what the prompt describes.
type Options struct {
	Workdir string
	Now     time.Time
	// Tools are the names of the tools exposed for this run.
	Tools []string
	// Guidance is the prompt metadata of exposed extension tools.
	Guidance []string
	// Context is the rendered context files (AGENTS.md …).
	Context string
	// Skills is the skill catalogue (names and descriptions).
	Skills string
}

// Build returns the system prompt.
func Build(o Options) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(base))
	fmt.Fprintf(&b, "\n\nWorking directory: %s\nPlatform: %s/%s\nToday: %s\n",
		o.Workdir, runtime.GOOS, runtime.GOARCH, o.Now.Format("2006-01-02 (Monday)"))
	if len(o.Tools) == 0 {
		b.WriteString("No tools are available in this run: answer from the conversation alone.\n")
	}
	if len(o.Guidance) > 0 {
		b.WriteString("\nTool guidance:\n")
		for _, g := range o.Guidance {
			b.WriteString("- " + g + "\n")
		}
	}
	if s := strings.TrimSpace(o.Skills); s != "" {
		b.WriteString("\n" + s + "\n")
	}
	if c := strings.TrimSpace(o.Context); c != "" {
		b.WriteString("\nProject instructions (from context files; the user's requests take precedence):\n\n" + c + "\n")
	}
	return b.String()
}
