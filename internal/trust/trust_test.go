package trust

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wisp-agent/wisp/internal/config"
)

// isolate points HOME and WISP_HOME at a temporary folder and returns
// wisp's home there.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("WISP_HOME", filepath.Join(home, ".wisp"))
	return filepath.Join(home, ".wisp")
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openStore(t *testing.T, wispHome string) *Store {
	t.Helper()
	s, err := Open(filepath.Join(wispHome, FileName))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLocate(t *testing.T) {
	wispHome := isolate(t)
	repo := mkdir(t, t.TempDir(), "repo")
	def := filepath.Join(wispHome, "trust.json")
	tests := []struct {
		name, env, want string
		warn            bool
	}{
		{name: "unset", env: "", want: def},
		{name: "absolute", env: "/var/lib/wisp/trust.json", want: "/var/lib/wisp/trust.json"},
		{name: "absolute is cleaned", env: "/var/lib/../lib/wisp//t.json", want: "/var/lib/wisp/t.json"},
		{name: "absolute inside the repository", env: filepath.Join(repo, "trust.json"), want: filepath.Join(repo, "trust.json")},
		{name: "relative", env: "trust.json", want: def, warn: true},
		{name: "relative with dots", env: "./.wisp/trust.json", want: def, warn: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, warn := Locate(wispHome, tc.env)
			if got != tc.want {
				t.Errorf("path %q, want %q", got, tc.want)
			}
			if (warn != "") != tc.warn {
				t.Errorf("warn %q, want warning: %v", warn, tc.warn)
			}
			if tc.warn && (!strings.Contains(warn, "WISP_TRUST_FILE") || !strings.Contains(warn, def)) {
				t.Errorf("warning %q should name WISP_TRUST_FILE and the default", warn)
			}
		})
	}
	if _, err := Open("relative.json"); err == nil {
		t.Error("Open accepted a relative path")
	}
}

func TestStoreDecisions(t *testing.T) {
	wispHome := isolate(t)
	proj := mkdir(t, t.TempDir(), "proj")
	type step struct {
		op   string // allow, revoke, forget
		want Status
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{name: "fresh is undecided", steps: []step{{"", Undecided}}},
		{name: "allow", steps: []step{{"allow", Trusted}}},
		{name: "revoke", steps: []step{{"revoke", Untrusted}}},
		{name: "allow then revoke", steps: []step{{"allow", Trusted}, {"revoke", Untrusted}}},
		{name: "revoke then allow", steps: []step{{"revoke", Untrusted}, {"allow", Trusted}}},
		{name: "allow then forget", steps: []step{{"allow", Trusted}, {"forget", Undecided}}},
		{name: "forget with nothing stored", steps: []step{{"forget", Undecided}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			for _, st := range tc.steps {
				var err error
				switch st.op {
				case "allow":
					err = s.Set(proj, true)
				case "revoke":
					err = s.Set(proj, false)
				case "forget":
					err = s.Forget(proj)
				}
				if err != nil {
					t.Fatalf("%s: %v", st.op, err)
				}
				got, err := s.Status(proj)
				if err != nil || got != st.want {
					t.Fatalf("after %s: %q, %v; want %q", st.op, got, err, st.want)
				}
			}
		})
	}
	t.Run("file is private and whole", func(t *testing.T) {
		s := openStore(t, wispHome)
		if err := s.Set(proj, true); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(s.Path())
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
		left, _ := filepath.Glob(filepath.Join(wispHome, ".trust-*"))
		if len(left) > 0 {
			t.Errorf("temporary files left behind: %v", left)
		}
		data, _ := os.ReadFile(s.Path())
		if !bytes.Contains(data, []byte(`"decision": "trusted"`)) || !bytes.Contains(data, []byte(`"at": "`)) {
			t.Errorf("store lacks decision or timestamp:\n%s", data)
		}
	})
	t.Run("allow a missing folder fails", func(t *testing.T) {
		s := openStore(t, t.TempDir())
		if err := s.Set(filepath.Join(proj, "nope"), true); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("forget a deleted project", func(t *testing.T) {
		s := openStore(t, t.TempDir())
		gone := mkdir(t, t.TempDir(), "gone")
		if err := s.Set(gone, true); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(gone); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.Status(gone); st != Trusted {
			t.Fatalf("status of deleted project %q", st)
		}
		if err := s.Forget(gone); err != nil {
			t.Fatal(err)
		}
		if st, _ := s.Status(gone); st != Undecided {
			t.Fatalf("after forget: %q", st)
		}
	})
}

func TestSymlinkedProjectSharesKey(t *testing.T) {
	isolate(t)
	base := t.TempDir()
	real := mkdir(t, base, "real")
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	tests := []struct{ name, set, ask string }{
		{name: "set via link, ask via real", set: link, ask: real},
		{name: "set via real, ask via link", set: real, ask: link},
		{name: "set via link with dots", set: filepath.Join(link, "..", "link"), ask: real},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			if err := s.Set(tc.set, true); err != nil {
				t.Fatal(err)
			}
			if st, err := s.Status(tc.ask); err != nil || st != Trusted {
				t.Fatalf("%q, %v", st, err)
			}
			p, err := s.Projects()
			if err != nil || len(p) != 1 {
				t.Fatalf("projects %v, %v", p, err)
			}
			want, _ := filepath.EvalSymlinks(real)
			if _, ok := p[want]; !ok {
				t.Fatalf("key is not the resolved path %q: %v", want, p)
			}
		})
	}
}

