package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/config"
)

func TestLogsArgs(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		want    logsArgs
		wantErr string // a substring of the usage error
	}{
		{"none", nil, logsArgs{}, ""},
		{"all flags", []string{"--session", "3f2a", "--kind", "tool.call", "--kind=command.outcome", "--tool", "bash", "--last", "5", "--json", "--follow"},
			logsArgs{filter: Filter{Session: "3f2a", Kinds: []string{"tool.call", "command.outcome"}, Tool: "bash", Last: 5}, json: true, follow: true}, ""},
		{"kinds with commas, repeats once", []string{"--kind", "prompt,response", "--kind", "prompt"},
			logsArgs{filter: Filter{Kinds: []string{"prompt", "response"}}}, ""},
		{"short forms", []string{"-f", "-n", "3"}, logsArgs{filter: Filter{Last: 3}, follow: true}, ""},
		{"help", []string{"--help"}, logsArgs{help: true}, ""},
		{"unknown flag", []string{"--since", "1h"}, logsArgs{}, "unknown flag --since for wisp logs"},
		{"argument", []string{"bash"}, logsArgs{}, `wisp logs takes no arguments, got "bash"`},
		{"unknown kind", []string{"--kind", "tool.cal"}, logsArgs{}, `unknown audit kind "tool.cal" (kinds: session.start, `},
		{"missing value", []string{"--session"}, logsArgs{}, "--session needs a value"},
		{"empty session", []string{"--session="}, logsArgs{}, "--session needs a session id"},
		{"empty tool", []string{"--tool", ""}, logsArgs{}, "--tool needs a tool name"},
		{"last not a number", []string{"--last", "ten"}, logsArgs{}, `--last needs a positive number, not "ten"`},
		{"last zero", []string{"--last=0"}, logsArgs{}, "--last needs a positive number"},
		{"value on a switch", []string{"--json=yes"}, logsArgs{}, "--json takes no value"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseLogsArgs(c.args)
			if c.wantErr != "" {
				var ue *config.UsageError
				if !errors.As(err, &ue) || !strings.Contains(ue.Msg, c.wantErr) {
					t.Fatalf("error %v, want a usage error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestLogs(t *testing.T) {
	dir := isolate(t)
	at := time.Date(2026, 11, 30, 9, 15, 2, 0, time.UTC)
	clock := at.Local().Format("15:04:05")
	writeLines(t, dir, Options{Now: func() time.Time { return at }},
		Entry{Session: "3f2a1b0c9d8e7f60", Turn: 1, Call: "c1", Details: ToolCall{Tool: "bash", Class: "command", Args: `{"command":"go test ./..."}`}},
		Entry{Session: "3f2a1b0c9d8e7f60", Turn: 1, Call: "c1", Details: CommandOutcome{Line: "go test ./...", DurationMS: 1200, Sandboxed: true}},
	)
	raw, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		dir        string
		args       []string
		stdout     string
		stderr     string
		usageError bool
	}{
		{"text", dir, nil,
			clock + ` 3f2a1b0c tool.call bash command {"command":"go test ./..."}` + "\n" +
				clock + ` 3f2a1b0c command.outcome exit=0 1.2s sandboxed "go test ./..."` + "\n", "", false},
		{"json prints the lines as stored", dir, []string{"--json", "--kind", "command.outcome"}, string(raw[1].Raw) + "\n", "", false},
		{"filters", dir, []string{"--tool", "bash", "--last", "1"},
			clock + ` 3f2a1b0c command.outcome exit=0 1.2s sandboxed "go test ./..."` + "\n", "", false},
		{"nothing matches", dir, []string{"--session", "ffff"}, "", "wisp: no audit lines match\n", false},
		{"no log yet", t.TempDir(), nil, "", "wisp: no audit log yet (", false},
		{"bad flag", dir, []string{"--bogus"}, "", "", true},
		{"help", dir, []string{"-h"}, LogsUsage, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Logs(context.Background(), &stdout, &stderr, c.dir, c.args)
			var ue *config.UsageError
			if c.usageError != errors.As(err, &ue) || (!c.usageError && err != nil) {
				t.Fatalf("error %v, usage error wanted: %v", err, c.usageError)
			}
			if stdout.String() != c.stdout {
				t.Errorf("stdout\n%s\nwant\n%s", stdout.String(), c.stdout)
			}
			if !strings.HasPrefix(stderr.String(), c.stderr) || (c.stderr == "" && stderr.Len() > 0) {
				t.Errorf("stderr %q, want %q", stderr.String(), c.stderr)
			}
		})
	}
}

func TestLogsFollow(t *testing.T) {
	dir := isolate(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	stderr := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- Logs(ctx, out, stderr, dir, []string{"--follow", "--json"}) }()
	waitFor(t, stderr, "waiting for it")
	writeLines(t, dir, Options{}, Entry{Details: Prompt{Text: "followed"}})
	waitFor(t, out, `"text":"followed"`)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Logs returned %v", err)
	}
}

// waitFor waits until b holds s; the deadline only keeps a broken test
// from hanging.
func waitFor(t *testing.T, b *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("%q never written; have %q", s, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer one goroutine writes while another reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsSkipsMalformedLines: one damaged line does not hide the log;
// it is skipped with a warning that names it and shows its control
// bytes as escapes.
func TestLogsSkipsMalformedLines(t *testing.T) {
	dir := isolate(t)
	writeLines(t, dir, Options{}, Entry{Turn: 1, Details: Prompt{Text: "one"}})
	f, err := os.OpenFile(filepath.Join(dir, FileName), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{garbage \x1b]0;title\x07\n"); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	writeLines(t, dir, Options{}, Entry{Turn: 2, Details: Prompt{Text: "two"}})
	for _, args := range [][]string{nil, {"--json"}} {
		var stdout, stderr bytes.Buffer
		if err := Logs(context.Background(), &stdout, &stderr, dir, args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if n := strings.Count(stdout.String(), "\n"); n != 2 || !strings.Contains(stdout.String(), "two") {
			t.Errorf("%v: stdout %q, want both good lines", args, stdout.String())
		}
		warn := stderr.String()
		if !strings.HasPrefix(warn, "wisp: warning: skipped ") || !strings.Contains(warn, "audit.jsonl:2: malformed line") || strings.ContainsAny(warn, "\x1b\x07") {
			t.Errorf("%v: stderr %q", args, warn)
		}
	}
	// Read itself stays strict for callers that want to know.
	if _, err := Read(dir, Filter{}); err == nil {
		t.Error("Read passed over a malformed line without being asked to")
	}
}
