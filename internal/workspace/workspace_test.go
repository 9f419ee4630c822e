package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layout builds a workspace with links inside and out:
//
//	outside/secret.txt
//	ws/dir/file.txt
//	ws/in      -> dir          (relative, inside)
//	ws/inabs   -> <ws>/dir     (absolute, inside)
//	ws/out     -> ../outside   (escapes)
//	ws/outabs  -> <outside>    (escapes, absolute)
//	ws/dangle  -> ../outside/new.txt (dangling, escapes)
//	ws/dangin  -> dir/new.txt  (dangling, inside)
//	ws/loop1 <-> ws/loop2
func layout(t testing.TB) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ws, "dir", "file.txt"))
	write(filepath.Join(outside, "secret.txt"))
	links := map[string]string{
		"in":     "dir",
		"inabs":  filepath.Join(ws, "dir"),
		"out":    "../outside",
		"outabs": outside,
		"dangle": "../outside/new.txt",
		"dangin": "dir/new.txt",
		"loop1":  "loop2",
		"loop2":  "loop1",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestResolve(t *testing.T) {
	ws, outside := layout(t)
	tests := []struct {
		name    string
		path    string
		want    string // relative to ws; "" with wantErr
		wantErr error
	}{
		{name: "root", path: ".", want: "."},
		{name: "empty is root", path: "", want: "."},
		{name: "plain file", path: "dir/file.txt", want: "dir/file.txt"},
		{name: "dot dot cleaned inside", path: "dir/../dir/file.txt", want: "dir/file.txt"},
		{name: "absolute inside", path: filepath.Join(ws, "dir"), want: "dir"},
		{name: "missing file", path: "dir/nope/deeper.txt", want: "dir/nope/deeper.txt"},
		{name: "relative link inside", path: "in/file.txt", want: "dir/file.txt"},
		{name: "absolute link inside", path: "inabs/file.txt", want: "dir/file.txt"},
		{name: "missing under link", path: "in/new/x.go", want: "dir/new/x.go"},
		{name: "dangling link inside", path: "dangin", want: "dir/new.txt"},
		{name: "file as folder", path: "dir/file.txt/x", want: "dir/file.txt/x"},
		{name: "dot dot escapes", path: "../outside/secret.txt", wantErr: ErrOutside},
		{name: "dot dot to parent", path: "..", wantErr: ErrOutside},
		{name: "absolute outside", path: filepath.Join(outside, "secret.txt"), wantErr: ErrOutside},
		{name: "etc", path: "/etc/passwd", wantErr: ErrOutside},
		{name: "link escapes", path: "out/secret.txt", wantErr: ErrOutside},
		{name: "absolute link escapes", path: "outabs", wantErr: ErrOutside},
		{name: "missing under escaping link", path: "out/new/file", wantErr: ErrOutside},
		{name: "dangling link escapes", path: "dangle", wantErr: ErrOutside},
		{name: "sneaky prefix", path: ws + "2/x", wantErr: ErrOutside},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(ws, tc.path)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Resolve(%q) = %q, %v; want error %v", tc.path, got, err, tc.wantErr)
				}
				want := tc.wantErr.Error() + ": " + tc.path
				if err.Error() != want {
					t.Fatalf("error text %q, want %q", err.Error(), want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q): %v", tc.path, err)
			}
			if want := filepath.Join(ws, tc.want); got != want {
				t.Fatalf("Resolve(%q) = %q, want %q", tc.path, got, want)
			}
		})
	}
}

func TestResolveLoopIsError(t *testing.T) {
	ws, _ := layout(t)
	if got, err := Resolve(ws, "loop1/x"); err == nil {
		t.Fatalf("Resolve through a link loop = %q, want an error", got)
	}
}

func TestResolveSymlinkedRoot(t *testing.T) {
	ws, _ := layout(t)
	alias := filepath.Join(filepath.Dir(ws), "alias")
	if err := os.Symlink(ws, alias); err != nil {
		t.Fatal(err)
	}
	got, err := Resolve(alias, "dir/file.txt")
	if err != nil || got != filepath.Join(ws, "dir", "file.txt") {
		t.Fatalf("got %q, %v", got, err)
	}
	// An absolute path spelled through the alias is inside too.
	if _, err := Resolve(alias, filepath.Join(alias, "dir")); err != nil {
		t.Fatalf("alias spelling refused: %v", err)
	}
}

func TestGuardProtected(t *testing.T) {
	ws, _ := layout(t)
	g := Guard{Root: ws, Protected: func(abs string) bool {
		return strings.HasSuffix(abs, ".env")
	}}
	tests := []struct {
		name, path string
		wantErr    error
	}{
		{name: "allowed", path: "dir/file.txt"},
		{name: "protected missing file", path: "dir/.env", wantErr: ErrProtected},
		{name: "outside wins over protected", path: "../x.env", wantErr: ErrOutside},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := g.Resolve(tc.path)
			if !errors.Is(err, tc.wantErr) && !(tc.wantErr == nil && err == nil) {
				t.Fatalf("Resolve(%q) err = %v, want %v", tc.path, err, tc.wantErr)
			}
		})
	}
}

func TestRootErrors(t *testing.T) {
	tests := []struct{ name, root string }{
		{name: "unset", root: ""},
		{name: "missing", root: filepath.Join(t.TempDir(), "nope")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Resolve(tc.root, "x"); err == nil {
				t.Fatal("want an error")
			}
		})
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, abs string
		want      bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/", "/x", true},
	}
	for _, tc := range tests {
		if got := Within(tc.root, tc.abs); got != tc.want {
			t.Errorf("Within(%q, %q) = %v", tc.root, tc.abs, got)
		}
	}
}

// FuzzResolve checks the one promise that matters: whatever the path, a
// result is never outside the resolved root, and nothing panics.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../outside", "out/secret.txt", "in/../../x",
		"dangle", "loop1/a", "/etc/passwd", "dir/file.txt/..", "in/./../out", "a\x00b", "//", "~"} {
		f.Add(s)
	}
	ws, _ := layout(f)
	f.Fuzz(func(t *testing.T, p string) {
		got, err := Resolve(ws, p)
		if err != nil {
			return
		}
		if !Within(ws, got) {
			t.Fatalf("Resolve(%q) = %q, outside %q", p, got, ws)
		}
		if real, err := filepath.EvalSymlinks(got); err == nil && real != got {
			t.Fatalf("Resolve(%q) = %q still holds a symlink (-> %q)", p, got, real)
		}
	})
}
