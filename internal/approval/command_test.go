package approval

import (
	"errors"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/shell"
)

func TestCommandUsage(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	tests := []struct {
		name string
		args []string
	}{
		{"no verb", nil},
		{"approve is not a command", []string{"approve", "abcd1234"}},
		{"deny is not a command", []string{"deny", "abcd1234"}},
		{"unknown verb", []string{"show"}},
		{"list takes nothing", []string{"list", "extra"}},
		{"clear takes nothing", []string{"clear", "--all"}},
		{"revoke needs an id", []string{"revoke"}},
		{"revoke takes one id", []string{"revoke", "a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errw strings.Builder
			err := Command(tt.args, &out, &errw, s)
			var ue *config.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("Command(%q) = %v, want *config.UsageError", tt.args, err)
			}
		})
	}
}

func TestCommandHelp(t *testing.T) {
	var out strings.Builder
	if err := Command([]string{"--help"}, &out, &out, nil); err != nil {
		t.Fatal(err)
	}
	if out.String() != CommandUsage {
		t.Errorf("help = %q", out.String())
	}
}

func TestCommandListRevokeClear(t *testing.T) {
	w := newWorld(t)
	s := w.open(w.dirA)
	run := func(args ...string) (string, string, error) {
		t.Helper()
		var out, errw strings.Builder
		err := Command(args, &out, &errw, s)
		return out.String(), errw.String(), err
	}

	out, _, err := run("list")
	if err != nil || out != "No remembered approvals.\n" {
		t.Fatalf("empty list = %q, %v", out, err)
	}

	var ids []string
	for _, r := range []struct {
		p string
		l shell.Level
		s Scope
	}{{"git push", shell.Moderate, ScopeProject}, {"npm install", shell.Safe, ScopeAlways}, {"rm", shell.Moderate, ScopeSession}} {
		d, err := s.Remember(r.p, r.l, r.s)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, d.Entry.ID)
	}
	out, _, err = run("list")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("list has %d lines, want 4:\n%s", len(lines), out)
	}
	header := lines[0]
	for _, col := range []string{"SCOPE", "PATTERN", "UP TO", "PROJECT", "EXPIRES"} {
		at := strings.Index(header, col)
		if at < 0 {
			t.Fatalf("header lacks %s: %q", col, header)
		}
		for _, l := range lines[1:] {
			if len(l) <= at || l[at] == ' ' || l[at-1] != ' ' {
				t.Errorf("column %s not aligned in %q", col, l)
			}
		}
	}
	wantRows := []string{
		ids[2] + "  session  rm           moderate  (this process)",
		ids[0] + "  project  git push     moderate  " + mustResolve(t, w.dirA),
		ids[1] + "  always   npm install  safe      (any)",
	}
	for i, want := range wantRows {
		if !strings.HasPrefix(lines[i+1], want) {
			t.Errorf("row %d = %q, want prefix %q", i, lines[i+1], want)
		}
	}
	if !strings.Contains(lines[1], "end of session") {
		t.Errorf("session row lacks its expiry: %q", lines[1])
	}

	out, _, err = run("revoke", ids[0])
	if err != nil || out != "Revoked "+ids[0]+".\n" {
		t.Fatalf("revoke = %q, %v", out, err)
	}
	if _, _, err = run("revoke", ids[0]); !errors.Is(err, ErrUnknownID) || !strings.Contains(err.Error(), "wisp approvals list") {
		t.Fatalf("revoke of a revoked id = %v", err)
	}

	out, _, err = run("clear")
	if err != nil || out != "Cleared 2 remembered approvals.\n" {
		t.Fatalf("clear = %q, %v", out, err)
	}
	if out, _, _ = run("list"); out != "No remembered approvals.\n" {
		t.Fatalf("list after clear = %q", out)
	}
}

func TestCommandListMalformed(t *testing.T) {
	w := newWorld(t)
	writeFile(t, w.file, "{oops")
	s, _ := Open(w.file, w.dirA, w.clk.now)
	var out, errw strings.Builder
	err := Command([]string{"list"}, &out, &errw, s)
	var me *MalformedError
	if !errors.As(err, &me) {
		t.Fatalf("list on a malformed file = %v, want *MalformedError", err)
	}
	if !strings.Contains(err.Error(), "wisp approvals clear") || !strings.Contains(err.Error(), w.file) {
		t.Errorf("error lacks the file or the recovery hint: %v", err)
	}
	out.Reset()
	if err := Command([]string{"clear"}, &out, &errw, s); err != nil {
		t.Fatalf("clear on a malformed file: %v", err)
	}
	if !strings.Contains(errw.String(), "replaced") {
		t.Errorf("clear did not say it replaced the file: %q", errw.String())
	}
	if err := Command([]string{"list"}, &out, &errw, s); err != nil {
		t.Fatalf("list after clear: %v", err)
	}
}
