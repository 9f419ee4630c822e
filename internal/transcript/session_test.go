package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/event"
)

// The test binary doubles as a second wisp process appending to a
// session: TestTwoProcesses re-executes it with these variables set.
const (
	helperPath = "WISP_SESSION_TEST_APPEND_PATH"
	helperN    = "WISP_SESSION_TEST_APPEND_N"
	helperTag  = "WISP_SESSION_TEST_APPEND_TAG"
	// helperHold makes the helper create this file once it has the
	// session open and then wait to be killed.
	helperHold = "WISP_SESSION_TEST_HOLD"
	// helperFull makes the helper append to this transcript under a
	// file size limit until a write fails.
	helperFull = "WISP_SESSION_TEST_FULL"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(helperFull); path != "" {
		if err := fullHelper(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv(helperPath); path != "" {
		if err := appendHelper(path, os.Getenv(helperN), os.Getenv(helperTag)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func appendHelper(path, count, tag string) error {
	n, err := strconv.Atoi(count)
	if err != nil {
		return err
	}
	w, err := OpenAppend(path)
	if err != nil {
		return err
	}
	defer w.Close()
	if hold := os.Getenv(helperHold); hold != "" {
		if err := os.WriteFile(hold, nil, 0o600); err != nil {
			return err
		}
		time.Sleep(time.Minute)
	}
	for i := range n {
		// Big lines make an unserialised interleaving show.
		m := chat.UserText(fmt.Sprintf("%s %d %s", tag, i, strings.Repeat(tag, 4000)))
		if _, err := w.Append(Record{Type: TypeMessage, Message: &m}); err != nil {
			return err
		}
	}
	return nil
}

var t0 = time.Date(2026, 11, 30, 8, 45, 12, 0, time.UTC)

func msg(role chat.Role, text string) *chat.Message {
	return &chat.Message{Role: role, Content: []chat.Block{{Type: chat.Text, Text: text}}}
}

func create(t *testing.T, dir string, h Header) *Writer {
	t.Helper()
	w, err := Create(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func mustAppend(t *testing.T, w *Writer, r Record) string {
	t.Helper()
	id, err := w.Append(r)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustLoad(t *testing.T, path string) (Header, []Record) {
	t.Helper()
	h, recs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return h, recs
}

func TestRoundTrip(t *testing.T) {
	yes := true
	full := []Record{
		{Type: TypeMessage, ID: "r1", Time: t0, Message: msg(chat.User, "fix <the> bug & \"quote\" ünïcode\nline two")},
		{Type: TypeMessage, ID: "r2", Parent: "r1", Time: t0.Add(time.Second), Message: &chat.Message{Role: chat.Assistant, Content: []chat.Block{
			{Type: chat.Text, Text: "looking"},
			{Type: chat.ToolUse, ID: "call_1", Name: "read", Input: json.RawMessage(`{"path":"a.go"}`)},
		}}},
		{Type: TypeEvent, ID: "r3", Parent: "r2", Time: t0.Add(2 * time.Second), Event: event.Any{Event: event.MessageEnd{Header: event.Header{Time: t0, Turn: 1}, Usage: &chat.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 2}, StopReason: "tool_use"}}},
		{Type: TypeEvent, ID: "r4", Parent: "r3", Time: t0.Add(3 * time.Second), Event: event.Any{Event: event.ApprovalDecision{Header: event.Header{Time: t0}, CallID: "call_1", Tool: "bash", Approved: yes, Reason: "user"}}},
		{Type: TypeMessage, ID: "r5", Parent: "r4", Time: t0.Add(4 * time.Second), Message: &chat.Message{Role: chat.User, Content: []chat.Block{
			{Type: chat.ToolResult, ToolUseID: "call_1", Text: "package a", IsError: true},
		}}},
	}
	cases := []struct {
		name string
		recs []Record
	}{
		{"none", nil},
		{"one message", full[:1]},
		{"messages and events", full},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			h := Header{Cwd: "/work/proj/", Provider: "anthropic", Model: "claude-x", Start: t0}
			w := create(t, dir, h)
			for _, r := range tc.recs {
				if id := mustAppend(t, w, r); id != r.ID {
					t.Fatalf("Append returned id %q, want %q", id, r.ID)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			gotH, got := mustLoad(t, w.Path())
			wantH := Header{ID: w.ID(), Version: FormatVersion, Cwd: "/work/proj", Start: t0, Provider: "anthropic", Model: "claude-x"}
			if !reflect.DeepEqual(gotH, wantH) {
				t.Errorf("header = %+v, want %+v", gotH, wantH)
			}
			if len(got) != len(tc.recs) || (len(got) > 0 && !reflect.DeepEqual(got, tc.recs)) {
				t.Errorf("records differ:\n got %s\nwant %s", dump(got), dump(tc.recs))
			}
			wantName := "20261130T084512Z_" + w.ID() + ".jsonl"
			if filepath.Base(w.Path()) != wantName {
				t.Errorf("file name %s, want %s", filepath.Base(w.Path()), wantName)
			}
			if len(w.ID()) != 16 {
				t.Errorf("session id %q is not 16 hex digits", w.ID())
			}
		})
	}
}

func dump(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestAppendFillsIDsParentsAndTimes(t *testing.T) {
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	var ids []string
	for i := range 3 {
		ids = append(ids, mustAppend(t, w, Record{Type: TypeMessage, Message: msg(chat.User, strconv.Itoa(i))}))
	}
	_, recs := mustLoad(t, w.Path())
	for i, r := range recs {
		if r.ID != ids[i] || len(r.ID) != 8 {
			t.Errorf("record %d id %q, want %q (8 hex digits)", i, r.ID, ids[i])
		}
		wantParent := ""
		if i > 0 {
			wantParent = ids[i-1]
		}
		if r.Parent != wantParent {
			t.Errorf("record %d parent %q, want %q", i, r.Parent, wantParent)
		}
		if r.Time.IsZero() {
			t.Errorf("record %d has no time", i)
		}
	}

	// Reopening continues from the last record.
	w.Close()
	w2, err := OpenAppend(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if w2.ID() != w.ID() {
		t.Errorf("reopened id %q, want %q", w2.ID(), w.ID())
	}
	mustAppend(t, w2, Record{Type: TypeMessage, Message: msg(chat.User, "again")})
	_, recs = mustLoad(t, w.Path())
	if got := recs[len(recs)-1].Parent; got != ids[2] {
		t.Errorf("after reopen parent %q, want %q", got, ids[2])
	}
}

func TestAppendRejects(t *testing.T) {
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	cases := []struct {
		name string
		rec  Record
	}{
		{"header", Record{Type: TypeSession}},
		{"unknown type", Record{Type: "delta"}},
		{"message without message", Record{Type: TypeMessage}},
		{"event without event", Record{Type: TypeEvent}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.Append(tc.rec); err == nil {
				t.Fatal("Append accepted it")
			}
		})
	}
	w.Close()
	if _, err := w.Append(Record{Type: TypeMessage, Message: msg(chat.User, "x")}); err == nil {
		t.Error("Append after Close succeeded")
	}
}

func TestCreateRejectsBadID(t *testing.T) {
	for _, id := range []string{"../x", "a b", "a_b", strings.Repeat("a", 65)} {
		if _, err := Create(t.TempDir(), Header{ID: id}); err == nil {
			t.Errorf("Create accepted id %q", id)
		}
	}
}

func TestPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	w := create(t, dir, Header{Cwd: "/p"})
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Dir(w.Path()): 0o700, w.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s mode %o, want %o", path, got, want)
		}
	}
}

func TestTornTail(t *testing.T) {
	cases := []struct {
		name string
		torn string
	}{
		{"half a key", `{"type":"mess`},
		{"whole json without newline", `{"type":"message","id":"zz","parent":"","time":"2026-01-01T00:00:00Z","message":{"role":"user","content":[]}}`},
		{"one byte", `{`},
		{"longer than the scan block", `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("x", 150<<10)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := create(t, t.TempDir(), Header{Cwd: "/p"})
			mustAppend(t, w, Record{Type: TypeMessage, Message: msg(chat.User, "one")})
			last := mustAppend(t, w, Record{Type: TypeMessage, Message: msg(chat.Assistant, "two")})
			w.Close()
			appendRaw(t, w.Path(), tc.torn)

			_, recs := mustLoad(t, w.Path())
			if len(recs) != 2 || recs[1].ID != last {
				t.Fatalf("loaded %d records, want the 2 whole ones", len(recs))
			}
			w2, err := OpenAppend(w.Path())
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			id := mustAppend(t, w2, Record{Type: TypeMessage, Message: msg(chat.User, "three")})
			_, recs = mustLoad(t, w.Path())
			if len(recs) != 3 || recs[2].ID != id || recs[2].Parent != last {
				t.Fatalf("after append: %s", dump(recs))
			}
			data, _ := os.ReadFile(w.Path())
			if n := strings.Count(string(data), "\n"); n != 4 || !strings.HasSuffix(string(data), "\n") {
				t.Errorf("file has %d lines (want 4), ends with newline: %v", n, strings.HasSuffix(string(data), "\n"))
			}
		})
	}
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestMalformed(t *testing.T) {
	const head = `{"type":"session","id":"0123456789abcdef","parent":"","time":"2026-11-30T08:45:12Z","version":1,"cwd":"/p"}` + "\n"
	const good = `{"type":"message","id":"a1","parent":"","time":"2026-11-30T08:45:13Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}` + "\n"
	cases := []struct {
		name     string
		data     string
		line     int
		contains string
	}{
		{"not json in the middle", head + good + "not json\n" + good, 3, "json"},
		{"unknown type", head + good + `{"type":"delta","id":"x"}` + "\n", 3, `unknown record type "delta"`},
		{"message without message", head + `{"type":"message","id":"x"}` + "\n", 2, "message record without message"},
		{"event without event", head + `{"type":"event","id":"x"}` + "\n", 2, "event record without event"},
		{"record without id", head + `{"type":"message","message":{"role":"user","content":[]}}` + "\n", 2, "without id"},
		{"second header", head + good + head, 3, "second session header"},
		{"no header", good + good, 1, "first record has type"},
		{"newer version", strings.Replace(head, `"version":1`, fmt.Sprintf(`"version":%d`, FormatVersion+1), 1), 1, fmt.Sprintf("format version %d", FormatVersion+1)},
		{"header without version", strings.Replace(head, `,"version":1`, "", 1), 1, "without a format version"},
		{"blank lines count", head + "\n" + good + "\n{\n", 5, "unexpected end"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "20261130T084512Z_0123456789abcdef.jsonl")
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := Load(path)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error %v, want a *FormatError", err)
			}
			prefix := fmt.Sprintf("session: %s:%d: malformed record: ", path, tc.line)
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q\nwant prefix %q containing %q", err, prefix, tc.contains)
			}
			w, tr, err := Open(path)
			if tc.line == 1 {
				if err == nil {
					w.Close()
					t.Error("Open accepted a transcript with a bad header")
				}
				return
			}
			// A bad line after the header is salvaged, not fatal.
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			w.Close()
			if un := tr.Unhandled(); len(un) != 1 || un[0].Line != tc.line {
				t.Errorf("unhandled damage %v, want line %d", un, tc.line)
			}
		})
	}
}

func TestEmptyTranscript(t *testing.T) {
	for name, data := range map[string]string{"empty": "", "torn header": `{"type":"session","id":"ab`} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.jsonl")
			os.WriteFile(path, []byte(data), 0o600)
			if _, _, err := Load(path); err == nil || !strings.Contains(err.Error(), "empty transcript") {
				t.Errorf("Load error %v, want an empty transcript error", err)
			}
		})
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	cases := []struct {
		name   string
		shared bool // one Writer for all, or one per goroutine
	}{
		{"one writer", true},
	}
	const workers, each = 4, 15
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := create(t, t.TempDir(), Header{Cwd: "/p"})
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for g := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ww := w
					if !tc.shared {
						var err error
						if ww, err = OpenAppend(w.Path()); err != nil {
							errs <- err
							return
						}
						defer ww.Close()
					}
					for i := range each {
						m := msg(chat.User, fmt.Sprintf("g%d-%d %s", g, i, strings.Repeat("x", 5000)))
						if _, err := ww.Append(Record{Type: TypeMessage, Message: m}); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			_, recs := mustLoad(t, w.Path())
			checkWhole(t, recs, workers*each)
		})
	}
}

