package approval

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/wisp-agent/wisp/internal/shell"
)

func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(`{"version":1,"approvals":[{"id":"abcd1234","pattern":"go test","scope":"always","level":"moderate","created":"2025-06-01T12:00:00Z","expires":"2025-07-01T12:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"approvals":[{"id":"abcd","pattern":"x","scope":"project","level":"safe","project":"/p","created":"2025-06-01T12:00:00Z","expires":"2025-07-01T12:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"approvals":[]}`))
	f.Add([]byte("{"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, dropped, err := decodeFile(data)
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, e := range entries {
			if ids[e.ID] {
				t.Fatalf("decodeFile kept two entries with id %s (dropped %v)", e.ID, dropped)
			}
			ids[e.ID] = true
		}
		for _, e := range entries {
			// Whatever the file says, nothing dangerous or unscoped loads.
			if e.Level >= shell.Dangerous || e.Level < shell.Safe || !e.Scope.Persisted() || e.Pattern == "" {
				t.Fatalf("decodeFile accepted %+v", e)
			}
		}
		if entries == nil {
			return
		}
		again, err := json.Marshal(fileData{Version: fileVersion, Approvals: entries})
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, _, err := decodeFile(again)
		if err != nil {
			t.Fatalf("decode of re-encoded file: %v\n%s", err, again)
		}
		if len(back) != len(entries) {
			t.Fatalf("round trip changed the entries: %d != %d", len(back), len(entries))
		}
		for i := range back {
			a, b := back[i], entries[i]
			if a.ID != b.ID || a.Pattern != b.Pattern || a.Scope != b.Scope || a.Level != b.Level || a.Project != b.Project ||
				!a.Created.Equal(b.Created) || !a.Expires.Equal(b.Expires) {
				t.Fatalf("round trip changed entry %d: %+v != %+v", i, a, b)
			}
		}
	})
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"safe", "moderate", "dangerous", "never", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			return
		}
		if s != "" && th.String() != s {
			t.Fatalf("ParseThreshold(%q).String() = %q", s, th.String())
		}
	})
}

func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"ls -la", "a\x1b[31mb", "x\ry", "\u202eabc", "multi\nline", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Printable(s)
		for _, r := range out {
			if r == '\n' {
				continue
			}
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("Printable(%q) kept %U", s, r)
			}
		}
		if strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("Printable(%q) changed the line count", s)
		}
	})
}
