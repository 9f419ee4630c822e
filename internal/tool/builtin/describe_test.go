package builtin

import (
	"io"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

// all is every built-in tool, as a session gets them.
func all() []tool.Tool {
	return []tool.Tool{Read(), Grep(), Find(), Ls(), Write(), Edit(), CurrentDate(), SystemInfo(), Inspect(nil), Notify(io.Discard), Skill(nil)}
}

// TestBuiltinsDescribeThemselves: the catalogue asks each tool for its
// limits and example; a file-changing tool names what a call changes, so
// that the gate never decodes its arguments.
func TestBuiltinsDescribeThemselves(t *testing.T) {
	for _, tl := range all() {
		s := tl.Spec()
		t.Run(s.Name, func(t *testing.T) {
			d, ok := tl.(tool.Describer)
			if !ok {
				t.Fatal("does not implement tool.Describer")
			}
			limits, example := d.Describe()
			if example == "" {
				t.Error("no example prompt")
			}
			for _, l := range limits {
				if strings.TrimSpace(l) == "" {
					t.Errorf("blank limit in %q", limits)
				}
			}
			if _, ok := tl.(tool.Mutator); ok != (s.Class == tool.Mutating) {
				t.Errorf("class %s, implements tool.Mutator: %v", s.Class, ok)
			}
		})
	}
}