// checkWhole asserts n intact records with distinct ids.
func checkWhole(t *testing.T, recs []Record, n int) {
	t.Helper()
	if len(recs) != n {
		t.Fatalf("loaded %d records, want %d", len(recs), n)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.ID] {
			t.Errorf("duplicate id %q", r.ID)
		}
		seen[r.ID] = true
		if r.Message == nil || len(r.Message.Content) != 1 {
			t.Fatalf("record %s is not a whole message", r.ID)
		}
	}
}

// TestTwoProcesses holds a session in a second process and checks that
// this one is refused with that process's pid, and that the session
// opens again once the other process has ended (however it ended).
func TestTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	mustAppend(t, w, Record{Type: TypeMessage, Message: msg(chat.User, "start")})
	w.Close()

	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperPath+"="+w.Path(), helperN+"=3", helperTag+"=A", helperHold+"="+ready)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, ready)

	_, _, err := Open(w.Path())
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != cmd.Process.Pid {
		t.Fatalf("Open while another process holds it: %v, want a *BusyError naming pid %d", err, cmd.Process.Pid)
	}
	if want := fmt.Sprintf("session %s is open in another wisp (pid %d)", w.ID(), cmd.Process.Pid); err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if got := Holder(w.Path()); got != cmd.Process.Pid {
		t.Errorf("Holder = %d, want %d", got, cmd.Process.Pid)
	}
	// SIGKILL: the kernel drops the flock; the lock file may stay.
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	w2, tr, err := Open(w.Path())
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	defer w2.Close()
	if n := len(tr.Messages()); n != 1 {
		t.Fatalf("%d messages, want 1 (the start; the dead process only held the lock before writing)", n)
	}
	_ = tr
}

