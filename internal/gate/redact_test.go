package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/gate/gatetest"
	"github.com/wisp-agent/wisp/internal/keys"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
	"github.com/wisp-agent/wisp/internal/tool/builtin/bashtool"
)

// A configured key in any tool's output is replaced before the model or
// the audit sees it; a key shorter than keys.MinRedact is left alone.
func TestToolResultsAreRedacted(t *testing.T) {
	const key = "sk-ant-test-0123456789"
	w := gatetest.New(t, func(o *gate.Options) { o.Secrets = keys.Secrets(nil, key, "short") })
	if err := os.WriteFile(filepath.Join(w.Work, "notes.txt"), []byte("token "+key+"\nshort\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() string
	}{
		{"read tool", func() string { return w.Run(t, "r", builtin.Read(), `{"path":"notes.txt"}`).Content }},
		{"bash", func() string {
			return w.Run(t, "b", bashtool.New(), `{"command":"printf '%s%s\\n' sk-ant-test- 0123456789; echo short"}`).Content
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.run()
			if strings.Contains(out, key) || !strings.Contains(out, keys.Redacted) {
				t.Errorf("result not redacted:\n%s", out)
			}
			if !strings.Contains(out, "short") {
				t.Errorf("a short value was redacted:\n%s", out)
			}
		})
	}
	err := filepath.WalkDir(audit.Dir(w.WispHome), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds the key", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
