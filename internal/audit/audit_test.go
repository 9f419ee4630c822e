package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test binary doubles as a second (and third) wisp process writing
// the same log: see TestTwoProcessesWriteWholeLines.
const childEnv = "WISP_AUDIT_TEST_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		if err := childWrite(spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childWrite writes "dir|tag|count|maxBytes" lines: count lines of session
// tag with turns 1..count.
func childWrite(spec string) error {
	f := strings.Split(spec, "|")
	count, _ := strconv.Atoi(f[2])
	maxBytes, _ := strconv.ParseInt(f[3], 10, 64)
	l, err := Open(f[0], Options{Version: "child", MaxBytes: maxBytes, Keep: 1000})
	if err != nil {
		return err
	}
	for i := 1; i <= count; i++ {
		if err := l.Write(Entry{Session: f[1], Turn: i, Details: ErrorReport{Message: strings.Repeat("x", i%97), Where: "child"}}); err != nil {
			return err
		}
	}
	return l.Close()
}

// isolate points HOME and WISP_HOME at temporary folders so nothing can
// touch a real home, and returns the log folder.
func isolate(t testing.TB) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("WISP_HOME", filepath.Join(home, ".wisp"))
	return Dir(filepath.Join(home, ".wisp"))
}

// samples has one filled-in value of every kind.
func samples() []Details {
	return []Details{
		SessionStart{Cwd: "/home/u/p", Provider: "anthropic", Model: "claude", Mode: "print", Sandbox: "landlock abi 6", Trusted: true},
		SessionEnd{Reason: "done", Usage: Usage{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 3, CacheWriteTokens: 4}},
		Prompt{Text: "fix the <tests> & go"},
		Response{Model: "claude", StopReason: "tool_use", InputTokens: 100, OutputTokens: 20, ToolCalls: 2},
		ToolCall{Tool: "bash", Class: "command", Args: `{ "command": "go test ./..." }`},
		ToolResult{Tool: "bash", Bytes: 5000, DurationMS: 1200, Preview: "ok  \tgithub.com/x\t0.1s"},
		PolicyDecision{Line: "rm -rf /", Rule: `rm\s+-rf\s+/`, Command: "rm -rf /"},
		ClassifierVerdict{Line: "go test ./... > out", Level: "moderate", Parts: []VerdictPart{{Command: "go test ./...", Program: "go", Level: "moderate", Reasons: []string{"runs workspace code"}}}, Reasons: []string{"writes out"}},
		ApprovalRequested{Tool: "bash", Subject: "go test ./...", Level: "moderate", Pattern: "go test *"},
		ApprovalDecided{Tool: "bash", Subject: "go test ./...", Approved: true, Scope: "session", By: "user", Persisted: false},
		CommandOutcome{Line: "go test ./...", ExitCode: 0, DurationMS: 1200, Sandboxed: true},
		FileWrite{Tool: "write", Path: "/home/u/p/a.go", Bytes: 120, Created: true},
		ErrorReport{Message: "provider: 529 overloaded", Where: "provider"},
		ConfigChange{File: "/home/u/.wisp/config.json", Key: "approval.always", Old: `[]`, New: `["go test *"]`},
		MCPRequest{Server: "everything", Tool: "echo"},
		MCPResult{Server: "everything", Tool: "echo", DurationMS: 3},
	}
}

func TestSamplesCoverEveryKind(t *testing.T) {
	var got []string
	for _, d := range samples() {
		got = append(got, d.Kind())
	}
	if want := Kinds(); !equal(got, want) {
		t.Fatalf("samples cover %v, want every kind %v", got, want)
	}
}

var (
	idRe   = regexp.MustCompile(`^[0-9a-f]{16}$`)
	timeRe = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
)

// envelope is the key order of every line.
var envelope = []string{"schema", "id", "time", "version", "pid", "session", "turn", "call", "kind", "details", "truncated"}