func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not appear", path)
}

func TestBranch(t *testing.T) {
	// a ─ b ─ c
	//      └─ d ─ e     (d forks at b; e is written last)
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	a := mustAppend(t, w, Record{Type: TypeMessage, ID: "a", Message: msg(chat.User, "a")})
	b := mustAppend(t, w, Record{Type: TypeMessage, ID: "b", Message: msg(chat.Assistant, "b")})
	mustAppend(t, w, Record{Type: TypeEvent, ID: "ev", Event: event.Any{Event: event.ToolCall{Tool: "read"}}})
	c := mustAppend(t, w, Record{Type: TypeMessage, ID: "c", Message: msg(chat.User, "c")})
	d := mustAppend(t, w, Record{Type: TypeMessage, ID: "d", Parent: b, Message: msg(chat.User, "d")})
	e := mustAppend(t, w, Record{Type: TypeMessage, ID: "e", Message: msg(chat.Assistant, "e")})
	_, recs := mustLoad(t, w.Path())

	cases := []struct {
		leaf string
		want []string
	}{
		{a, []string{"a"}},
		{c, []string{"a", "b", "ev", "c"}},
		{d, []string{"a", "b", "d"}},
		{e, []string{"a", "b", "d", "e"}},
		{"ev", []string{"a", "b", "ev"}},
	}
	for _, tc := range cases {
		t.Run(tc.leaf, func(t *testing.T) {
			got, err := Branch(recs, tc.leaf)
			if err != nil {
				t.Fatal(err)
			}
			if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("Branch(%s) = %v, want %v", tc.leaf, ids, tc.want)
			}
		})
	}
	if _, err := Branch(recs, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Branch of unknown leaf: %v, want ErrNotFound", err)
	}
	var texts []string
	for _, m := range Messages(recs) {
		texts = append(texts, m.TextOf())
	}
	if !reflect.DeepEqual(texts, []string{"a", "b", "d", "e"}) {
		t.Errorf("Messages = %v, want the latest branch a b d e", texts)
	}
	if Messages(nil) != nil {
		t.Error("Messages(nil) is not nil")
	}
}

