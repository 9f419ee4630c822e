package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/tool/builtin/filespace"
)

// TestEditConcurrentAppender runs edits in a loop while another writer
// appends lines to the same file. No appended line may vanish unless an
// edit said the file changed while it was being saved; an edit that finds
// the file changed since it was read refuses and writes nothing.
func TestEditConcurrentAppender(t *testing.T) {
	root, env := fileWorkspace(t, map[string]string{"log.txt": "counter 0\n"})
	file := filepath.Join(root, "log.txt")
	start := time.Now()
	type window struct{ from, to time.Duration }

	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	var lines []window // lines[i]: when "appended i" was being written
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			from := time.Since(start)
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Errorf("appender: %v", err)
				return
			}
			fmt.Fprintf(f, "appended %d\n", i)
			f.Close()
			mu.Lock()
			lines = append(lines, window{from, time.Since(start)})
			mu.Unlock()
			// Quiet spells let some edits through between the bursts.
			if i%50 == 49 {
				time.Sleep(5 * time.Millisecond)
			} else {
				time.Sleep(200 * time.Microsecond)
			}
		}
	})

	var refused, ok int
	var reported []window // edits that said the file changed while saving
	deadline := time.Now().Add(1500 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		counter := currentCounter(t, file)
		args := fmt.Sprintf(`{"path":"log.txt","old_text":"counter %d\n","new_text":"counter %d\n"}`, counter, counter+1)
		from := time.Since(start)
		res := callTool(t, Edit(), env, args)
		switch {
		case !res.IsError:
			ok++
		case strings.Contains(res.Content, "changed since it was read; read it again"):
			refused++
		case strings.Contains(res.Content, "changed while it was being saved"),
			strings.Contains(res.Content, "has it open for writing"):
			reported = append(reported, window{from, time.Since(start)})
		case strings.Contains(res.Content, "not found"):
			// The counter moved between reading it here and the edit.
		default:
			t.Fatalf("edit %d: %s", n, res.Content)
		}
	}
	stop.Store(true)
	wg.Wait()

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	missing, silent := 0, 0
	for i, w := range lines {
		if strings.Contains(string(data), fmt.Sprintf("appended %d\n", i)) {
			continue
		}
		missing++
		explained := false
		for _, r := range reported {
			if w.from <= r.to && r.from <= w.to {
				explained = true
			}
		}
		if !explained {
			silent++
			t.Logf("line %d (written %v-%v) vanished with no edit reporting a change meanwhile", i, w.from, w.to)
		}
	}
	// One window is left by design: a writer that resolved the file's
	// name just before the rename, and whose open waits on the lease
	// until it is released, writes to the replaced copy. It takes a
	// writer and an edit meeting within microseconds; without the checks
	// half of all appended lines vanished. More than one in 200 means the
	// checks no longer hold.
	if allowed := max(1, len(lines)/200); silent > allowed {
		t.Errorf("%d appended lines vanished silently (at most %d may, in the window left by design)", silent, allowed)
	}
	t.Logf("%d edits saved, %d refused as changed, %d reported a change while saving; %d lines appended, %d missing, %d silently",
		ok, refused, len(reported), len(lines), missing, silent)
	if ok == 0 || len(lines) == 0 {
		t.Fatal("the race did not run")
	}
}

func currentCounter(t *testing.T, file string) int {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if _, err := fmt.Sscanf(string(data), "counter %d\n", &n); err != nil {
		t.Fatalf("file starts %q: %v", data[:min(len(data), 40)], err)
	}
	return n
}

// TestReplaceFileRefusesChange changes the file between the read and the
// write in each way another program could, and checks that nothing is
// written.
func TestReplaceFileRefusesChange(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"appended", func(t *testing.T, p string) { appendTo(t, p, "more\n") }},
		{"same size and time, other bytes", func(t *testing.T, p string) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("one\ntwX\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by rename", func(t *testing.T, p string) {
			if err := os.WriteFile(p+".new", []byte("one\ntwo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".new", p); err != nil {
				t.Fatal(err)
			}
		}},
		{"removed", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{"f.txt": "one\ntwo\n"})
			space, err := filespace.Open(env)
			if err != nil {
				t.Fatal(err)
			}
			defer space.Close()
			data, read, msg := readForEdit(space, "f.txt", "f.txt")
			if msg != "" {
				t.Fatal(msg)
			}
			path := filepath.Join(root, "f.txt")
			tc.change(t, path)
			before, _ := os.ReadFile(path)
			_, err = space.ReplaceFile("f.txt", append(data, "three\n"...), &read)
			if got := filespace.ReplaceMessage("f.txt", err); got != "f.txt changed since it was read; read it again" {
				t.Fatalf("replaceFile: %v (%s)", err, got)
			}
			after, _ := os.ReadFile(path)
			if string(after) != string(before) {
				t.Fatalf("file became %q, was %q", after, before)
			}
			entries, _ := os.ReadDir(root)
			for _, e := range entries {
				if strings.HasSuffix(e.Name(), ".tmp") {
					t.Fatalf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func appendTo(t *testing.T, path, s string) {
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

// TestFileToolsKeepHardLinks: edit and write change a file with several
// names through its own inode, so every name shows the change; a file
// with one name is still replaced whole.
func TestFileToolsKeepHardLinks(t *testing.T) {
	tests := []struct {
		name  string
		links bool
		tool  string
		args  string
		want  string
	}{
		{"edit, two names", true, "edit", `{"path":"a.txt","old_text":"two","new_text":"2"}`, "one\n2\nthree\n"},
		{"edit, shrinking", true, "edit", `{"path":"a.txt","old_text":"two\nthree\n","new_text":""}`, "one\n"},
		{"write, two names", true, "write", `{"path":"a.txt","content":"new\n"}`, "new\n"},
		{"edit, one name", false, "edit", `{"path":"a.txt","old_text":"two","new_text":"2"}`, "one\n2\nthree\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
			a := filepath.Join(root, "a.txt")
			b := filepath.Join(root, "b.txt")
			if tc.links {
				if err := os.Link(a, b); err != nil {
					t.Skipf("hard links: %v", err)
				}
			}
			tl := Edit()
			if tc.tool == "write" {
				tl = Write()
			}
			if res := callTool(t, tl, env, tc.args); res.IsError {
				t.Fatal(res.Content)
			}
			if got := readBack(t, root, "a.txt"); got != tc.want {
				t.Fatalf("a.txt = %q, want %q", got, tc.want)
			}
			if !tc.links {
				return
			}
			if got := readBack(t, root, "b.txt"); got != tc.want {
				t.Fatalf("the other name b.txt = %q, want %q", got, tc.want)
			}
			fa, _ := os.Stat(a)
			fb, _ := os.Stat(b)
			if !os.SameFile(fa, fb) || filespace.LinkCount(fa) != 2 {
				t.Fatalf("the link was broken (same file %v, %d links)", os.SameFile(fa, fb), filespace.LinkCount(fa))
			}
		})
	}
}
