package builtin

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/tool"
)

// all is every built-in tool, as a session gets them.
func all() []tool.Tool {
	return []tool.Tool{Read(), Grep(), Find(), Ls(), Write(), Edit(), Bash(), CurrentDate(), SystemInfo(), Inspect(nil), Notify(io.Discard), Skill(nil)}
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

// TestBashNeedsAShell: bash run and start refuse to run anything when no
// shell was supplied, and say why.
func TestBashNeedsAShell(t *testing.T) {
	tests := []struct{ name, args, want string }{
		{"run", `{"command":"touch ran"}`, "error: could not run the command: no shell was supplied"},
		{"start", `{"operation":"start","command":"touch ran","yield_seconds":0}`, "error: could not start the command: no shell was supplied"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := bashEnv(t)
			env.Shell = nil
			b := Bash()
			defer b.Close()
			res := bashCallT(t, b, env, tc.args)
			if !res.IsError || !strings.HasPrefix(res.Content, tc.want) {
				t.Errorf("got %q, want %q…", res.Content, tc.want)
			}
			if _, err := os.Stat(filepath.Join(env.Workdir, "ran")); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

func TestThousands(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0"}, {500, "500"}, {1000, "1,000"}, {2000, "2,000"}, {65536, "65,536"}, {1234567, "1,234,567"}}
	for _, tc := range tests {
		if got := thousands(tc.n); got != tc.want {
			t.Errorf("thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
