package builtin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		args     string
		want     string
		wantErr  bool
		file     string // file to check afterwards
		content  string
		wantMode os.FileMode
	}{
		{name: "create", args: `{"path":"new.txt","content":"a\nb\n"}`,
			want: "created new.txt (4 bytes, 2 lines)", file: "new.txt", content: "a\nb\n", wantMode: 0o644},
		{name: "create with parents", args: `{"path":"x/y/z.go","content":"package z"}`,
			want: "created x/y/z.go (9 bytes, 1 line)", file: "x/y/z.go", content: "package z"},
		{name: "empty content", args: `{"path":"e.txt","content":""}`,
			want: "created e.txt (0 bytes, 0 lines)", file: "e.txt", content: ""},
		{name: "overwrite keeps mode", files: map[string]string{"run.sh": "old"}, args: `{"path":"run.sh","content":"#!/bin/sh\n"}`,
			want: "overwrote run.sh (10 bytes, 1 line)", file: "run.sh", content: "#!/bin/sh\n", wantMode: 0o750},
		{name: "unicode and crlf kept as given", args: `{"path":"u.txt","content":"héllo\r\nwörld\r\n"}`,
			want: "created u.txt (16 bytes, 2 lines)", file: "u.txt", content: "héllo\r\nwörld\r\n"},
		{name: "through a link inside", files: map[string]string{"real.txt": "old", "alias": "->real.txt"},
			args: `{"path":"alias","content":"new"}`, want: "overwrote real.txt (3 bytes, 1 line)", file: "real.txt", content: "new"},
		{name: "folder", files: map[string]string{"d/": ""}, args: `{"path":"d","content":"x"}`, wantErr: true,
			want: "error: write d: d is a folder"},
		{name: "workspace root", args: `{"path":".","content":"x"}`, wantErr: true,
			want: "error: . is the workspace folder, not a file"},
		{name: "parent is a file", files: map[string]string{"f": "x"}, args: `{"path":"f/g.txt","content":"x"}`, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root, env := fileWorkspace(t, tc.files)
			if tc.wantMode == 0o750 {
				if err := os.Chmod(filepath.Join(root, tc.file), 0o750); err != nil {
					t.Fatal(err)
				}
			}
			res := callTool(t, Write(), env, tc.args)
			if res.IsError != tc.wantErr || (tc.want != "" && res.Content != tc.want) {
				t.Fatalf("got %q (error %v), want %q", res.Content, res.IsError, tc.want)
			}
			if tc.file == "" {
				return
			}
			if got := readBack(t, root, tc.file); got != tc.content {
				t.Fatalf("file holds %q, want %q", got, tc.content)
			}
			if tc.wantMode != 0 {
				fi, err := os.Stat(filepath.Join(root, tc.file))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != tc.wantMode {
					t.Fatalf("mode %v, want %v", fi.Mode().Perm(), tc.wantMode)
				}
			}
		})
	}
}

func TestWriteKeepsLink(t *testing.T) {
	root, env := fileWorkspace(t, map[string]string{"real.txt": "old", "alias": "->real.txt"})
	if res := callTool(t, Write(), env, `{"path":"alias","content":"new"}`); res.IsError {
		t.Fatal(res.Content)
	}
	fi, err := os.Lstat(filepath.Join(root, "alias"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("alias is no longer a symlink: %v %v", fi, err)
	}
}
