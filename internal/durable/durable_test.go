package durable

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCutTornTail(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"whole lines", "a\nb\n", "a\nb\n"},
		{"torn", "a\nb\nhalf", "a\nb\n"},
		{"only torn", "half", ""},
		{"long torn tail", "a\n" + strings.Repeat("x", 200<<10), "a\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.jsonl")
			if err := os.WriteFile(path, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			n, err := CutTornTail(f, int64(len(tc.in)))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tc.want || n != int64(len(tc.want)) {
				t.Errorf("left %q (%d), want %q", got, n, tc.want)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.json")
	for _, body := range []string{"first", "second"} {
		if err := WriteFile(path, []byte(body)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != body {
			t.Fatalf("read %q, %v; want %q", got, err, body)
		}
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.json"), nil); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}
