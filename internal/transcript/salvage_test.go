package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/chat"
)

// fiveTurns writes a session of prompts p1..p5 with answers a1..a5 and
// returns it with the file's lines.
func fiveTurns(t *testing.T, dir string) (*Writer, []string) {
	t.Helper()
	w := create(t, dir, Header{Cwd: "/p"})
	for _, n := range []string{"1", "2", "3", "4", "5"} {
		mustAppend(t, w, Record{Type: TypeMessage, Message: msg(chat.User, "p"+n)})
		mustAppend(t, w, Record{Type: TypeMessage, Message: msg(chat.Assistant, "a"+n)})
	}
	w.Close()
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	return w, strings.SplitAfter(string(data), "\n")
}

func texts(msgs []chat.Message) string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.TextOf())
	}
	return strings.Join(out, " ")
}

// TestSalvage covers each kind of damage: what Open resumes from, which
// lines it reports, and that the file keeps every byte it had.
func TestSalvage(t *testing.T) {
	// Lines: 1 header, 2 p1, 3 a1, 4 p2, 5 a2, 6 p3, 7 a3, 8 p4, 9 a4, 10 p5, 11 a5.
	cases := []struct {
		name string
		// edit changes the file's lines (index 0 is line 1).
		edit func(lines []string) []string
		// want is the conversation Open resumes; bad the lines reported.
		want string
		bad  []int
		// noControl: the report must show the bad line's control bytes
		// escaped.
		noControl bool
	}{
		{
			name: "garbage replaces a record mid-file",
			edit: func(l []string) []string { l[5] = "garbage that was p3\n"; return l },
			want: "p1 a1 p2 a2", bad: []int{6},
		},
		{
			name: "garbage inserted mid-file",
			edit: func(l []string) []string {
				return append(l[:7:7], append([]string{"{not json\n"}, l[7:]...)...)
			},
			want: "p1 a1 p2 a2 p3 a3", bad: []int{8},
		},
		{
			name: "two bad lines: resume before the first",
			edit: func(l []string) []string { l[3] = "x\n"; l[8] = "y\n"; return l },
			want: "p1 a1", bad: []int{4, 9},
		},
		{
			name: "torn tail is no damage",
			edit: func(l []string) []string { return append(l, `{"type":"message","id":"t`) },
			want: "p1 a1 p2 a2 p3 a3 p4 a4 p5 a5",
		},
		{
			name: "control bytes in the bad line",
			edit: func(l []string) []string { l[5] = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x9b\n"; return l },
			want: "p1 a1 p2 a2", bad: []int{6}, noControl: true,
		},
		{
			name: "bad line right after the header",
			edit: func(l []string) []string { l[1] = "[]\n"; return l },
			want: "", bad: []int{2},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, lines := fiveTurns(t, t.TempDir())
			damaged := strings.Join(tc.edit(lines), "")
			if err := os.WriteFile(w.Path(), []byte(damaged), 0o600); err != nil {
				t.Fatal(err)
			}
			w2, tr, err := Open(w.Path())
			if err != nil {
				t.Fatal(err)
			}
			if got := texts(tr.Messages()); got != tc.want {
				t.Errorf("resumed %q, want %q", got, tc.want)
			}
			var bad []int
			for _, d := range tr.Unhandled() {
				bad = append(bad, d.Line)
				msg := d.Error()
				if !strings.Contains(msg, w.Path()) {
					t.Errorf("report %q does not name the file", msg)
				}
				if tc.noControl && (hasControl(msg) || !strings.Contains(msg, `\x1b`)) {
					t.Errorf("report %q shows control bytes raw, or not at all", msg)
				}
			}
			if !equalInts(bad, tc.bad) {
				t.Errorf("unhandled lines %v, want %v", bad, tc.bad)
			}
			// The next run continues the resumed branch, and a later
			// read agrees with it.
			mustAppend(t, w2, Record{Type: TypeMessage, Message: msg(chat.User, "p6")})
			w2.Close()
			data, _ := os.ReadFile(w.Path())
			if !strings.HasPrefix(string(data), strings.TrimSuffix(damaged, `{"type":"message","id":"t`)) {
				t.Errorf("the file lost bytes it had:\n%s", data)
			}
			again, err := Read(w.Path())
			if err != nil {
				t.Fatal(err)
			}
			if got, want := texts(again.Messages()), strings.TrimSpace(tc.want+" p6"); got != want {
				t.Errorf("later read resumes %q, want %q", got, want)
			}
			if len(again.Unhandled()) != 0 {
				t.Errorf("later read still reports %v", again.Unhandled())
			}
			if len(again.Damage) != len(tc.bad) {
				t.Errorf("later read lists %d damaged lines, want %d (kept, handled)", len(again.Damage), len(tc.bad))
			}
		})
	}
}

