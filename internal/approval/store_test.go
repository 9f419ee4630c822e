package approval

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/shell"
)

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// clock is a settable time source shared by the stores of one test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// world is one test's approvals file and project folders.
type world struct {
	t     *testing.T
	file  string
	dirA  string
	dirB  string
	linkA string // a symlink to dirA
	clk   *clock
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{
		t:     t,
		file:  filepath.Join(root, "wisp", "approvals.json"),
		dirA:  filepath.Join(root, "a"),
		dirB:  filepath.Join(root, "b"),
		linkA: filepath.Join(root, "link-a"),
		clk:   &clock{t: t0},
	}
	for _, d := range []string{w.dirA, w.dirB} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(w.dirA, w.linkA); err != nil {
		t.Fatal(err)
	}
	return w
}

// open starts a "process" in dir.
func (w *world) open(dir string) *Store {
	w.t.Helper()
	s, err := Open(w.file, dir, w.clk.now)
	if err != nil {
		w.t.Fatalf("Open: %v", err)
	}
	return s
}

func (w *world) read() []byte {
	w.t.Helper()
	b, err := os.ReadFile(w.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

func TestLookup(t *testing.T) {
	type check struct {
		dir     string // "a", "b" or "link" (a symlink to a)
		newProc bool   // a new Store, as a new wisp process would open
		after   time.Duration
		pattern string
		level   shell.Level
	}
	tests := []struct {
		name    string
		pattern string
		level   shell.Level
		scope   Scope
		check   check
		want    bool
	}{
		{"same pattern same process", "git status", shell.Moderate, ScopeSession,
			check{"a", false, 0, "git status", shell.Moderate}, true},
		{"other verb not covered", "git status", shell.Moderate, ScopeSession,
			check{"a", false, 0, "git push", shell.Moderate}, false},
		{"other verb not covered when persisted", "git status", shell.Moderate, ScopeAlways,
			check{"a", true, 0, "git push", shell.Moderate}, false},
		{"lower level covered", "rm", shell.Moderate, ScopeSession,
			check{"a", false, 0, "rm", shell.Safe}, true},
		{"higher level not covered", "rm", shell.Safe, ScopeSession,
			check{"a", false, 0, "rm", shell.Moderate}, false},
		{"moderate session does not cover dangerous", "rm", shell.Moderate, ScopeSession,
			check{"a", false, 0, "rm", shell.Dangerous}, false},
		{"once is not kept for a later call", "go test", shell.Moderate, ScopeOnce,
			check{"a", false, 0, "go test", shell.Moderate}, false},
		{"session gone in new process", "go test", shell.Moderate, ScopeSession,
			check{"a", true, 0, "go test", shell.Moderate}, false},
		{"project in same folder, new process", "go test", shell.Moderate, ScopeProject,
			check{"a", true, 0, "go test", shell.Moderate}, true},
		{"project through a symlink", "go test", shell.Moderate, ScopeProject,
			check{"link", true, 0, "go test", shell.Moderate}, true},
		{"project not in other folder", "go test", shell.Moderate, ScopeProject,
			check{"b", true, 0, "go test", shell.Moderate}, false},
		{"always in other folder", "npm install", shell.Moderate, ScopeAlways,
			check{"b", true, 0, "npm install", shell.Moderate}, true},
		{"always just before 30 days", "npm install", shell.Moderate, ScopeAlways,
			check{"b", true, Lifetime - time.Second, "npm install", shell.Moderate}, true},
		{"always expired at 30 days", "npm install", shell.Moderate, ScopeAlways,
			check{"b", true, Lifetime, "npm install", shell.Moderate}, false},
		{"project expired after 30 days", "go test", shell.Moderate, ScopeProject,
			check{"a", true, Lifetime + time.Hour, "go test", shell.Moderate}, false},
		{"persisted never covers dangerous", "make build", shell.Moderate, ScopeAlways,
			check{"a", false, 0, "make build", shell.Dangerous}, false},
		{"empty pattern never matches", "x", shell.Moderate, ScopeSession,
			check{"a", false, 0, "", shell.Safe}, false},
		{"tool pattern", "tool:write", shell.Moderate, ScopeProject,
			check{"a", true, 0, "tool:write", shell.Moderate}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			s := w.open(w.dirA)
			d, err := s.Remember(tt.pattern, tt.level, tt.scope)
			if err != nil {
				t.Fatalf("Remember: %v", err)
			}
			if d.Scope != tt.scope || d.Downgraded || d.Persisted != tt.scope.Persisted() {
				t.Fatalf("Remember decision = %+v, want scope %s", d, tt.scope)
			}
			w.clk.set(t0.Add(tt.check.after))
			dir := map[string]string{"a": w.dirA, "b": w.dirB, "link": w.linkA}[tt.check.dir]
			if tt.check.newProc {
				s = w.open(dir)
			}
			e, ok := s.Lookup(tt.check.pattern, tt.check.level)
			if ok != tt.want {
				t.Fatalf("Lookup(%q, %v) = %+v, %v; want %v", tt.check.pattern, tt.check.level, e, ok, tt.want)
			}
			if ok && (e.ID != d.Entry.ID || e.Scope != tt.scope) {
				t.Errorf("Lookup found %+v, want the remembered %+v", e, d.Entry)
			}
		})
	}
}

func TestDangerousNeverPersisted(t *testing.T) {
	for _, scope := range []Scope{ScopeProject, ScopeAlways} {
		t.Run(string(scope), func(t *testing.T) {
			w := newWorld(t)
			s := w.open(w.dirA)
			// An existing entry, so "unchanged" means more than "absent".
			if _, err := s.Remember("go test", shell.Moderate, ScopeAlways); err != nil {
				t.Fatal(err)
			}
			before := w.read()
			d, err := s.Remember("rm", shell.Dangerous, scope)
			if err != nil {
				t.Fatalf("Remember: %v", err)
			}
			if !d.Downgraded || d.Persisted || d.Scope != ScopeOnce {
				t.Fatalf("decision = %+v, want downgraded to once", d)
			}
			if after := w.read(); !bytes.Equal(before, after) {
				t.Fatalf("file changed:\n%s\n---\n%s", before, after)
			}
			if _, ok := s.Lookup("rm", shell.Dangerous); ok {
				t.Error("the dangerous answer was remembered")
			}
			if _, ok := w.open(w.dirA).Lookup("rm", shell.Dangerous); ok {
				t.Error("a new process sees the dangerous approval")
			}
			if _, ok := w.open(w.dirA).Lookup("rm", shell.Moderate); ok {
				t.Error("a new process sees the dangerous approval at a lower level")
			}
		})
	}
}

func TestDangerousInFileIgnored(t *testing.T) {
	// A hand-edited file cannot make a persisted entry cover a dangerous
	// command: the file is refused, and lookups at dangerous never read it.
	w := newWorld(t)
	writeFile(t, w.file, `{"version":1,"approvals":[{"id":"abcd1234","pattern":"rm","scope":"always","level":"dangerous","created":"2025-06-01T12:00:00Z","expires":"2025-07-01T12:00:00Z"}]}`)
	s, err := Open(w.file, w.dirA, w.clk.now)
	var me *MalformedError
	if !errors.As(err, &me) || s == nil {
		t.Fatalf("Open = %v, %v; want a store and a *MalformedError", s, err)
	}
	if _, ok := s.Lookup("rm", shell.Dangerous); ok {
		t.Fatal("dangerous lookup matched a persisted entry")
	}
}

// TestOnceIsNeverKept: a once answer approves the one call it answered.
// Keeping it until the end of the turn let a second, different call of
// the same pattern in that turn run without a question.
func TestOnceIsNeverKept(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	d, err := s.Remember("go test", shell.Moderate, ScopeOnce)
	if err != nil {
		t.Fatal(err)
	}
	if d.Scope != ScopeOnce || d.Persisted || d.Entry.ID != "" {
		t.Fatalf("decision = %+v, want once and nothing kept", d)
	}
	if _, err := s.Remember("go build", shell.Moderate, ScopeSession); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup("go test", shell.Moderate); ok {
		t.Error("a once approval covers a later call")
	}
	if _, ok := s.Lookup("go build", shell.Moderate); !ok {
		t.Error("session approval not found")
	}
	if list, _ := s.List(); len(list) != 1 {
		t.Errorf("List = %+v, want the session entry alone", list)
	}
	if w.read() != nil {
		t.Error("once or session approval was written to the file")
	}
}

// TestDangerousNeverRemembered: whatever scope a dangerous answer asks
// for, it counts for its call alone, and nothing remembered at a lower
// level covers a dangerous part of the same pattern.
func TestDangerousNeverRemembered(t *testing.T) {
	for _, scope := range []Scope{ScopeOnce, ScopeSession, ScopeProject, ScopeAlways} {
		t.Run(string(scope), func(t *testing.T) {
			w := newWorld(t)
			s := w.open(w.dirA)
			if _, err := s.Remember("rm", shell.Moderate, ScopeSession); err != nil {
				t.Fatal(err)
			}
			d, err := s.Remember("rm", shell.Dangerous, scope)
			if err != nil {
				t.Fatal(err)
			}
			if d.Scope != ScopeOnce || d.Persisted || d.Downgraded != (scope != ScopeOnce) {
				t.Errorf("decision = %+v, want once, downgraded when %s was asked", d, scope)
			}
			if _, ok := s.Lookup("rm", shell.Dangerous); ok {
				t.Error("a dangerous part was covered by a remembered answer")
			}
			if _, ok := s.Lookup("rm", shell.Moderate); !ok {
				t.Error("the moderate session answer was lost")
			}
			if _, ok := s.Lookup("rm", shell.Level(7)); ok {
				t.Error("an unknown level was covered")
			}
		})
	}
}

func TestRememberAgainRefreshes(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	first, err := s.Remember("git push", shell.Safe, ScopeProject)
	if err != nil {
		t.Fatal(err)
	}
	w.clk.set(t0.Add(20 * 24 * time.Hour))
	again, err := s.Remember("git push", shell.Moderate, ScopeProject)
	if err != nil {
		t.Fatal(err)
	}
	if again.Entry.ID != first.Entry.ID || again.Entry.Level != shell.Moderate || !again.Entry.Expires.Equal(t0.Add(20*24*time.Hour+Lifetime)) {
		t.Fatalf("refreshed entry = %+v", again.Entry)
	}
	lower, err := s.Remember("git push", shell.Safe, ScopeProject)
	if err != nil || lower.Entry.Level != shell.Moderate {
		t.Fatalf("remembering a lower level lowered the entry: %+v, %v", lower.Entry, err)
	}
	list, _ := s.List()
	if len(list) != 1 {
		t.Fatalf("List = %+v, want one entry", list)
	}
}

func TestExpiredPrunedOnWrite(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	if _, err := s.Remember("old", shell.Moderate, ScopeAlways); err != nil {
		t.Fatal(err)
	}
	w.clk.set(t0.Add(Lifetime + time.Minute))
	if list, _ := s.List(); len(list) != 0 {
		t.Fatalf("List shows expired entries: %+v", list)
	}
	if _, err := s.Remember("new", shell.Moderate, ScopeAlways); err != nil {
		t.Fatal(err)
	}
	data := string(w.read())
	if strings.Contains(data, `"old"`) || !strings.Contains(data, `"new"`) {
		t.Fatalf("file after write:\n%s", data)
	}
}

func TestRevokeAndClear(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	var ids []string
	for _, r := range []struct {
		p string
		s Scope
	}{{"go test", ScopeSession}, {"git push", ScopeProject}, {"npm install", ScopeAlways}} {
		d, err := s.Remember(r.p, shell.Moderate, r.s)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.Entry.ID)
	}
	list, err := s.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	wantOrder := []Scope{ScopeSession, ScopeProject, ScopeAlways}
	for i, e := range list {
		if e.Scope != wantOrder[i] {
			t.Errorf("List[%d].Scope = %s, want %s", i, e.Scope, wantOrder[i])
		}
	}

	tests := []struct {
		name    string
		store   *Store
		id      string
		pattern string
	}{
		{"session, same process", s, ids[0], "go test"},
		{"project, other process, other case", w.open(w.dirB), strings.ToUpper(ids[1]), "git push"},
		{"always, same process", s, ids[2], "npm install"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.store.Revoke(tt.id); err != nil {
				t.Fatalf("Revoke(%s): %v", tt.id, err)
			}
			if _, ok := s.Lookup(tt.pattern, shell.Moderate); ok {
				t.Errorf("%s still approved after Revoke", tt.pattern)
			}
			if err := tt.store.Revoke(tt.id); !errors.Is(err, ErrUnknownID) {
				t.Errorf("second Revoke(%s) = %v, want ErrUnknownID", tt.id, err)
			}
		})
	}
	for _, id := range []string{"", "zz", "00000000"} {
		if err := s.Revoke(id); !errors.Is(err, ErrUnknownID) {
			t.Errorf("Revoke(%q) = %v, want ErrUnknownID", id, err)
		}
	}

	if _, err := s.Remember("cargo build", shell.Moderate, ScopeAlways); err != nil {
		t.Fatal(err)
	}
	if err := s.Clear(); err != nil {
		t.Fatalf("Clear: %v", err)
	}
	if list, err := s.List(); err != nil || len(list) != 0 {
		t.Fatalf("List after Clear = %+v, %v", list, err)
	}
	if list, err := w.open(w.dirB).List(); err != nil || len(list) != 0 {
		t.Fatalf("new process List after Clear = %+v, %v", list, err)
	}
}

