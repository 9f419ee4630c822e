// Package secrets names the places on a machine where credentials live, in
// one list that every part of wisp reads: the classifier (a read of one of
// them is dangerous however the path is spelled), the sandbox (a command
// nobody approved cannot read them) and the file tools.
//
// The list is data, not judgement: it never touches the file system and
// never decides whether something may run.
package secrets

import (
	"path"
	"strings"
)

// Location is one credential place. Rel is either relative to the home
// folder (Home true) or absolute; it may end in a glob element ("*_key")
// or name a folder, whose whole subtree counts.
type Location struct {
	Path string
	Home bool
	Why  string
}

// Locations lists where credentials live. Home-relative entries are
// matched below the user's home folder; the rest are absolute.
var locations = [...]Location{
	{".ssh", true, "SSH keys"},
	{".aws", true, "AWS credentials"},
	{".azure", true, "Azure credentials"},
	{".config/gcloud", true, "Google Cloud credentials"},
	{".config/gh", true, "GitHub CLI token"},
	{".config/hub", true, "GitHub token"},
	{".docker/config.json", true, "Docker registry credentials"},
	{".kube", true, "Kubernetes credentials"},
	{".netrc", true, "network login passwords"},
	{".pgpass", true, "PostgreSQL passwords"},
	{".my.cnf", true, "MySQL passwords"},
	{".vault-token", true, "Vault token"},
	{".cargo/credentials", true, "crates.io token"},
	{".cargo/credentials.toml", true, "crates.io token"},
	{".npmrc", true, "npm token"},
	{".pypirc", true, "PyPI token"},
	{".gem/credentials", true, "RubyGems token"},
	{".git-credentials", true, "git credentials"},
	{".config/git/credentials", true, "git credentials"},
	{".gnupg", true, "GnuPG keys"},
	{".password-store", true, "pass passwords"},
	{".local/share/keyrings", true, "desktop keyring"},
	{".terraform.d/credentials.tfrc.json", true, "Terraform token"},
	{".bash_history", true, "shell history"},
	{".zsh_history", true, "shell history"},
	{".zhistory", true, "shell history"},
	{".history", true, "shell history"},
	{".sh_history", true, "shell history"},
	{".local/share/fish/fish_history", true, "shell history"},
	{".python_history", true, "REPL history"},
	{".node_repl_history", true, "REPL history"},
	{".psql_history", true, "REPL history"},
	{".mysql_history", true, "REPL history"},
	{".sqlite_history", true, "REPL history"},
	{".lesshst", true, "pager history"},
	{".claude", true, "another agent's credentials"},
	{".claude.json", true, "another agent's credentials"},
	{".codex", true, "another agent's credentials"},
	{".gemini", true, "another agent's credentials"},
	{".config/*/auth*", true, "application credentials"},
	{".config/*/credentials*", true, "application credentials"},
	{".anthropic", true, "Anthropic credentials"},
	{".openai", true, "OpenAI credentials"},
	{".wisp", true, "wisp's own configuration and audit log"},
	{"/etc/shadow", false, "password hashes"},
	{"/etc/gshadow", false, "password hashes"},
	{"/etc/sudoers", false, "sudo rules"},
	{"/etc/ssh/*_key", false, "SSH host keys"},
	{"/root/.ssh", false, "root's SSH keys"},
	{"/proc/*/environ", false, "another process's environment"},
	{"/proc/*/mem", false, "another process's memory"},
	{"/proc/*/cmdline", false, "another process's arguments"},
	{"/proc/*/root", false, "another process's file system view"},
	{"/proc/*/cwd", false, "another process's file system view"},
	{"/proc/*/fd", false, "another process's open files"},
	{"/proc/*/map_files", false, "another process's mapped files"},
	{"/proc/kcore", false, "kernel memory"},
	{"/dev/mem", false, "physical memory"},
	{"/dev/kmem", false, "kernel memory"},
	{"/run/secrets", false, "container secrets"},
	{"/var/run/secrets", false, "container secrets"},
	{"/etc/krb5.keytab", false, "Kerberos service keys"},
	{"/tmp/krb5cc_*", false, "Kerberos tickets"},
	{"/run/user/*/krb5cc*", false, "Kerberos tickets"},
	{"/run/user/*/containers", false, "container registry logins"},
	{"/etc/kubernetes/admin.conf", false, "Kubernetes cluster admin credentials"},
	{"/etc/kubernetes/pki", false, "Kubernetes cluster keys"},
	{"/etc/rancher/k3s/k3s.yaml", false, "Kubernetes cluster admin credentials"},
	{"/etc/mysql/debian.cnf", false, "MySQL maintenance password"},
	{"/etc/ssl/private", false, "TLS private keys"},
	{"/etc/pki/tls/private", false, "TLS private keys"},
	{"/etc/letsencrypt/live", false, "TLS private keys"},
	{"/etc/letsencrypt/archive", false, "TLS private keys"},
}

// List returns the credential locations (a copy).
func List() []Location { return append([]Location(nil), locations[:]...) }

// Abs returns l as an absolute path pattern under home (which must be
// absolute and clean); ok is false for a home-relative entry when home is
// empty.
func (l Location) Abs(home string) (string, bool) {
	if !l.Home {
		return l.Path, true
	}
	if home == "" {
		return "", false
	}
	return path.Join(home, l.Path), true
}

// Match reports whether the absolute, clean path p is a credential
// location or lies beneath one, given the home folder (and wispHome, the
// wisp home when it is not ~/.wisp; empty for none). Case matters, as it
// does on Linux file systems; callers that want more caution lower both.
func Match(p, home, wispHome string) (Location, bool) {
	p = path.Clean(p)
	if wispHome != "" && within(p, path.Clean(wispHome)) {
		return Location{Path: wispHome, Why: "wisp's own configuration and audit log"}, true
	}
	for _, l := range locations {
		pat, ok := l.Abs(home)
		if !ok {
			continue
		}
		if matchPrefix(pat, p) {
			return l, true
		}
	}
	return Location{}, false
}

// matchPrefix reports whether p equals pat, or lies beneath a path that
// pat matches, element by element with path.Match globs.
func matchPrefix(pat, p string) bool {
	pe := strings.Split(strings.Trim(pat, "/"), "/")
	ee := strings.Split(strings.Trim(p, "/"), "/")
	if len(ee) < len(pe) {
		return false
	}
	for i, g := range pe {
		if ok, err := path.Match(g, ee[i]); err != nil || !ok {
			return false
		}
	}
	return true
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}