func equalInts(a, b []int) bool {
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

// TestNewDamageAfterSalvage: damage that appears after a salvage record
// is handled on its own, and resuming goes back only to it.
func TestNewDamageAfterSalvage(t *testing.T) {
	w, lines := fiveTurns(t, t.TempDir())
	lines[3] = "bad one\n"
	os.WriteFile(w.Path(), []byte(strings.Join(lines, "")), 0o600)
	w2, _, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, w2, Record{Type: TypeMessage, Message: msg(chat.User, "q1")})
	mustAppend(t, w2, Record{Type: TypeMessage, Message: msg(chat.Assistant, "b1")})
	w2.Close()
	appendRaw(t, w.Path(), "bad two\n")
	w3, tr, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer w3.Close()
	if got := texts(tr.Messages()); got != "p1 a1 q1 b1" {
		t.Errorf("resumed %q, want %q", got, "p1 a1 q1 b1")
	}
	if un := tr.Unhandled(); len(un) != 1 || un[0].Line != len(lines)+3 {
		t.Errorf("unhandled %v, want only the new bad line %d", un, len(lines)+3)
	}
}

// TestBadHeader: a file whose header is unreadable cannot be opened, is
// listed as damaged, and --continue's lookup names it.
func TestBadHeader(t *testing.T) {
	cases := map[string]string{
		"garbage":         "garbage\n",
		"not a header":    `{"type":"message","id":"a","message":{"role":"user","content":[]}}` + "\n",
		"control bytes":   "\x1b[31mred\x1b[0m\n",
		"newer version":   `{"type":"session","id":"feedfeedfeedfeed","version":99}` + "\n",
		"invalid session": `{"type":"session","id":"../x","version":1}` + "\n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			good := create(t, dir, Header{Cwd: "/p", Start: t0})
			good.Close()
			path := filepath.Join(filepath.Dir(good.Path()), "20261130T094512Z_feedfeedfeedfeed.jsonl")
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := Open(path); err == nil || hasControl(err.Error()) {
				t.Errorf("Open error %q, want a clean error", err)
			}
			list, err := List(dir)
			if err != nil || len(list) != 2 {
				t.Fatalf("List = %v, %v; want both files", list, err)
			}
			if list[0].ID != "feedfeedfeedfeed" || !strings.HasPrefix(list[0].Damaged, "line 1: ") || hasControl(list[0].Damaged) {
				t.Errorf("damaged file listed as %+v", list[0])
			}
			if list[1].Damaged != "" {
				t.Errorf("sound file listed as damaged: %q", list[1].Damaged)
			}
			_, err = Latest(dir, "/p")
			var de *DamagedError
			if !errors.As(err, &de) || de.Path != path || hasControl(err.Error()) {
				t.Errorf("Latest error %v, want a *DamagedError naming %s", err, path)
			}
		})
	}
}

// TestListMarksMidFileDamage: a bad line anywhere marks the session.
func TestListMarksMidFileDamage(t *testing.T) {
	dir := t.TempDir()
	w, lines := fiveTurns(t, dir)
	lines[6] = "{\"type\":\"message\",\x00broken\n"
	os.WriteFile(w.Path(), []byte(strings.Join(lines, "")), 0o600)
	list, err := List(dir)
	if err != nil || len(list) != 1 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if d := list[0].Damaged; !strings.HasPrefix(d, "line 7: ") || hasControl(d) {
		t.Errorf("Damaged = %q, want line 7 named, control bytes escaped", d)
	}
	if list[0].FirstPrompt != "p1" {
		t.Errorf("first prompt %q", list[0].FirstPrompt)
	}
}

// TestFork copies the resumed branch into a new session that names its
// parent, and leaves the parent alone (even while another wisp has it).
func TestFork(t *testing.T) {
	dir := t.TempDir()
	w, _ := fiveTurns(t, dir)
	holder, _, err := Open(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	before, _ := os.ReadFile(w.Path())

	parent, err := Read(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fork(dir, parent, Header{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, f, Record{Type: TypeMessage, Message: msg(chat.User, "p6")})
	f.Close()
	after, _ := os.ReadFile(w.Path())
	if string(before) != string(after) {
		t.Error("forking changed the parent's file")
	}
	tr, err := Read(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Parent != w.ID() || tr.Header.ID == w.ID() {
		t.Errorf("fork header %+v, want a new id with parent %s", tr.Header, w.ID())
	}
	if got := texts(tr.Messages()); got != "p1 a1 p2 a2 p3 a3 p4 a4 p5 a5 p6" {
		t.Errorf("fork resumes %q", got)
	}
	list, _ := List(dir)
	if len(list) != 2 || list[0].Parent != w.ID() {
		t.Errorf("List does not show the fork's parent: %+v", list)
	}
}

func TestEscape(t *testing.T) {
	cases := map[string]string{
		"plain é":        "plain é",
		"\x1b[2J":        `\x1b[2J`,
		"a\nb\tc":        `a\nb\tc`,
		"\u009b\u202e":   `\u009b\u202e`,
		"\x9b":           `\x9b`,
		"bad \xff byte":  `bad \xff byte`,
		"del \x7f":       `del \x7f`,
		"quote \" \\ ok": "quote \" \\ ok",
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