func TestClearWithoutFile(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	if err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	if w.read() != nil {
		t.Error("Clear created the file")
	}
}

func TestFileMode(t *testing.T) {
	tests := []struct {
		name     string
		existing os.FileMode // 0: no file before
	}{
		{"new file", 0},
		{"loose existing file", 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			if tt.existing != 0 {
				writeFile(t, w.file, `{"version":1,"approvals":[]}`)
				if err := os.Chmod(w.file, tt.existing); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.open(w.dirA).Remember("go test", shell.Moderate, ScopeProject); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(w.file)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != 0o600 {
				t.Errorf("mode = %v, want 0600", info.Mode().Perm())
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(w.file), ".*.tmp"))
			if len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

func TestFileFormat(t *testing.T) {
	w := newWorld(t)
	if _, err := w.open(w.dirA).Remember("go test", shell.Moderate, ScopeProject); err != nil {
		t.Fatal(err)
	}
	data := string(w.read())
	for _, want := range []string{`"version": 1`, `"pattern": "go test"`, `"scope": "project"`, `"level": "moderate"`,
		`"project": "` + mustResolve(t, w.dirA) + `"`, `"created": "2025-06-01T12:00:00Z"`, `"expires": "2025-07-01T12:00:00Z"`} {
		if !strings.Contains(data, want) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
}

func TestMalformedFile(t *testing.T) {
	obj := `{"id":"abcd1234","pattern":"go test","scope":"always","level":"moderate","created":"2025-06-01T12:00:00Z","expires":"2025-07-01T12:00:00Z"`
	entry := func(fields string) string {
		return `{"version":1,"approvals":[` + obj + fields + `}]}`
	}
	tests := []struct {
		name, content, want string
	}{
		{"not json", "{not json", "line 1"},
		{"syntax error on line 3", "{\n\"version\": 1,\n\"approvals\": [,]\n}", "line 3"},
		{"unknown field", entry(`,"extra":1`), "extra"},
		{"newer version", `{"version":2,"approvals":[]}`, "version 2"},
		{"no version", `{"approvals":[]}`, "version 0"},
		{"session scope stored", strings.Replace(entry(""), `"always"`, `"session"`, 1), "scope"},
		{"dangerous stored", strings.Replace(entry(""), `"moderate"`, `"dangerous"`, 1), "dangerous"},
		{"unknown level", strings.Replace(entry(""), `"moderate"`, `"extreme"`, 1), "extreme"},
		{"project without path", strings.Replace(entry(""), `"always"`, `"project"`, 1), "absolute path"},
		{"bad id", strings.Replace(entry(""), `abcd1234`, `xyz`, 1), "short hex"},
		{"trailing data", `{"version":1,"approvals":[]} {}`, "after the JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			writeFile(t, w.file, tt.content)
			s, err := Open(w.file, w.dirA, w.clk.now)
			var me *MalformedError
			if !errors.As(err, &me) {
				t.Fatalf("Open error = %v, want *MalformedError", err)
			}
			if s == nil {
				t.Fatal("Open returned no store with a malformed file")
			}
			if !strings.Contains(err.Error(), w.file) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name the file and %q", err, tt.want)
			}
			// The store still works for the session, and never overwrites
			// the file.
			d, err := s.Remember("go test", shell.Moderate, ScopeProject)
			if err == nil || !strings.Contains(err.Error(), w.file) {
				t.Errorf("Remember on a malformed file: error = %v", err)
			}
			if d.Scope != ScopeSession || d.Persisted {
				t.Errorf("Remember on a malformed file: decision = %+v, want kept for the session", d)
			}
			if _, ok := s.Lookup("go test", shell.Moderate); !ok {
				t.Error("session fallback not found")
			}
			if got := string(w.read()); got != tt.content {
				t.Errorf("malformed file was overwritten:\n%s", got)
			}
			if _, err := s.List(); !errors.As(err, &me) {
				t.Errorf("List error = %v, want *MalformedError", err)
			}
			// Clear is how the person recovers.
			if err := s.Clear(); err != nil {
				t.Fatalf("Clear: %v", err)
			}
			if _, err := Open(w.file, w.dirA, w.clk.now); err != nil {
				t.Errorf("Open after Clear: %v", err)
			}
		})
	}
}

// TestDuplicateIDDropsOnlyThatEntry: an entry that repeats an earlier
// entry's id is dropped with a warning; the rest of the file is used, and
// clearing counts what was there.
func TestDuplicateIDDropsOnlyThatEntry(t *testing.T) {
	entry := func(id, pattern string) string {
		return `{"id":"` + id + `","pattern":"` + pattern + `","scope":"always","level":"moderate","created":"2025-06-01T12:00:00Z","expires":"2025-07-01T12:00:00Z"}`
	}
	tests := []struct {
		name     string
		entries  []string
		keep     []string // patterns that must still be approved
		drop     []string // patterns that must not be
		warnings int
	}{
		{"second of two", []string{entry("abcd1234", "go test"), entry("abcd1234", "rm")}, []string{"go test"}, []string{"rm"}, 1},
		{"among others", []string{entry("aaaa0001", "make"), entry("abcd1234", "go test"), entry("bbbb0002", "npm test"), entry("abcd1234", "curl")},
			[]string{"make", "go test", "npm test"}, []string{"curl"}, 1},
		{"three times", []string{entry("abcd1234", "go test"), entry("abcd1234", "rm"), entry("abcd1234", "curl")},
			[]string{"go test"}, []string{"rm", "curl"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			writeFile(t, w.file, `{"version":1,"approvals":[`+strings.Join(tt.entries, ",")+`]}`)
			s, err := Open(w.file, w.dirA, w.clk.now)
			var de *DuplicateError
			if !errors.As(err, &de) || len(de.Dropped) != tt.warnings || !strings.Contains(err.Error(), w.file) {
				t.Fatalf("Open error = %v, want a *DuplicateError naming the file and %d entries", err, tt.warnings)
			}
			for _, p := range tt.keep {
				if _, ok := s.Lookup(p, shell.Moderate); !ok {
					t.Errorf("%s lost with the duplicate", p)
				}
			}
			for _, p := range tt.drop {
				if _, ok := s.Lookup(p, shell.Moderate); ok {
					t.Errorf("%s, the duplicate, is still approved", p)
				}
			}
			var out, errw strings.Builder
			if err := Command([]string{"clear"}, &out, &errw, s); err != nil {
				t.Fatal(err)
			}
			if want := "Cleared " + plural(len(tt.keep), "remembered approval") + ".\n"; out.String() != want {
				t.Errorf("clear said %q, want %q", out.String(), want)
			}
		})
	}
}

func TestEmptyFileIsNoApprovals(t *testing.T) {
	w := newWorld(t)
	writeFile(t, w.file, "\n")
	s := w.open(w.dirA)
	if _, err := s.Remember("go test", shell.Moderate, ScopeAlways); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.open(w.dirB).Lookup("go test", shell.Moderate); !ok {
		t.Error("approval written over an empty file not found")
	}
}

func TestRememberRejects(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	tests := []struct {
		name    string
		pattern string
		level   shell.Level
		scope   Scope
	}{
		{"empty pattern", "", shell.Moderate, ScopeSession},
		{"unknown scope", "go test", shell.Moderate, Scope("forever")},
		{"unknown level", "go test", shell.Level(9), ScopeSession},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Remember(tt.pattern, tt.level, tt.scope); err == nil {
				t.Error("Remember succeeded")
			}
		})
	}
}

