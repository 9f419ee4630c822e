package wisps

import (
	_ "embed"
	"strings"
	"text/template"
)

//go:embed spawn_wisps.md
var spawnText string

// SpawnDescription is spawn_wisps' description for the model, filled
// from the limits the executor enforces.
func SpawnDescription() string {
	t := template.Must(template.New("spawn").Parse(spawnText))
	var b strings.Builder
	_ = t.Execute(&b, map[string]int{"MaxConcurrentWisps": MaxConcurrentWisps, "PriorResultLimit": PriorResultLimit,
		"DefaultMaxItems": ForEachDefaultMaxItems, "MaxItemsCeiling": ForEachMaxItemsCeiling, "MaxConcurrency": ForEachMaxConcurrency,
		"PreviewLimit": OutputPreviewLimit})
	return strings.TrimSpace(b.String())
}
