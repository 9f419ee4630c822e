package shell

import "testing"

// find -D takes a value; without one the expression starts past the end
// of the arguments, which must not crash the walk.
func TestFindDebugOptionWithoutValue(t *testing.T) {
	for _, line := range []string{"find -D", "find -L -D"} {
		if v := ClassifyWith(line, testOpts); v.Level != Moderate {
			t.Errorf("%s: %v %v, want moderate", line, v.Level, v.Reasons)
		}
	}
}