func TestEveryLineHasTheElevenFieldsInOrder(t *testing.T) {
	dir := isolate(t)
	clock := time.Date(2026, 11, 30, 10, 15, 2, 123456789, time.FixedZone("CET", 3600))
	l, err := Open(dir, Options{Version: "1.2.3", Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range samples() {
		if err := l.Write(Entry{Session: "3f2a1b0c9d8e7f60", Turn: i, Call: "toolu_" + strconv.Itoa(i), Details: d}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(samples()) {
		t.Fatalf("got %d lines, want %d", len(lines), len(samples()))
	}
	ids := map[string]bool{}
	for i, d := range samples() {
		t.Run(d.Kind(), func(t *testing.T) {
			line := lines[i]
			if keys := topKeys(t, line); !equal(keys, envelope) {
				t.Fatalf("keys %v, want %v in %s", keys, envelope, line)
			}
			var v struct {
				Schema    int             `json:"schema"`
				ID        string          `json:"id"`
				Time      string          `json:"time"`
				Version   string          `json:"version"`
				PID       int             `json:"pid"`
				Session   string          `json:"session"`
				Turn      int             `json:"turn"`
				Call      string          `json:"call"`
				Kind      string          `json:"kind"`
				Details   json.RawMessage `json:"details"`
				Truncated *bool           `json:"truncated"`
			}
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatal(err)
			}
			checks := []struct {
				name string
				ok   bool
			}{
				{"schema is 1", v.Schema == 1},
				{"id is 16 lowercase hex", idRe.MatchString(v.ID)},
				{"id is unique", !ids[v.ID]},
				{"time is UTC with milliseconds", timeRe.MatchString(v.Time)},
				{"time is the clock's, in UTC", v.Time == "2026-11-30T09:15:02.123Z"},
				{"version", v.Version == "1.2.3"},
				{"pid", v.PID == os.Getpid()},
				{"session", v.Session == "3f2a1b0c9d8e7f60"},
				{"turn", v.Turn == i},
				{"call", v.Call == "toolu_"+strconv.Itoa(i)},
				{"kind", v.Kind == d.Kind()},
				{"details is an object", len(v.Details) > 0 && v.Details[0] == '{'},
				{"truncated is false", v.Truncated != nil && !*v.Truncated},
				{"no HTML escaping", !strings.Contains(line, `\u003c`)},
			}
			for _, c := range checks {
				if !c.ok {
					t.Errorf("%s: %s", c.name, line)
				}
			}
			ids[v.ID] = true
			// Every field of the kind is present, even when empty.
			if keys, want := topKeys(t, string(v.Details)), jsonFields(d); !equal(keys, want) {
				t.Errorf("details keys %v, want %v", keys, want)
			}
		})
	}
}

// topKeys returns the keys of a JSON object in the order they appear.
func topKeys(t *testing.T, obj string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestModes(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(dir string)
	}{
		{"fresh", func(string) {}},
		{"existing files too open", func(dir string) {
			_ = os.MkdirAll(dir, 0o755)
			_ = os.Chmod(dir, 0o755)
			_ = os.WriteFile(filepath.Join(dir, FileName), nil, 0o644)
			_ = os.Chmod(filepath.Join(dir, FileName), 0o644)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := isolate(t)
			c.prepare(dir)
			l, err := Open(dir, Options{MaxBytes: 400})
			if err != nil {
				t.Fatal(err)
			}
			for range 5 { // enough to rotate
				if err := l.Write(Entry{Details: Prompt{Text: strings.Repeat("p", 100)}}); err != nil {
					t.Fatal(err)
				}
			}
			_ = l.Close()
			perm := func(p string) os.FileMode {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				return fi.Mode().Perm()
			}
			if got := perm(dir); got != 0o700 {
				t.Errorf("folder mode %o, want 700", got)
			}
			for _, name := range []string{FileName, FileName + ".1", lockName} {
				if got := perm(filepath.Join(dir, name)); got != 0o600 {
					t.Errorf("%s mode %o, want 600", name, got)
				}
			}
		})
	}
}

// rotationWorld writes lines of one session through a small log.
type rotationWorld struct {
	t   *testing.T
	dir string
}

func (w rotationWorld) write(session string, lines int, opts Options) {
	w.t.Helper()
	l, err := Open(w.dir, opts)
	if err != nil {
		w.t.Fatal(err)
	}
	for i := 1; i <= lines; i++ {
		if err := l.Write(Entry{Session: session, Turn: i, Details: Prompt{Text: "hello"}}); err != nil {
			w.t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		w.t.Fatal(err)
	}
}

// age sets every file of the log to have been last written d ago.
func (w rotationWorld) age(d time.Duration) {
	w.t.Helper()
	files, err := logFiles(w.dir)
	if err != nil {
		w.t.Fatal(err)
	}
	old := time.Now().Add(-d)
	for _, f := range files {
		if err := os.Chtimes(f, old, old); err != nil {
			w.t.Fatal(err)
		}
	}
}

// turns returns the turns of a session's lines, oldest first.
func (w rotationWorld) turns(session string) []int {
	w.t.Helper()
	got, err := Read(w.dir, Filter{Session: session})
	if err != nil {
		w.t.Fatal(err)
	}
	var out []int
	for _, l := range got {
		if l.Session == session {
			out = append(out, l.Turn)
		}
	}
	return out
}

// shift subtracts by from every turn.
func shift(turns []int, by int) []int {
	out := make([]int, len(turns))
	for i, t := range turns {
		out[i] = t - by
	}
	return out
}

// contiguous reports whether turns run 1..n without a gap.
func contiguous(turns []int, n int) bool {
	if len(turns) != n {
		return false
	}
	for i, t := range turns {
		if t != i+1 {
			return false
		}
	}
	return true
}

// TestRotation: rotation keeps at least Keep files, every file written
// within Retain, and every file that holds a line of a session the
// writing Log wrote; only older files beyond Keep go, oldest first.
func TestRotation(t *testing.T) {
	small := Options{MaxBytes: 1000, Keep: 2}
	t.Run("a flood keeps every line of the last days", func(t *testing.T) {
		w := rotationWorld{t, isolate(t)}
		w.write("s1", 300, small)
		if got := w.turns("s1"); !contiguous(got, 300) {
			t.Fatalf("read %d lines of 300 (first %v)", len(got), got[:min(3, len(got))])
		}
		files, _ := logFiles(w.dir)
		if len(files) <= 3 {
			t.Errorf("only %d files: the flood did not rotate", len(files))
		}
		for _, f := range files {
			if fi, _ := os.Stat(f); fi.Size() > small.MaxBytes {
				t.Errorf("%s is %d bytes, over the %d limit", f, fi.Size(), small.MaxBytes)
			}
		}
	})
	t.Run("old files of other sessions beyond Keep are dropped", func(t *testing.T) {
		w := rotationWorld{t, isolate(t)}
		w.write("old", 100, small)
		w.age(8 * 24 * time.Hour)
		w.write("new", 100, small)
		if got := w.turns("new"); !contiguous(got, 100) {
			t.Fatalf("new session: read %d lines of 100", len(got))
		}
		// The new session's first lines may go into the file the old one
		// left half full; that file holds a line of the writing session
		// and is kept, with the old session's last few lines. Nothing
		// else of the old session may remain.
		got := w.turns("old")
		if len(got) > 0 && (got[len(got)-1] != 100 || !contiguous(shift(got, got[0]-1), len(got))) {
			t.Errorf("old lines other than the shared file's tail are still there: %v", got)
		}
		if len(got) >= 10 {
			t.Errorf("%d lines of the old session are still there", len(got))
		}
	})
	t.Run("old files of the current session are kept", func(t *testing.T) {
		w := rotationWorld{t, isolate(t)}
		w.write("s", 100, small)
		w.age(30 * 24 * time.Hour)
		w.write("s", 100, small)
		if got := w.turns("s"); len(got) != 200 || !contiguous(got[:100], 100) || !contiguous(got[100:], 100) {
			t.Fatalf("read %d lines of 200", len(got))
		}
	})
	t.Run("Keep files are kept however old", func(t *testing.T) {
		w := rotationWorld{t, isolate(t)}
		w.write("old", 12, Options{MaxBytes: 1000, Keep: 10})
		w.age(8 * 24 * time.Hour)
		w.write("new", 30, Options{MaxBytes: 1000, Keep: 10})
		if files, _ := logFiles(w.dir); len(files) > 11 {
			t.Errorf("%d files, want at most Keep+1", len(files))
		}
		if got := w.turns("old"); !contiguous(got, 12) {
			t.Errorf("read %d lines of the old session, want its 12 within Keep", len(got))
		}
	})
}

// TestFloodOfHugeLines is the flood the bounds exist for: lines with a
// 14 KB command of 2,000 parts. Each record stays within RecordLimit and
// says it was cut, and none of them, nor what came before, rotates away.
func TestFloodOfHugeLines(t *testing.T) {
	w := rotationWorld{t, isolate(t)}
	w.write("s", 50, Options{MaxBytes: 1 << 20})
	l, err := Open(w.dir, Options{MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("echo a; ", 2000)[:14<<10]
	parts := make([]VerdictPart, 2000)
	for i := range parts {
		parts[i] = VerdictPart{Command: "echo a", Program: "echo", Level: "safe", Reasons: []string{"prints its arguments", "reads nothing"}}
	}
	const calls = 300
	for i := 1; i <= calls; i++ {
		v := ClassifierVerdict{Line: line, Level: "safe", Parts: parts, Reasons: []string{"every part is safe"}}
		if err := l.Write(Entry{Session: "s", Turn: 50 + i, Details: v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Read(w.dir, Filter{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 50+calls {
		t.Fatalf("read %d lines, want %d", len(got), 50+calls)
	}
	for i, l := range got {
		if l.Turn != i+1 {
			t.Fatalf("line %d has turn %d", i, l.Turn)
		}
		if l.Kind != KindClassifierVerdict {
			continue
		}
		if len(l.Raw)+1 > RecordLimit || !l.Truncated {
			t.Fatalf("turn %d: %d bytes, truncated %v", l.Turn, len(l.Raw)+1, l.Truncated)
		}
		d, err := l.Decode()
		if err != nil {
			t.Fatal(err)
		}
		if v := d.(ClassifierVerdict); len(v.Parts) == 0 || v.Level != "safe" {
			t.Fatalf("turn %d: %d parts, level %q", l.Turn, len(v.Parts), v.Level)
		}
	}
}

func TestGoroutinesWriteWholeLines(t *testing.T) {
	dir := isolate(t)
	l, err := Open(dir, Options{MaxBytes: 20_000, Keep: 1000})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 1; i <= each; i++ {
				d := ToolResult{Tool: "bash", Preview: strings.Repeat(strconv.Itoa(w), i%150)}
				if err := l.Write(Entry{Session: "g" + strconv.Itoa(w), Turn: i, Details: d}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	checkSequences(t, dir, writers, each, "g")
}

func TestTwoProcessesWriteWholeLines(t *testing.T) {
	dir := isolate(t)
	const each = 400
	const maxBytes = 16_000 // rotates often, from all three processes
	var cmds []*exec.Cmd
	for _, tag := range []string{"p0", "p1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%d|%d", childEnv, dir, tag, each, maxBytes))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	if err := childWrite(fmt.Sprintf("%s|p2|%d|%d", dir, each, maxBytes)); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process: %v", err)
		}
	}
	checkSequences(t, dir, 3, each, "p")
}

// checkSequences reads the log and checks it holds exactly writers × each
// whole lines, each writer's turns in order.
func checkSequences(t *testing.T, dir string, writers, each int, prefix string) {
	t.Helper()
	lines, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != writers*each {
		t.Fatalf("read %d lines, want %d", len(lines), writers*each)
	}
	next := map[string]int{}
	for _, l := range lines {
		if !strings.HasPrefix(l.Session, prefix) {
			t.Fatalf("stray session %q", l.Session)
		}
		next[l.Session]++
		if l.Turn != next[l.Session] {
			t.Fatalf("session %s: turn %d where %d was due", l.Session, l.Turn, next[l.Session])
		}
		if _, err := l.Decode(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestNilLogWritesNothing(t *testing.T) {
	var l *Log
	if err := l.Write(Entry{Details: Prompt{Text: "x"}}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.Path() != "" {
		t.Fatal("nil log has a path")
	}
}

func TestWriteErrors(t *testing.T) {
	dir := isolate(t)
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(Entry{}); err == nil {
		t.Error("entry without details was written")
	}
	_ = l.Close()
	if err := l.Write(Entry{Details: Prompt{}}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("write after close: %v", err)
	}
	if _, err := Open("", Options{}); err == nil {
		t.Error("open without a folder succeeded")
	}
}

func TestBounds(t *testing.T) {
	long := strings.Repeat("é", TextLimit) // 2 bytes each: cut mid-way
	cases := []struct {
		name  string
		in    Details
		check func(Details) error
	}{
		{"prompt cut at 4 KB, bytes keeps the size", Prompt{Text: long}, func(d Details) error {
			p := d.(Prompt)
			return want(len(p.Text) == TextLimit && p.Bytes == len(long) && validUTF8(p.Text), "text %d bytes, bytes %d", len(p.Text), p.Bytes)
		}},
		{"prompt bytes given is kept", Prompt{Text: "abc", Bytes: 99}, func(d Details) error {
			return want(d.(Prompt).Bytes == 99, "bytes %d", d.(Prompt).Bytes)
		}},
		{"args compacted and cut", ToolCall{Tool: "write", Args: `{"content": "` + long + `"}`}, func(d Details) error {
			c := d.(ToolCall)
			return want(strings.HasPrefix(c.Args, `{"content":"éé`) && len(c.Args) <= TextLimit && c.Bytes == len(long)+14, "args %q… bytes %d", c.Args[:20], c.Bytes)
		}},
		{"args that are not JSON kept as text", ToolCall{Args: "not json"}, func(d Details) error {
			return want(d.(ToolCall).Args == "not json", "args %q", d.(ToolCall).Args)
		}},
		{"preview cut at 200 characters", ToolResult{Preview: long}, func(d Details) error {
			r := d.(ToolResult)
			return want(len([]rune(r.Preview)) == PreviewLimit && r.Bytes == len(long), "preview %d chars, bytes %d", len([]rune(r.Preview)), r.Bytes)
		}},
		{"command line cut", CommandOutcome{Line: long}, func(d Details) error {
			return want(len(d.(CommandOutcome).Line) == TextLimit, "line %d bytes", len(d.(CommandOutcome).Line))
		}},
		{"nil lists become empty", ClassifierVerdict{Parts: []VerdictPart{{}}}, func(d Details) error {
			v := d.(ClassifierVerdict)
			return want(v.Reasons != nil && v.Parts[0].Reasons != nil, "nil list left")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(c.in.bounded(newCutter())); err != nil {
				t.Error(err)
			}
		})
	}
}

func want(ok bool, format string, a ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf(format, a...)
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestWriterCutsATornTail(t *testing.T) {
	dir := isolate(t)
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Write(Entry{Turn: 1, Details: Prompt{Text: "one"}}); err != nil {
		t.Fatal(err)
	}
	// A writer killed mid-line leaves half a line behind.
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(f, `{"schema":1,"id":"dead`)
	_ = f.Close()
	if err := l.Write(Entry{Turn: 2, Details: Prompt{Text: "two"}}); err != nil {
		t.Fatal(err)
	}
	lines, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0].Turn != 1 || lines[1].Turn != 2 {
		t.Fatalf("got %d lines", len(lines))
	}
	data, _ := os.ReadFile(filepath.Join(dir, FileName))
	if bytes.Contains(data, []byte("dead")) {
		t.Error("torn tail left in the file")
	}
}

// A live file removed or replaced behind the writer's back (by hand, or
// by a program that is not wisp) is followed: the next line goes to the
// file now at the path, and the writer then knows that file, so the
// size it checks is the new file's, never the one it had open.
func TestWriterFollowsAReplacedFile(t *testing.T) {
	dir := isolate(t)
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	path := filepath.Join(dir, FileName)
	write := func(turn int) {
		t.Helper()
		if err := l.Write(Entry{Turn: turn, Details: Prompt{Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	turns := func() []int {
		t.Helper()
		lines, err := Read(dir, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, line := range lines {
			out = append(out, line.Turn)
		}
		return out
	}
	write(1)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	write(2)
	write(3)
	if got := turns(); fmt.Sprint(got) != "[2 3]" {
		t.Fatalf("after removal: turns %v, want [2 3]", got)
	}
	// A replacement ending in a torn line: the writer must see its size,
	// not the old file's, to cut the tail.
	repl := filepath.Join(dir, "replacement")
	if err := os.WriteFile(repl, []byte(`{"schema":1,"id":"dead`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(repl, path); err != nil {
		t.Fatal(err)
	}
	write(4)
	write(5)
	if got := turns(); fmt.Sprint(got) != "[4 5]" {
		t.Fatalf("after replacement: turns %v, want [4 5]", got)
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("dead")) {
		t.Error("torn tail of the replacement left in the file")
	}
	live, err := os.Stat(path)
	if err != nil || !os.SameFile(l.fid, live) {
		t.Errorf("the writer does not know the file it writes (stat: %v)", err)
	}
}

func TestAnotherWriterSeesRotation(t *testing.T) {
	dir := isolate(t)
	a, err := Open(dir, Options{MaxBytes: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(dir, Options{MaxBytes: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := 1; i <= 30; i++ {
		w := a
		if i%3 == 0 {
			w = b
		}
		if err := w.Write(Entry{Turn: i, Details: Prompt{Text: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i].Turn != lines[i-1].Turn+1 {
			t.Fatalf("turn %d follows %d: a writer wrote to a rotated file", lines[i].Turn, lines[i-1].Turn)
		}
	}
	if lines[len(lines)-1].Turn != 30 {
		t.Fatalf("last turn %d", lines[len(lines)-1].Turn)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTruncatedFlag: a line says whether anything in it was cut, and the
// whole line never passes RecordLimit.
func TestTruncatedFlag(t *testing.T) {
	many := make([]VerdictPart, 5000)
	for i := range many {
		many[i] = VerdictPart{Command: strings.Repeat("x", 100), Reasons: []string{strings.Repeat("r", 100)}}
	}
	cases := []struct {
		name string
		d    Details
		want bool
	}{
		{"short prompt", Prompt{Text: "hi"}, false},
		{"prompt over 4 KB", Prompt{Text: strings.Repeat("p", TextLimit+1)}, true},
		{"long preview is not a cut", ToolResult{Preview: strings.Repeat("p", 5000)}, false},
		{"long reason", ApprovalDecided{Reason: strings.Repeat("r", TextLimit+1)}, true},
		{"long path", FileWrite{Path: "/" + strings.Repeat("d/", 3000)}, true},
		{"verdict of 5,000 parts", ClassifierVerdict{Line: "x", Parts: many}, true},
		{"many reasons", ClassifierVerdict{Reasons: slicesRepeat(strings.Repeat("r", 4000), 40)}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := isolate(t)
			l, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Write(Entry{Session: "s", Details: c.d}); err != nil {
				t.Fatal(err)
			}
			_ = l.Close()
			got, err := Read(dir, Filter{})
			if err != nil || len(got) != 1 {
				t.Fatalf("read %d lines: %v", len(got), err)
			}
			if got[0].Truncated != c.want || len(got[0].Raw)+1 > RecordLimit {
				t.Errorf("truncated %v (want %v), %d bytes", got[0].Truncated, c.want, len(got[0].Raw)+1)
			}
			if _, err := got[0].Decode(); err != nil {
				t.Error(err)
			}
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}
