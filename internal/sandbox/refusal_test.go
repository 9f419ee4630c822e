package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRefusal(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	home := filepath.Join(base, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/x", filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("WISP_HOME", "")
	t.Setenv("TMPDIR", "")
	cfg := Config{Enabled: true, Workdir: ws}

	tests := []struct {
		name   string
		stderr string
		want   string // "" for no refusal
	}{
		{name: "dash redirect", stderr: "sh: 1: cannot create /x/y: Permission denied\n", want: "/x/y"},
		{name: "dash as /bin/sh", stderr: "/bin/sh: 1: cannot create /x/y: Permission denied", want: "/x/y"},
		{name: "bash redirect", stderr: "bash: line 1: /x/y: Permission denied", want: "/x/y"},
		{name: "touch", stderr: "touch: cannot touch '/x/y': Permission denied", want: "/x/y"},
		{name: "mkdir", stderr: "mkdir: cannot create directory '/x': Permission denied", want: "/x"},
		{name: "mkdir in UTF-8 locale", stderr: "mkdir: cannot create directory ‘/x/d’: Permission denied", want: "/x/d"},
		{name: "python", stderr: "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nPermissionError: [Errno 13] Permission denied: '/x'\n", want: "/x"},
		{name: "go", stderr: "open /x/y: permission denied", want: "/x/y"},
		{name: "go rename", stderr: "rename " + ws + "/a /x/b: permission denied", want: "/x/b"},
		{name: "node", stderr: "Error: EACCES: permission denied, open '/x/y'", want: "/x/y"},
		{name: "mv out", stderr: "mv: cannot move 'a' to '/x/b': Permission denied", want: "/x/b"},
		{name: "mv in", stderr: "mv: cannot move '/x/b' to 'a': Permission denied", want: "/x/b"},
		{name: "rm", stderr: "rm: cannot remove '/x/f': Operation not permitted", want: "/x/f"},
		{name: "read-only file system", stderr: "touch: cannot touch '/x/y': Read-only file system", want: "/x/y"},
		{name: "hard link across", stderr: "ln: failed to create hard link 'cfg' => '/x/config.json': Invalid cross-device link", want: "/x/config.json"},
		{name: "path with spaces", stderr: "sh: 1: cannot create /x/my file: Permission denied", want: "/x/my file"},
		{name: "relative through symlink", stderr: "sh: 1: cannot create out/new: Permission denied", want: filepath.Join(ws, "out/new")},
		{name: "wisp home", stderr: "touch: cannot touch '" + home + "/.wisp/config.json': Permission denied", want: home + "/.wisp/config.json"},
		{name: "second line", stderr: "building...\ntouch: cannot touch '/x/y': Permission denied\n", want: "/x/y"},

		{name: "inside workspace", stderr: "touch: cannot touch '" + ws + "/f': Permission denied"},
		{name: "relative inside workspace", stderr: "sh: 1: ./build.sh: Permission denied"},
		{name: "device", stderr: "sh: 1: cannot create /dev/null: Permission denied"},
		{name: "no denial", stderr: "touch: cannot touch '/x/y': No such file or directory"},
		{name: "empty", stderr: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Refusal(cfg, tc.stderr)
			if ok != (tc.want != "") || got != tc.want {
				t.Errorf("Refusal(%q) = %q, %v; want %q", tc.stderr, got, ok, tc.want)
			}
		})
	}
}

func FuzzRefusal(f *testing.F) {
	for _, s := range []string{
		"sh: 1: cannot create /x/y: Permission denied",
		"touch: cannot touch '/x/y': Permission denied",
		"mkdir: cannot create directory ‘/x’: Permission denied",
		"PermissionError: [Errno 13] Permission denied: '/x'",
		"mv: cannot move 'a' to \"/x/b\": EACCES",
		"'unterminated: permission denied",
		"/: EPERM",
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Setenv("HOME", dir)
	f.Setenv("WISP_HOME", "")
	cfg := Config{Enabled: true, Workdir: dir}
	f.Fuzz(func(t *testing.T, stderr string) {
		p, ok := Refusal(cfg, stderr)
		if !ok {
			if p != "" {
				t.Fatalf("no refusal but path %q", p)
			}
			return
		}
		if !filepath.IsAbs(p) {
			t.Fatalf("path %q is not absolute", p)
		}
		if !strings.Contains(stderr, filepath.Base(p)) && p != "/" {
			t.Fatalf("path %q does not come from %q", p, stderr)
		}
	})
}
