package gitindex

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGitlinksOfRealIndexes reads indexes that git itself wrote, in each
// version and object format, with files, a gitlink and an
// intent-to-add entry (which needs the extended flags).
func TestGitlinksOfRealIndexes(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is needed to write real indexes")
		}
		t.Skip("no git")
	}
	for _, tc := range []struct {
		name    string
		init    []string
		version string
	}{
		{"v2", nil, "2"},
		{"v3", nil, "3"},
		{"v4", nil, "4"},
		{"sha256-v2", []string{"--object-format=sha256"}, "2"},
		{"sha256-v4", []string{"--object-format=sha256"}, "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(git, args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v: %s", args, err, out)
				}
				return strings.TrimSpace(string(out))
			}
			run(append([]string{"init", "-q"}, tc.init...)...)
			for _, f := range []string{"a.go", "deep/er/path/with/a/long/name.txt", "z"} {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run("add", "a.go", "deep", "z")
			oid := run("hash-object", "a.go")
			run("update-index", "--add", "--cacheinfo", "160000,"+oid+",sub/mod")
			run("update-index", "--add", "--cacheinfo", "160000,"+oid+",vendor/lib")
			if err := os.WriteFile(filepath.Join(dir, "new.txt"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.version == "3" {
				run("add", "--intent-to-add", "new.txt")
			}
			run("update-index", "--index-version", tc.version)
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Gitlinks(data)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"sub/mod", "vendor/lib"}; !slices.Equal(got, want) {
				t.Fatalf("gitlinks %q, want %q", got, want)
			}
		})
	}
}

func TestGitlinksRefusesDamage(t *testing.T) {
	for _, data := range []string{"", "DIRC", "DIRC\x00\x00\x00\x09\x00\x00\x00\x00", "XXXX\x00\x00\x00\x02\x00\x00\x00\x00", "DIRC\x00\x00\x00\x02\x00\x00\x00\x01short"} {
		if _, err := Gitlinks([]byte(data)); err == nil {
			t.Errorf("%q: no error", data)
		}
	}
	if links, err := Gitlinks([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00")); err != nil || links != nil {
		t.Errorf("empty index: %q, %v", links, err)
	}
}

func FuzzGitlinks(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 62) + "\x00a\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		links, err := Gitlinks(data)
		if err == nil && len(links) > len(data) {
			t.Fatalf("%d links from %d bytes", len(links), len(data))
		}
	})
}