func TestOpenArguments(t *testing.T) {
	if _, err := Open("", t.TempDir(), nil); err == nil {
		t.Error("Open with no path succeeded")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "a.json"), "", nil); err == nil {
		t.Error("Open with no project succeeded")
	}
}

func TestConcurrentInProcess(t *testing.T) {
	w := newWorld(t)
	stores := []*Store{w.open(w.dirA), w.open(w.dirA), w.open(w.dirB)}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			s := stores[g%len(stores)]
			for i := range 8 {
				p := fmt.Sprintf("g%d-%d", g, i)
				scope := []Scope{ScopeOnce, ScopeSession, ScopeAlways}[i%3]
				if _, err := s.Remember(p, shell.Moderate, scope); err != nil {
					t.Error(err)
				}
				// A once approval is never kept.
				if _, ok := s.Lookup(p, shell.Moderate); ok != (scope != ScopeOnce) {
					t.Errorf("%s (%s) found = %v right after Remember", p, scope, ok)
				}
				_, _ = s.List()
			}
		})
	}
	wg.Wait()
	list, err := w.open(w.dirB).List()
	if err != nil {
		t.Fatal(err)
	}
	// Per goroutine, i = 2 and 5 are always entries.
	if len(list) != 6*2 {
		t.Errorf("persisted entries = %d, want %d", len(list), 12)
	}
}

