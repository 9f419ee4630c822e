package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

func TestProtection(t *testing.T) {
	home := "/home/u"
	p := NewProtection(home, []string{"secrets/**", "~/.aws", "*.tfstate"}, "/home/u/.wisp")
	tests := []struct {
		path string
		want bool
	}{
		{"/w/.env", true},
		{"/w/.ENV", true},
		{"/w/sub/.env.local", true},
		{"/w/.environment", false},
		{"/w/env", false},
		{"/w/cert.pem", true},
		{"/w/Cert.PEM", true},
		{"/w/server.key", true},
		{"/w/keys/a.p12", true},
		{"/w/b.pfx", true},
		{"/w/id_rsa", true},
		{"/w/id_rsa.pub", false},
		{"/w/.ssh/id_ed25519", true},
		{"/w/credentials.json", true},
		{"/w/.netrc", true},
		{"/w/.pgpass", true},
		{"/w/.git/config", true},
		{"/w/.GIT/Config", true},
		{"/w/.git/HEAD", true},
		{"/w/.git/commondir", true},
		{"/w/.git/modules/a/hooks/x", true},
		{"/w/sub/.git", true},
		{"/w/.gitignore", false},
		{"/w/.github/workflows/ci.yml", false},
		{"/w/.npmrc", true},
		{"/w/.git-credentials", true},
		{"/w/.aws/credentials", true},
		{"/home/u/.ssh/config", true},
		{"/home/u/.kube/config", true},
		{"/home/u/.config/gh/hosts.yml", true},
		{"/home/u/.config/other", false},
		{"/w/.git/hooks/pre-commit", true},
		{"/w/.git/hooks", true},
		{"/w/sub/.git/config", true},
		{"/w/.env/inside", true},
		{"/home/u/.wisp", true},
		{"/home/u/.wisp/approvals.json", true},
		{"/home/u/.WISP/x", true},
		{"/home/u/.wispy", false},
		{"/w/secrets/a/b.txt", true},
		{"/w/secrets", true},
		{"/home/u/.aws/credentials", true},
		{"/w/state.tfstate", true},
		{"/w/main.go", false},
		{"/w/keyboard.go", false},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := p.Match(tc.path); got != tc.want {
				t.Errorf("Match(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// A protected path is refused by the guard on the path as written and on
// where it leads, whether it exists or not.
func TestGuardRefusesProtectedPaths(t *testing.T) {
	root := t.TempDir()
	p := NewProtection(t.TempDir(), nil)
	g := Guard{Root: root, Protected: p.Match}
	if err := os.WriteFile(filepath.Join(root, "cert.pem"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("cert.pem", filepath.Join(root, "harmless.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nothing-yet", filepath.Join(root, ".env")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"cert.pem", "harmless.txt", ".env", ".env.production", "new/.git/hooks/x", "./sub/../.NETRC"} {
		if _, err := g.Resolve(path); err == nil {
			t.Errorf("Resolve(%q) succeeded, want protected path", path)
		}
	}
	if _, err := g.Resolve("ok.txt"); err != nil {
		t.Errorf("Resolve(ok.txt): %v", err)
	}
}
