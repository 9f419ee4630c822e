package wisps

import (
	_ "embed"
	"strconv"
	"strings"
)

//go:embed spawn_wisps.md
var spawnText string

// SpawnDescription is spawn_wisps' description for the model, its
// {{.Name}} placeholders filled from the limits the executor enforces.
// A plain replacer rather than text/template: the template package's
// reflection makes the linker keep every method of every type in the
// binary, which costs wisp megabytes of memory in every run.
func SpawnDescription() string {
	n := strconv.Itoa
	return strings.TrimSpace(strings.NewReplacer(
		"{{.MaxConcurrentWisps}}", n(MaxConcurrentWisps), "{{.PriorResultLimit}}", n(PriorResultLimit),
		"{{.DefaultMaxItems}}", n(ForEachDefaultMaxItems), "{{.MaxItemsCeiling}}", n(ForEachMaxItemsCeiling),
		"{{.MaxConcurrency}}", n(ForEachMaxConcurrency), "{{.PreviewLimit}}", n(OutputPreviewLimit),
	).Replace(spawnText))
}