func TestMalformedStore(t *testing.T) {
	isolate(t)
	proj := t.TempDir()
	tests := []struct{ name, text string }{
		{name: "not json", text: "{trusted"},
		{name: "wrong shape", text: `{"projects": ["a"]}`},
		{name: "unknown decision", text: `{"projects": {"/p": {"decision": "maybe"}}}`},
		{name: "relative key", text: `{"projects": {"p": {"decision": "trusted"}}}`},
		{name: "future version", text: `{"version": 7, "projects": {}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			write(t, s.Path(), tc.text)
			_, err := s.Status(proj)
			var me *MalformedError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), s.Path()) {
				t.Fatalf("error %v should be a MalformedError naming %s", err, s.Path())
			}
			d, warn := Decide("", s, proj)
			if d.Trusted || d.Status != Untrusted || !strings.Contains(warn, s.Path()) {
				t.Fatalf("decision %+v, warn %q", d, warn)
			}
			if d, _ := Decide("1", s, proj); !d.Trusted {
				t.Fatal("WISP_TRUST=1 should not need the store")
			}
			if err := s.Set(proj, true); !errors.As(err, &me) {
				t.Fatalf("Set over a malformed store: %v", err)
			}
			if data, _ := os.ReadFile(s.Path()); string(data) != tc.text {
				t.Fatal("malformed store was overwritten")
			}
		})
	}
	t.Run("empty file is an empty store", func(t *testing.T) {
		s := openStore(t, t.TempDir())
		write(t, s.Path(), "  \n")
		if st, err := s.Status(proj); err != nil || st != Undecided {
			t.Fatalf("%q, %v", st, err)
		}
	})
}

func TestDecide(t *testing.T) {
	isolate(t)
	proj := t.TempDir()
	tests := []struct {
		name    string
		env     string
		stored  Status
		nilS    bool
		want    Decision
		warnHas string
	}{
		{name: "env 1 over nothing", env: "1", want: Decision{true, Trusted, SourceEnv}},
		{name: "env 1 over untrusted", env: "1", stored: Untrusted, want: Decision{true, Trusted, SourceEnv}},
		{name: "env 0 over trusted", env: "0", stored: Trusted, want: Decision{false, Untrusted, SourceEnv}},
		{name: "store trusted", stored: Trusted, want: Decision{true, Trusted, SourceStore}},
		{name: "store untrusted", stored: Untrusted, want: Decision{false, Untrusted, SourceStore}},
		{name: "undecided", want: Decision{false, Undecided, SourceNone}},
		{name: "garbage env ignored", env: "yes", stored: Trusted, want: Decision{true, Trusted, SourceStore}, warnHas: `WISP_TRUST="yes" ignored`},
		{name: "garbage env undecided", env: "true", want: Decision{false, Undecided, SourceNone}, warnHas: "WISP_TRUST"},
		{name: "padded env is garbage", env: " 1", want: Decision{false, Undecided, SourceNone}, warnHas: "WISP_TRUST"},
		{name: "no store", nilS: true, want: Decision{false, Undecided, SourceNone}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			if tc.stored != "" {
				if err := s.Set(proj, tc.stored == Trusted); err != nil {
					t.Fatal(err)
				}
			}
			if tc.nilS {
				s = nil
			}
			got, warn := Decide(tc.env, s, proj)
			if got != tc.want {
				t.Errorf("decision %+v, want %+v", got, tc.want)
			}
			if tc.warnHas == "" && warn != "" || !strings.Contains(warn, tc.warnHas) {
				t.Errorf("warn %q, want %q", warn, tc.warnHas)
			}
			if tc.env != "" && s != nil {
				// WISP_TRUST is never persisted.
				if st, _ := s.Status(proj); st != orUndecided(tc.stored) {
					t.Errorf("store changed to %q", st)
				}
			}
		})
	}
}

func orUndecided(s Status) Status {
	if s == "" {
		return Undecided
	}
	return s
}

func TestSettle(t *testing.T) {
	isolate(t)
	proj := t.TempDir()
	tests := []struct {
		name        string
		start       Decision
		interactive bool
		answer      string
		want        Decision
		stored      Status
	}{
		{name: "non-interactive undecided is untrusted", start: Decision{Status: Undecided}, want: Decision{Status: Undecided}, stored: Undecided},
		{name: "interactive yes", start: Decision{Status: Undecided}, interactive: true, answer: "y", want: Decision{true, Trusted, SourcePrompt}, stored: Trusted},
		{name: "interactive no", start: Decision{Status: Undecided}, interactive: true, answer: "n", want: Decision{false, Untrusted, SourcePrompt}, stored: Untrusted},
		{name: "interactive empty", start: Decision{Status: Undecided}, interactive: true, answer: "", want: Decision{false, Untrusted, SourcePrompt}, stored: Untrusted},
		{name: "decided by env is not asked", start: Decision{true, Trusted, SourceEnv}, interactive: true, want: Decision{true, Trusted, SourceEnv}, stored: Undecided},
		{name: "decided by store is not asked", start: Decision{false, Untrusted, SourceStore}, interactive: true, want: Decision{false, Untrusted, SourceStore}, stored: Undecided},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			var ask Asker
			var out bytes.Buffer
			if tc.interactive {
				ask = func(_ context.Context, project string) (bool, error) {
					out.WriteString(Question(project))
					return tc.answer == "y", nil
				}
			}
			got, err := Settle(context.Background(), tc.start, s, proj, ask)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("decision %+v, want %+v", got, tc.want)
			}
			if got.Trusted != (got.Status == Trusted) {
				t.Fatalf("inconsistent %+v", got)
			}
			if st, _ := s.Status(proj); st != tc.stored {
				t.Fatalf("stored %q, want %q", st, tc.stored)
			}
			asked := strings.Contains(out.String(), "Do you trust")
			if asked != (tc.interactive && tc.start.Status == Undecided) {
				t.Fatalf("asked %v:\n%s", asked, out.String())
			}
		})
	}
}

func TestConcurrentSets(t *testing.T) {
	isolate(t)
	s := openStore(t, t.TempDir())
	base := t.TempDir()
	var projects []string
	for i := range 8 {
		projects = append(projects, mkdir(t, base, string(rune('a'+i))))
	}
	var wg sync.WaitGroup
	for _, p := range projects {
		wg.Go(func() {
			if err := s.Set(p, true); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := s.Projects()
	if err != nil || len(got) != len(projects) {
		t.Fatalf("%d projects stored (%v), want %d", len(got), err, len(projects))
	}
}

func TestProjectRoot(t *testing.T) {
	isolate(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := mkdir(t, base, "repo")
	mkdir(t, repo, ".git")
	deep := mkdir(t, repo, "a", "b")
	wt := mkdir(t, base, "worktree")
	write(t, filepath.Join(wt, ".git"), "gitdir: /elsewhere\n")
	wtSub := mkdir(t, wt, "sub")
	plain := mkdir(t, base, "plain", "sub")
	link := filepath.Join(base, "link")
	if err := os.Symlink(deep, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	tests := []struct{ name, cwd, want string }{
		{name: "git root itself", cwd: repo, want: repo},
		{name: "below the git root", cwd: deep, want: repo},
		{name: "worktree .git file", cwd: wtSub, want: wt},
		{name: "no git: cwd", cwd: plain, want: plain},
		{name: "through a link", cwd: link, want: repo},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ProjectRoot(tc.cwd); got != tc.want {
				t.Fatalf("%q, want %q", got, tc.want)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	isolate(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	repo := mkdir(t, base, "repo")
	mkdir(t, repo, ".git")
	sub := mkdir(t, repo, "sub")
	other := mkdir(t, base, "other")
	type call struct {
		args     []string
		env      string
		cwd      string
		out      string // stdout must equal, when set
		outHas   string
		errHas   string // stderr contains
		usage    bool
		fails    bool
		statusIs Status // stored status of repo afterwards
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{name: "status undecided", calls: []call{{args: []string{"status"}, cwd: sub, outHas: "undecided\nsource: none", statusIs: Undecided}}},
		{name: "allow from a subfolder keys the git root", calls: []call{
			{args: []string{"allow"}, cwd: sub, out: "trusted " + repo + "\n", statusIs: Trusted},
			{args: []string{"status"}, cwd: sub, out: "trusted\nsource: store (STORE)\nproject: " + repo + "\n", statusIs: Trusted},
		}},
		{name: "revoke with a relative path", calls: []call{
			{args: []string{"revoke", "repo"}, cwd: base, out: "untrusted " + repo + "\n", statusIs: Untrusted},
			{args: []string{"status", repo}, cwd: other, outHas: "untrusted\nsource: store", statusIs: Untrusted},
		}},
		{name: "forget", calls: []call{
			{args: []string{"allow", repo}, cwd: other, statusIs: Trusted},
			{args: []string{"forget", repo}, cwd: other, out: "forgot " + repo + "\n", statusIs: Undecided},
			{args: []string{"forget", repo}, cwd: other, out: "no decision stored for " + repo + "\n", statusIs: Undecided},
		}},
		{name: "env decides status", calls: []call{
			{args: []string{"allow"}, cwd: repo, statusIs: Trusted},
			{args: []string{"status"}, env: "0", cwd: repo, outHas: "untrusted\nsource: env (WISP_TRUST=0, this process only; stored: trusted)", statusIs: Trusted},
			{args: []string{"status"}, env: "1", cwd: other, outHas: "trusted\nsource: env", statusIs: Trusted},
		}},
		{name: "env override is noted", calls: []call{
			{args: []string{"allow"}, env: "0", cwd: repo, errHas: "WISP_TRUST=0", statusIs: Trusted},
			{args: []string{"revoke"}, env: "1", cwd: repo, errHas: "WISP_TRUST=1", statusIs: Untrusted},
		}},
		{name: "garbage env warns", calls: []call{{args: []string{"status"}, env: "on", cwd: repo, outHas: "undecided", errHas: `WISP_TRUST="on" ignored`, statusIs: Undecided}}},
		{name: "no verb", calls: []call{{args: nil, cwd: repo, usage: true, statusIs: Undecided}}},
		{name: "unknown verb", calls: []call{{args: []string{"grant"}, cwd: repo, usage: true, statusIs: Undecided}}},
		{name: "too many", calls: []call{{args: []string{"allow", "a", "b"}, cwd: repo, usage: true, statusIs: Undecided}}},
		{name: "help", calls: []call{{args: []string{"--help"}, cwd: repo, outHas: "usage: wisp trust", statusIs: Undecided}}},
		{name: "allow missing path", calls: []call{{args: []string{"allow", filepath.Join(base, "missing")}, cwd: repo, fails: true, statusIs: Undecided}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			for i, c := range tc.calls {
				var out, errw bytes.Buffer
				err := Command(c.args, &out, &errw, s, c.env, c.cwd)
				var ue *config.UsageError
				if errors.As(err, &ue) != c.usage {
					t.Fatalf("call %d: err %v, usage error wanted: %v", i, err, c.usage)
				}
				if !c.usage && (err != nil) != c.fails {
					t.Fatalf("call %d: err %v", i, err)
				}
				want := strings.ReplaceAll(c.out, "STORE", s.Path())
				if c.out != "" && out.String() != want {
					t.Fatalf("call %d: stdout\n%q\nwant\n%q", i, out.String(), want)
				}
				if !strings.Contains(out.String(), c.outHas) {
					t.Fatalf("call %d: stdout\n%s\nwant it to contain %q", i, out.String(), c.outHas)
				}
				if !strings.Contains(errw.String(), c.errHas) || c.errHas == "" && errw.Len() > 0 {
					t.Fatalf("call %d: stderr %q, want %q", i, errw.String(), c.errHas)
				}
				if st, _ := s.Status(repo); st != c.statusIs {
					t.Fatalf("call %d: stored %q, want %q", i, st, c.statusIs)
				}
			}
		})
	}
	t.Run("status of a malformed store fails naming it", func(t *testing.T) {
		s := openStore(t, t.TempDir())
		write(t, s.Path(), "[")
		var out, errw bytes.Buffer
		err := Command([]string{"status"}, &out, &errw, s, "", repo)
		if err == nil || !strings.Contains(err.Error(), s.Path()) {
			t.Fatalf("err %v", err)
		}
	})
}
