package shell

import (
	"fmt"
	"testing"
	"time"
)

func FuzzClassify(f *testing.F) {
	for _, tc := range lineTable {
		f.Add(tc.line)
	}
	for _, l := range benchCorpus {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				panic(fmt.Sprintf("slow: %q", line))
			}
		}()
		defer close(done)
		v := ClassifyWith(line, testOpts)
		if _, err := parse(line); err != nil && v.Level != Dangerous {
			t.Fatalf("unparsable line %q is %s", line, v.Level)
		}
		if len(v.Reasons) == 0 {
			t.Fatalf("no reasons for %q", line)
		}
		for _, p := range v.Parts {
			if p.Level > v.Level {
				t.Fatalf("part %q above the verdict", p.Command)
			}
			if len(p.Reasons) == 0 {
				t.Fatalf("part %q has no reasons", p.Command)
			}
		}
		_ = v.Text()
		_ = Commands(line)
	})
}
