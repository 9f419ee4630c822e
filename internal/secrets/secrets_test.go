package secrets

import "testing"

func TestMatch(t *testing.T) {
	cases := []struct {
		name string
		p    string
		want bool
	}{
		{"ssh folder", "/home/u/.ssh", true},
		{"ssh key", "/home/u/.ssh/id_ed25519", true},
		{"aws", "/home/u/.aws/credentials", true},
		{"gh", "/home/u/.config/gh/hosts.yml", true},
		{"app auth glob", "/home/u/.config/foo/auth.json", true},
		{"history", "/home/u/.bash_history", true},
		{"cargo", "/home/u/.cargo/credentials.toml", true},
		{"cargo registry is not", "/home/u/.cargo/registry/x", false},
		{"host key", "/etc/ssh/ssh_host_ed25519_key", true},
		{"host pub key is not", "/etc/ssh/ssh_host_ed25519_key.pub", false},
		{"proc environ", "/proc/1/environ", true},
		{"proc self environ", "/proc/self/environ", true},
		{"proc root", "/proc/42/root/home/u/.ssh", true},
		{"wisp home", "/tmp/wh/config.json", true},
		{"dot wisp", "/home/u/.wisp/audit.jsonl", true},
		{"plain file", "/home/u/project/main.go", false},
		{"unclean", "/home/u/x/../.ssh/id_rsa", true},
		{"shadow", "/etc/shadow", true},
		{"passwd is not", "/etc/passwd", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, got := Match(c.p, "/home/u", "/tmp/wh"); got != c.want {
				t.Fatalf("Match(%q) = %v, want %v", c.p, got, c.want)
			}
		})
	}
}

func TestNoHome(t *testing.T) {
	if _, ok := Match("/home/u/.ssh", "", ""); ok {
		t.Fatal("home-relative entries must not match without a home")
	}
	if _, ok := Match("/etc/shadow", "", ""); !ok {
		t.Fatal("absolute entries match without a home")
	}
}
