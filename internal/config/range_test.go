package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// numericKeys are every whole-number setting and its bounds. The test
// below checks that no numeric field is missing from this list.
var numericKeys = []struct {
	file   string // "settings" or "config"
	key    string // dotted
	lo, hi int64
}{
	{"settings", "max_tokens", 1, 1000000},
	{"settings", "idle_timeout_seconds", 1, 86400},
	{"settings", "max_response_bytes", 65536, 1 << 30},
	{"settings", "context_window", 1024, 100000000},
	{"settings", "mcp.schema_budget_bytes", 1024, 16 << 20},
	{"config", "approval.timeoutSeconds", 1, 86400},
	{"config", "commandTimeoutSeconds", 1, 86400},
	{"config", "outputLimit.bytes", 1, 16 << 20},
	{"config", "outputLimit.lines", 1, 1000000},
}

// nested writes {"a":{"b":v}} for the key a.b.
func nested(key string, v int64) string {
	parts := strings.Split(key, ".")
	body := fmt.Sprint(v)
	for i := len(parts) - 1; i >= 0; i-- {
		body = fmt.Sprintf("{%q:%s}", parts[i], body)
	}
	return body
}

// Every numeric key is checked at load with the file and key named: the
// exact bounds load, one past either bound is an error.
func TestNumericRanges(t *testing.T) {
	for _, k := range numericKeys {
		for _, tc := range []struct {
			v  int64
			ok bool
		}{{k.lo, true}, {k.hi, true}, {k.lo - 1, false}, {k.hi + 1, false}, {-1, k.lo <= -1}} {
			t.Run(fmt.Sprintf("%s=%d", k.key, tc.v), func(t *testing.T) {
				p := paths(t)
				path, load := p.SettingsFile(), func() error { _, _, err := LoadSettings(p); return err }
				if k.file == "config" {
					path, load = p.ConfigFile(), func() error { _, _, err := LoadFile(p); return err }
				}
				if err := os.WriteFile(path, []byte(nested(k.key, tc.v)), 0o600); err != nil {
					t.Fatal(err)
				}
				err := load()
				want := fmt.Sprintf("malformed ~/.wisp/%s.json: %s: must be between %d and %d, not %d", k.file, k.key, k.lo, k.hi, tc.v)
				switch {
				case tc.ok && err != nil:
					t.Errorf("%d refused: %v", tc.v, err)
				case !tc.ok && (err == nil || err.Error() != want):
					t.Errorf("err = %v, want %q", err, want)
				}
			})
		}
	}
}

// The values read are the values written.
func TestNumericValuesRead(t *testing.T) {
	p := paths(t)
	if err := os.WriteFile(p.SettingsFile(), []byte(`{"max_tokens":4096,"idle_timeout_seconds":30,"max_response_bytes":1048576}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadSettings(p)
	if err != nil || s.MaxTokens != 4096 || s.IdleTimeoutSeconds != 30 || s.MaxResponseBytes != 1<<20 {
		t.Errorf("settings %+v, %v", s, err)
	}
}

// A trusted project's max_tokens is held to the same bounds.
func TestProjectNumericRange(t *testing.T) {
	p := paths(t)
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".wisp"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ProjectFile(root), []byte(`{"max_tokens":-5}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadProject(p, root)
	if err == nil || !strings.HasSuffix(err.Error(), "/.wisp/settings.json: max_tokens: must be between 1 and 1000000, not -5") {
		t.Errorf("err = %v", err)
	}
}

// Every whole-number field of both files has a range tag and is listed
// in numericKeys, so a new numeric setting cannot skip its check.
func TestEveryNumericSettingHasARange(t *testing.T) {
	listed := map[string]bool{}
	for _, k := range numericKeys {
		listed[k.file+":"+k.key] = true
	}
	var walk func(file string, typ reflect.Type, prefix string)
	walk = func(file string, typ reflect.Type, prefix string) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			key := prefix + name
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(file, f.Type, key+".")
			case reflect.Int, reflect.Int64, reflect.Int32:
				tag, ok := f.Tag.Lookup("range")
				if !ok {
					t.Errorf("%s: %s has no range tag", file, key)
					continue
				}
				if _, _, err := parseRange(tag); err != nil {
					t.Errorf("%s: %s: %v", file, key, err)
				}
				if !listed[file+":"+key] {
					t.Errorf("%s: %s is not in numericKeys", file, key)
				}
			}
		}
	}
	walk("settings", reflect.TypeOf(Settings{}), "")
	walk("config", reflect.TypeOf(File{}), "")
}
