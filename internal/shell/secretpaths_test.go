package shell

import (
	"testing"
)

func TestSecretLocation(t *testing.T) {
	c := &classifier{opts: Options{Home: "/home/u", Workdir: "/home/u/proj", WispHome: "/srv/wisp"}}
	c.setupRoots()
	cases := map[string]bool{
		"/home/u/.ssh/id_rsa": true, "/home/u/.ssh": true, "/home/u/.ss?/*": true, "/home/u/.*": true,
		"/home/bob/.aws/credentials": true, "/root/.netrc": true, "/\x00home/.kube/config": true,
		"/\x00home/bob/.pgpass": true, "/var/lib/jenkins/.ssh/id_rsa": true, "/proc/1/environ": true,
		"/proc/self/root/etc/passwd": true, "/etc/ssh/ssh_host_ed25519_key": true, "/srv/wisp/audit": true,
		"/home/u/proj/main.go": false, "/home/u/*/x": false, "/home/u/.bashrc": false, "/etc/passwd": false,
		"/proc/1/status": false, "/etc/ssh/ssh_config": false, "/home/u/.config/nvim/init.lua": false,
	}
	for p, want := range cases {
		if _, got := c.secretLocation(p); got != want {
			t.Errorf("secretLocation(%q) = %v, want %v", p, got, want)
		}
	}
}
