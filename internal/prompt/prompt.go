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
	return b.String()
}