func TestBranchOddLinks(t *testing.T) {
	cases := []struct {
		name string
		recs []Record
		leaf string
		want []string
	}{
		{"orphan parent is a root", []Record{{ID: "x"}, {ID: "y", Parent: "gone"}}, "y", []string{"y"}},
		{"later parent is ignored", []Record{{ID: "x", Parent: "y"}, {ID: "y"}}, "x", []string{"x"}},
		{"self parent is a root", []Record{{ID: "x", Parent: "x"}}, "x", []string{"x"}},
		{"clash resolves to nearest earlier", []Record{{ID: "p", Cwd: "1"}, {ID: "p", Cwd: "2"}, {ID: "c", Parent: "p"}}, "c", []string{"p", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Branch(tc.recs, tc.leaf)
			if err != nil {
				t.Fatal(err)
			}
			if ids := idsOf(got); !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("Branch = %v, want %v", ids, tc.want)
			}
			if tc.name == "clash resolves to nearest earlier" && got[0].Cwd != "2" {
				t.Errorf("parent resolved to the first clash, want the nearest")
			}
		})
	}
}

func idsOf(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{}
	for i, id := range []string{"aaaa1111bbbb2222", "aaaa2222cccc3333", "bbbb0000dddd4444", "aaaa1111"} {
		w := create(t, dir, Header{ID: id, Cwd: fmt.Sprintf("/p/%d", i%2), Start: t0.Add(time.Duration(i) * time.Minute)})
		paths[id] = w.Path()
	}
	cases := []struct {
		name    string
		q       string
		want    string
		err     error
		message string
	}{
		{"exact id", "bbbb0000dddd4444", paths["bbbb0000dddd4444"], nil, ""},
		{"exact id that prefixes another", "aaaa1111", paths["aaaa1111"], nil, ""},
		{"unique prefix", "bbbb", paths["bbbb0000dddd4444"], nil, ""},
		{"unique longer prefix", "aaaa2", paths["aaaa2222cccc3333"], nil, ""},
		{"ambiguous prefix", "aaaa", "", ErrAmbiguous, "aaaa1111bbbb2222 (20261130T084512Z)"},
		{"unknown", "ffff", "", ErrNotFound, `no session "ffff"`},
		{"empty", "", "", ErrNotFound, ""},
		{"path", paths["aaaa2222cccc3333"], paths["aaaa2222cccc3333"], nil, ""},
		{"missing path", filepath.Join(dir, "nope.jsonl"), "", ErrNotFound, ""},
		{"bare file name is a path", "nope.jsonl", "", ErrNotFound, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find(dir, tc.q)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.message) {
					t.Fatalf("Find(%q) error %v, want %v mentioning %q", tc.q, err, tc.err, tc.message)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Find(%q) = %q, %v; want %q", tc.q, got, err, tc.want)
			}
		})
	}
	if _, err := Find(dir, "aaaa"); err == nil || !strings.Contains(err.Error(), "aaaa2222cccc3333") {
		t.Errorf("ambiguous error does not list every candidate: %v", err)
	}
}

