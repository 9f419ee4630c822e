package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeLines writes entries to a fresh log in dir.
func writeLines(t testing.TB, dir string, opts Options, entries ...Entry) {
	t.Helper()
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := l.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// aSession is a small session: two calls of bash and one of write.
func aSession(id string) []Entry {
	return []Entry{
		{Session: id, Details: SessionStart{Mode: "print"}},
		{Session: id, Turn: 1, Details: Prompt{Text: "go"}},
		{Session: id, Turn: 1, Call: "c1", Details: ToolCall{Tool: "bash", Args: `{"command":"ls"}`}},
		{Session: id, Turn: 1, Call: "c1", Details: ClassifierVerdict{Line: "ls", Level: "safe"}},
		{Session: id, Turn: 1, Call: "c1", Details: CommandOutcome{Line: "ls"}},
		{Session: id, Turn: 1, Call: "c1", Details: ToolResult{Tool: "bash"}},
		{Session: id, Turn: 2, Call: "c2", Details: ToolCall{Tool: "write"}},
		{Session: id, Turn: 2, Call: "c2", Details: FileWrite{Tool: "write", Path: "/p/a"}},
		{Session: id, Turn: 2, Call: "c2", Details: ToolResult{Tool: "write"}},
		{Session: id, Turn: 3, Call: "c3", Details: ToolCall{Tool: "bash", Args: `{"command":"make"}`}},
		{Session: id, Turn: 3, Call: "c3", Details: CommandOutcome{Line: "make", ExitCode: 2}},
		{Session: id, Turn: 3, Details: SessionEnd{Reason: "done"}},
	}
}

func TestReadFilters(t *testing.T) {
	dir := isolate(t)
	entries := append(aSession("aaaa1111bbbb2222"), aSession("aaaa3333cccc4444")...)
	writeLines(t, dir, Options{MaxBytes: 1500}, entries...) // spans rotated files

	// describe renders a line as session:turn:kind:call for comparison.
	describe := func(lines []Line) []string {
		var out []string
		for _, l := range lines {
			out = append(out, fmt.Sprintf("%s:%d:%s:%s", l.Session[4:8], l.Turn, l.Kind, l.Call))
		}
		return out
	}
	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"session by full id", Filter{Session: "aaaa3333cccc4444", Kinds: []string{KindSessionStart, KindSessionEnd}},
			[]string{"3333:0:session.start:", "3333:3:session.end:"}},
		{"session by prefix", Filter{Session: "aaaa1", Kinds: []string{KindPrompt}},
			[]string{"1111:1:prompt:"}},
		{"prefix matching both", Filter{Session: "aaaa", Kinds: []string{KindPrompt}},
			[]string{"1111:1:prompt:", "3333:1:prompt:"}},
		{"kinds", Filter{Session: "aaaa1111", Kinds: []string{KindCommandOutcome, KindFileWrite}},
			[]string{"1111:1:command.outcome:c1", "1111:2:file.write:c2", "1111:3:command.outcome:c3"}},
		{"tool takes the lines of its calls", Filter{Session: "aaaa1111", Tool: "bash"},
			[]string{"1111:1:tool.call:c1", "1111:1:classifier.verdict:c1", "1111:1:command.outcome:c1", "1111:1:tool.result:c1", "1111:3:tool.call:c3", "1111:3:command.outcome:c3"}},
		{"tool with a kind the tool field lacks", Filter{Tool: "bash", Kinds: []string{KindCommandOutcome}},
			[]string{"1111:1:command.outcome:c1", "1111:3:command.outcome:c3", "3333:1:command.outcome:c1", "3333:3:command.outcome:c3"}},
		{"tool write", Filter{Session: "aaaa3333", Tool: "write"},
			[]string{"3333:2:tool.call:c2", "3333:2:file.write:c2", "3333:2:tool.result:c2"}},
		{"last", Filter{Last: 2}, []string{"3333:3:command.outcome:c3", "3333:3:session.end:"}},
		{"last with kinds", Filter{Kinds: []string{KindToolCall}, Last: 1}, []string{"3333:3:tool.call:c3"}},
		{"last beyond the count", Filter{Session: "aaaa1", Kinds: []string{KindPrompt}, Last: 10}, []string{"1111:1:prompt:"}},
		{"nothing matches", Filter{Session: "ffff"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines, err := Read(dir, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(lines); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
	all, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(entries) {
		t.Fatalf("read %d lines of %d", len(all), len(entries))
	}
	if files, _ := logFiles(dir); len(files) < 3 {
		t.Fatalf("the log did not rotate: %v", files)
	}
}

func TestReadDamage(t *testing.T) {
	good := func(t *testing.T, dir string) {
		writeLines(t, dir, Options{}, Entry{Turn: 1, Details: Prompt{Text: "one"}}, Entry{Turn: 2, Details: Prompt{Text: "two"}})
	}
	appendText := func(t *testing.T, path, s string) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		damage  func(t *testing.T, dir string)
		turns   []int  // lines read when wantErr is empty
		wantErr string // a substring of the error
	}{
		{"torn tail skipped", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName), `{"schema":1,"id":"ab`)
		}, []int{1, 2}, ""},
		{"blank lines skipped", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName), "\n  \n")
		}, []int{1, 2}, ""},
		{"malformed complete line named", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName), "{not json}\n")
		}, nil, "audit.jsonl:3: malformed line"},
		{"not an audit line", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName), `{"hello":"world"}`+"\n")
		}, nil, "audit.jsonl:3: malformed line: no schema version"},
		{"details not an object", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName), `{"schema":1,"id":"a","time":"2026-01-01T00:00:00.000Z","kind":"prompt","details":[]}`+"\n")
		}, nil, "details are not an object"},
		{"malformed line in a rotated file", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName+".1"), "x\n")
		}, nil, "audit.jsonl.1:1: malformed line"},
		{"unknown kind from a newer wisp is read", func(t *testing.T, dir string) {
			appendText(t, filepath.Join(dir, FileName), `{"schema":2,"id":"a","time":"2026-01-01T00:00:00.000Z","turn":3,"kind":"new.kind","details":{}}`+"\n")
		}, []int{1, 2, 3}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := isolate(t)
			good(t, dir)
			c.damage(t, dir)
			lines, err := Read(dir, Filter{})
			if c.wantErr != "" {
				var fe *FormatError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &fe) {
					t.Fatalf("error %v, want a *FormatError with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var turns []int
			for _, l := range lines {
				turns = append(turns, l.Turn)
			}
			if !reflect.DeepEqual(turns, c.turns) {
				t.Fatalf("turns %v, want %v", turns, c.turns)
			}
		})
	}
}

