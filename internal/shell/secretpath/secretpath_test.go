package secretpath

import (
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/secrets"
)

// The index looks entries up by their first element: it must never be a
// glob, or paths would be turned away that the entry matches.
func TestSecretEntriesStartLiteral(t *testing.T) {
	for _, l := range secrets.List() {
		first, _, _ := strings.Cut(strings.TrimPrefix(l.Path, "/"), "/")
		if HasMeta(first) {
			t.Errorf("secret location %q starts with a glob", l.Path)
		}
	}
}

func TestLocation(t *testing.T) {
	cases := []struct {
		name, path string
		want       bool
	}{
		{"key in the home", "/home/u/.ssh/id_rsa", true},
		{"the folder itself", "/home/u/.ssh", true},
		{"glob over the folder", "/home/u/.ss?/*", true},
		{"dot glob in the home", "/home/u/.*", true},
		{"another user's home", "/home/bob/.aws/credentials", true},
		{"root's home", "/root/.netrc", true},
		{"unknown home", UnknownHome + "/.kube/config", true},
		{"unknown user's home", UnknownHome + "/bob/.pgpass", true},
		{"service account home", "/var/lib/jenkins/.ssh/id_rsa", true},
		{"environment of a process", "/proc/1/environ", true},
		{"host key", "/etc/ssh/ssh_host_ed25519_key", true},
		{"source file", "/home/u/proj/main.go", false},
		{"glob that skips dot folders", "/home/u/*/x", false},
		{"shell startup file", "/home/u/.bashrc", false},
		{"passwd", "/etc/passwd", false},
		{"process status", "/proc/1/status", false},
		{"ssh client config", "/etc/ssh/ssh_config", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if why, got := Location(tc.path, "/home/u"); got != tc.want || got && why == "" {
				t.Errorf("Location(%q) = %q, %v; want %v", tc.path, why, got, tc.want)
			}
		})
	}
}

func TestMentions(t *testing.T) {
	for text, want := range map[string]bool{
		`~/.ss"h"/$k`: true, `$HOME/.AWS/x`: true, `/proc/$p/environ`: true,
		`$dir/main.go`: false, `src/$f`: false,
	} {
		if got := Mentions(text); got != want {
			t.Errorf("Mentions(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestNamed(t *testing.T) {
	for p, want := range map[string]bool{
		"/w/.env": true, "/w/.env.local": true, "/w/.env.example": false, "/w/certs/server.KEY": true,
		"/w/id_ed25519": true, "/w/id_ed25519.pub": false, "/etc/shadow": true, "/w/tools/shadow": false,
		"/w/x/.ssh/config": true, "/w/x/.ssh/known_hosts": false, "/proc/7/environ": true,
		"/w/main.go": false, "/w/credentials": true, "/w/known_hosts": false,
		"/w/.env~": true, "/w/.env-prod": true, "/w/.env_old": true, "/w/prod.env": true, "/w/.envrc": true,
		"/w/.environment": false, "/w/.env.sample": false, "/w/.vault-token": true,
		"/etc/NetworkManager/system-connections/home.nmconnection": true,
		"/etc/shadow-": true, "/etc/shadow.bak": true, "/etc/gshadow-": true, "/w/tools/shadow-": false, "/etc/ipsec.secrets": true,
		"/etc/ppp/chap-secrets": true, "/etc/ceph/ceph.client.admin.keyring": true,
	} {
		if got := Named(p); got != want {
			t.Errorf("Named(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestGlobMayName(t *testing.T) {
	for base, want := range map[string]bool{
		".env*": true, ".n?trc": true, "id_*": true, "*.pem": true, "*.go": false,
		"*env":  true,  // skips dot files, but matches prod.env
		"*.txt": false, // a glob without a leading dot skips dot files
		".*rc":  true,  // .envrc
		"cred*": true,
	} {
		if got := GlobMayName(base); got != want {
			t.Errorf("GlobMayName(%q) = %v, want %v", base, got, want)
		}
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"/w/a/../b":                 "/w/b",
		"/w/./x//y":                 "/w/x/y",
		"/proc/self/cwd/../x":       "",
		"/dev/fd/../environ":        "",
		"/proc/../etc/passwd":       "/etc/passwd",
		"/w/proc/self/cwd/../x":     "/w/proc/self/x",
		"/proc/self/root/etc/hosts": "/proc/self/root/etc/hosts",
	} {
		got, ok := Clean(in)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHolds(t *testing.T) {
	for p, want := range map[string]bool{
		"/": true, "/etc": true, "/etc/ssh": true, "/proc": true, "/proc/self": true,
		"/etc/apt": false, "/usr": false, "/proc/self/environ": false, "/w/src": false,
	} {
		if got := Holds(p); got != want {
			t.Errorf("Holds(%q) = %v, want %v", p, got, want)
		}
	}
}