func TestLatest(t *testing.T) {
	dir := t.TempDir()
	mk := func(cwd string, start time.Time) string {
		return create(t, dir, Header{Cwd: cwd, Start: start}).Path()
	}
	a1 := mk("/p/a", t0)
	_ = a1
	b := mk("/p/b", t0.Add(2*time.Minute))
	a3 := mk("/p/a", t0.Add(3*time.Minute))
	mk("/p/a/sub", t0.Add(4*time.Minute))
	// Same second: only the headers can tell them apart.
	mk("/p/c", t0.Add(100*time.Millisecond))
	c2 := mk("/p/c", t0.Add(900*time.Millisecond))
	mk("/p/c", t0.Add(500*time.Millisecond))

	cases := []struct {
		name, cwd, want string
	}{
		{"newest of two", "/p/a", a3},
		{"only one", "/p/b", b},
		{"trailing slash cleaned", "/p/a/", a3},
		{"same second", "/p/c", c2},
		{"none", "/p/none", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Latest(dir, tc.cwd)
			if tc.want == "" {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "no session for /p/none") {
					t.Fatalf("Latest = %q, %v; want ErrNotFound", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Latest(%s) = %q, %v; want %q", tc.cwd, got, err, tc.want)
			}
		})
	}
	if _, err := Latest(filepath.Join(dir, "missing"), "/p/a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest in a missing folder: %v, want ErrNotFound", err)
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	toolResult := &chat.Message{Role: chat.User, Content: []chat.Block{{Type: chat.ToolResult, ToolUseID: "c", Text: "out"}}}
	long := "  please\n\tfix   " + strings.Repeat("é", 100)

	old := create(t, dir, Header{Cwd: "/p/a", Start: t0, Model: "m1"})
	mustAppend(t, old, Record{Type: TypeMessage, Message: toolResult})
	mustAppend(t, old, Record{Type: TypeMessage, Message: msg(chat.Assistant, "hello")})
	mustAppend(t, old, Record{Type: TypeMessage, Message: msg(chat.User, long)})
	mustAppend(t, old, Record{Type: TypeEvent, Event: event.Any{Event: event.Error{Error: "boom"}}})
	mustAppend(t, old, Record{Type: TypeMessage, Message: msg(chat.User, "later")})

	mid := create(t, dir, Header{Cwd: "/p/b", Start: t0.Add(time.Hour)})
	mustAppend(t, mid, Record{Type: TypeMessage, Message: msg(chat.User, "short one")})
	appendRaw(t, mid.Path(), `{"type":"message","id":"torn"`)

	newest := create(t, dir, Header{Cwd: "/p/a", Start: t0.Add(2 * time.Hour)})

	broken := filepath.Join(dir, "20261130T084512Z_feedfeedfeedfeed.jsonl")
	os.WriteFile(broken, []byte("garbage\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o600)

	got, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantPrompt := "please fix " + strings.Repeat("é", 68) + "…"
	want := []Summary{
		{ID: newest.ID(), Path: newest.Path(), Time: t0.Add(2 * time.Hour), Cwd: "/p/a"},
		{ID: mid.ID(), Path: mid.Path(), Time: t0.Add(time.Hour), Cwd: "/p/b", Messages: 1, FirstPrompt: "short one"},
		{ID: old.ID(), Path: old.Path(), Time: t0, Cwd: "/p/a", Model: "m1", Messages: 4, FirstPrompt: wantPrompt},
		// A file whose header cannot be read is listed, not hidden.
		{ID: "feedfeedfeedfeed", Path: broken, Time: t0, Damaged: got[len(got)-1].Damaged},
	}
	if d := got[len(got)-1].Damaged; !strings.HasPrefix(d, "line 1: ") {
		t.Errorf("damaged header noted as %q, want it to name line 1", d)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("List =\n%s\nwant\n%s", dump(got), dump(want))
	}
	if n := len([]rune(got[2].FirstPrompt)); n != 80 {
		t.Errorf("first prompt has %d characters, want 80", n)
	}

	empty, err := List(filepath.Join(dir, "missing"))
	if err != nil || len(empty) != 0 {
		t.Errorf("List of a missing folder = %v, %v; want nothing", empty, err)
	}
}

func TestFromEventAndSink(t *testing.T) {
	m := msg(chat.Assistant, "done")
	cases := []struct {
		name  string
		ev    event.Event
		types []string
	}{
		{"delta dropped", event.MessageDelta{Delta: "d"}, nil},
		{"turn start dropped", event.TurnStart{}, nil},
		{"user message", event.MessageEnd{Message: msg(chat.User, "hi")}, []string{TypeMessage}},
		{"answer with usage", event.MessageEnd{Message: m, Usage: &chat.Usage{InputTokens: 3}, StopReason: "end_turn"}, []string{TypeMessage, TypeEvent}},
		{"tool call", event.ToolCall{CallID: "c", Tool: "bash", Args: json.RawMessage(`{"command":"ls"}`)}, []string{TypeEvent}},
		{"tool start", event.ToolStart{CallID: "c", Tool: "bash"}, []string{TypeEvent}},
		{"tool result", event.ToolResult{CallID: "c", Result: "ok"}, []string{TypeMessage}},
		{"tool end dropped", event.ToolEnd{CallID: "c", DurationMS: 3}, nil},
		{"approval", event.ApprovalRequest{Subject: "rm"}, []string{TypeEvent}},
		{"retry", event.Retry{Attempt: 2}, []string{TypeEvent}},
		{"error", event.Error{Error: "x"}, []string{TypeEvent}},
		{"agent end", event.AgentEnd{Usage: chat.Usage{OutputTokens: 1}}, []string{TypeEvent}},
	}
	w := create(t, t.TempDir(), Header{Cwd: "/p"})
	var failed []error
	sink := w.Sink(func(err error) { failed = append(failed, err) })
	total := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := FromEvent(tc.ev)
			var types []string
			for _, r := range recs {
				types = append(types, r.Type)
				if b, _ := json.Marshal(r.Event); r.Event.Event != nil && (strings.Contains(string(b), `"message"`) || strings.Contains(string(b), `"args"`) || strings.Contains(string(b), `"result"`)) {
					t.Errorf("event record repeats what a message holds: %s", b)
				}
				if r.Time.IsZero() || r.Time.Location() != time.UTC {
					t.Errorf("record time %v, want a UTC time", r.Time)
				}
			}
			if !reflect.DeepEqual(types, tc.types) {
				t.Errorf("FromEvent types %v, want %v", types, tc.types)
			}
			sink(tc.ev)
			total += len(tc.types)
		})
	}
	if len(failed) > 0 {
		t.Fatal(failed)
	}
	_, recs := mustLoad(t, w.Path())
	if len(recs) != total {
		t.Errorf("sink wrote %d records, want %d", len(recs), total)
	}
	// The result of call c has no call to answer in this conversation,
	// so it rides along as the last (user) message.
	if got := Messages(recs); len(got) != 3 || got[1].TextOf() != "done" {
		t.Errorf("Messages after sink = %s", dump(got))
	}
}

func TestFromEventCopiesUsage(t *testing.T) {
	total := chat.Usage{InputTokens: 1}
	recs := FromEvent(event.MessageEnd{Usage: &total})
	total.InputTokens = 99
	if got := recs[0].Event.Event.(event.MessageEnd).Usage.InputTokens; got != 1 {
		t.Errorf("record usage changed with the loop's total: %d", got)
	}
}
