package skills

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkDiscover measures the start-up cost of 50 user skills: the
// scan, the front matter and the prompt catalogue.
func BenchmarkDiscover(b *testing.B) {
	base := b.TempDir()
	e := env{home: filepath.Join(base, "home"), wispHome: filepath.Join(base, "home", ".wisp"), project: filepath.Join(base, "proj")}
	for i := range 50 {
		e.skill(b, fmt.Sprintf("W/skills/skill-%02d", i), fmt.Sprintf("Does thing %d.", i))
	}
	o := Options{Home: e.home, WispHome: e.wispHome, Project: e.project}
	for b.Loop() {
		cat, _ := Discover(o)
		if len(cat.Skills) != 50 {
			b.Fatal(len(cat.Skills))
		}
		_ = cat.Prompt()
	}
}