// TestConcurrentProcesses runs real wisp-like processes that remember at
// the same time; the file lock must keep every entry.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	w := newWorld(t)
	start := filepath.Join(t.TempDir(), "go")
	const procs, each = 3, 15
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.Env = append(os.Environ(), helperEnv+"=1", "HELPER_FILE="+w.file, "HELPER_DIR="+w.dirA,
			"HELPER_START="+start, fmt.Sprintf("HELPER_N=%d", each), fmt.Sprintf("HELPER_PREFIX=p%d", p))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	writeFile(t, start, "")
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
	}
	s := w.open(w.dirA)
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != procs*each {
		t.Fatalf("entries = %d, want %d", len(list), procs*each)
	}
	for p := range procs {
		for i := range each {
			if _, ok := s.Lookup(fmt.Sprintf("p%d-%d", p, i), shell.Moderate); !ok {
				t.Errorf("p%d-%d lost", p, i)
			}
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustResolve(t *testing.T, dir string) string {
	t.Helper()
	r, err := ResolveProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// BenchmarkLookupPersisted measures a lookup that reads a file of 100
// entries, the path taken whenever a person would otherwise be asked.
func BenchmarkLookupPersisted(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(filepath.Join(dir, "approvals.json"), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 100 {
		if _, err := s.Remember(fmt.Sprintf("p%d", i), shell.Moderate, ScopeAlways); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, ok := s.Lookup("p99", shell.Moderate); !ok {
			b.Fatal("not found")
		}
	}
}

// BenchmarkRememberPersisted measures one locked, synced, atomic write.
func BenchmarkRememberPersisted(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(filepath.Join(dir, "approvals.json"), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Remember(fmt.Sprintf("p%d", i%50), shell.Moderate, ScopeProject); err != nil {
			b.Fatal(err)
		}
	}
}