func TestReadNoLog(t *testing.T) {
	cases := []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"no folder", func(t *testing.T) string { return filepath.Join(t.TempDir(), "logs") }},
		{"empty folder", func(t *testing.T) string { return t.TempDir() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Read(c.dir(t), Filter{}); !errors.Is(err, ErrNoLog) {
				t.Fatalf("error %v, want ErrNoLog", err)
			}
		})
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	dir := isolate(t)
	var entries []Entry
	for _, d := range samples() {
		entries = append(entries, Entry{Details: d})
	}
	writeLines(t, dir, Options{}, entries...)
	lines, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range samples() {
		t.Run(d.Kind(), func(t *testing.T) {
			got, err := lines[i].Decode()
			if err != nil {
				t.Fatal(err)
			}
			if want := d.bounded(newCutter()); !reflect.DeepEqual(got, want) {
				t.Errorf("decoded %#v\nwant %#v", got, want)
			}
		})
	}
	if _, err := (Line{Kind: "no.such", Details: []byte("{}")}).Decode(); err == nil {
		t.Error("unknown kind decoded")
	}
}

func TestFormatText(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 15, 2, 123e6, time.UTC)
	clock := at.Local().Format("15:04:05")
	cases := []struct {
		name    string
		session string
		d       Details
		want    string
	}{
		{"command outcome", "3f2a1b0c9d8e7f60", CommandOutcome{Line: "go test ./...", DurationMS: 1200, Sandboxed: true},
			clock + ` 3f2a1b0c command.outcome exit=0 1.2s sandboxed "go test ./..."`},
		{"killed unsandboxed command", "s1", CommandOutcome{Line: "sleep 99", ExitCode: -1, Signal: "SIGKILL", TimedOut: true, DurationMS: 120000, SandboxRefusal: "/etc/x"},
			clock + ` s1       command.outcome exit=-1 signal=SIGKILL 120.0s timed-out unsandboxed refused="/etc/x" "sleep 99"`},
		{"no session", "", ErrorReport{Message: "boom", Where: "provider"},
			clock + ` -        error provider: "boom"`},
		{"long text shortened", "s", Prompt{Text: strings.Repeat("a", 100)},
			clock + ` s        prompt 100B "` + strings.Repeat("a", 80) + `"…`},
		{"tool result", "s", ToolResult{Tool: "read", Bytes: 2048, DurationMS: 5, Preview: "package main"},
			clock + ` s        tool.result read ok 2.0KB 5ms "package main"`},
		{"approval", "s", ApprovalDecided{Tool: "bash", Subject: "rm x", Scope: "once", By: "timeout"},
			clock + ` s        approval.decided denied once by timeout bash "rm x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := isolate(t)
			writeLines(t, dir, Options{Now: func() time.Time { return at }}, Entry{Session: c.session, Details: c.d})
			lines, err := Read(dir, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if got := FormatText(lines[0]); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
	t.Run("every kind has a summary", func(t *testing.T) {
		for _, d := range samples() {
			l := Line{Time: at, Kind: d.Kind(), Details: mustJSON(t, d)}
			if got := FormatText(l); !strings.HasPrefix(got, clock+" -        "+d.Kind()+" ") || len(got) < len(clock)+len(d.Kind())+14 {
				t.Errorf("%s: %q", d.Kind(), got)
			}
		}
	})
	t.Run("unknown kind shows its details", func(t *testing.T) {
		l := Line{Time: at, Kind: "new.kind", Details: []byte(`{ "a": 1 }`)}
		if got, want := FormatText(l), clock+` -        new.kind {"a":1}`; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

func mustJSON(t *testing.T, d Details) []byte {
	t.Helper()
	b, err := json.Marshal(d.bounded(newCutter()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestFollow(t *testing.T) {
	dir := isolate(t)
	opts := Options{MaxBytes: 1000, Keep: 50}
	l, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	write := func(from, to int) {
		for i := from; i <= to; i++ {
			if err := l.Write(Entry{Session: "s", Turn: i, Details: Prompt{Text: strings.Repeat("f", 100)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(1, 5) // the backlog

	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan Line, 1000)
	done := make(chan error, 1)
	go func() { done <- Follow(ctx, dir, Filter{Session: "s", Last: 2}, func(l Line) { got <- l }) }()

	next := 4 // Last: 2 shows turns 4 and 5 first
	expect := func(upTo int, what string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for next <= upTo {
			select {
			case l := <-got:
				if l.Turn != next {
					t.Fatalf("%s: got turn %d, want %d", what, l.Turn, next)
				}
				next++
			case <-deadline:
				t.Fatalf("%s: turn %d never came", what, next)
			}
		}
	}
	expect(5, "backlog")
	write(6, 8) // no rotation yet
	expect(8, "new lines")
	write(9, 20) // past 1000 bytes: rotates, likely more than once between polls
	expect(20, "across rotations")
	write(21, 21)
	expect(21, "after rotation")
	if files, _ := logFiles(dir); len(files) < 4 {
		t.Fatalf("the log rotated too little to test: %v", files)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Follow returned %v, want context.Canceled", err)
	}
	select {
	case l := <-got:
		t.Fatalf("turn %d shown twice or out of order", l.Turn)
	default:
	}
}

func TestFollowWaitsForTheLog(t *testing.T) {
	dir := isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan Line, 10)
	done := make(chan error, 1)
	go func() { done <- Follow(ctx, dir, Filter{Kinds: []string{KindPrompt}}, func(l Line) { got <- l }) }()
	writeLines(t, dir, Options{}, Entry{Turn: 1, Details: SessionStart{}}, Entry{Turn: 2, Details: Prompt{}})
	select {
	case l := <-got:
		if l.Kind != KindPrompt {
			t.Fatalf("got a %s line through a prompt filter", l.Kind)
		}
	case err := <-done:
		t.Fatalf("Follow ended: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the new log's line never came")
	}
}
