package secretpath

import (
	"path"
	"strings"
)

// secretNames are file names that hold credentials wherever they are.
var secretNames = map[string]bool{
	".env": true, ".netrc": true, "_netrc": true, ".git-credentials": true, ".pgpass": true,
	".npmrc": true, ".pypirc": true, "id_rsa": true, "id_dsa": true, "id_ecdsa": true,
	"id_ed25519": true, "id_ecdsa_sk": true, "id_ed25519_sk": true, "credentials": true,
	"shadow": true, "gshadow": true, "master.key": true, ".htpasswd": true,
	"authorized_keys": true, "known_hosts": false, ".envrc": true, ".vault-token": true,
	".dockercfg": true, ".s3cfg": true, ".boto": true, "opasswd": true, "ipsec.secrets": true,
	"chap-secrets": true, "pap-secrets": true, "sasl_passwd": true, "shadow-": true, "gshadow-": true,
}

// secretDirs are directories whose files are credentials.
var secretDirs = []string{"/.ssh/", "/.gnupg/", "/.aws/", "/.azure/", "/.kube/", "/.docker/", "/.config/gh/", "/.config/gcloud/", "/.wisp/",
	"/etc/networkmanager/system-connections/", "/etc/wpa_supplicant/", "/etc/gitlab-runner/"}

// Named reports whether the path p names a credential file by its name
// alone, wherever it lies: .env files, private keys, cloud and SSH
// credentials, the shadow password file, wisp's own directory.
func Named(p string) bool {
	lp := strings.ToLower(p)
	base := path.Base(lp)
	if (strings.HasPrefix(base, "shadow") || strings.HasPrefix(base, "gshadow")) && strings.HasSuffix(path.Dir(lp), "/etc") {
		// The password files and their backups (/etc/shadow-,
		// shadow.bak).
		return true
	}
	if v, ok := secretNames[base]; ok {
		if strings.HasPrefix(base, "shadow") || strings.HasPrefix(base, "gshadow") {
			// The password files of /etc, not any file of that name
			// (the shadow vet tool, say).
			return strings.HasSuffix(path.Dir(lp), "/etc")
		}
		return v
	}
	if envFile(base) {
		return true
	}
	switch path.Ext(base) {
	case ".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".kdbx", ".keyring":
		return true
	}
	if strings.HasPrefix(base, "id_") && !strings.HasSuffix(base, ".pub") && !strings.Contains(base, ".") {
		return true
	}
	if strings.HasSuffix(lp, "/environ") && strings.HasPrefix(lp, "/proc/") {
		return true
	}

	for _, d := range secretDirs {
		if strings.Contains(lp+"/", d) && !strings.HasSuffix(base, ".pub") && base != "known_hosts" {
			return true
		}
	}
	return false
}

// envFile reports whether a base name is a dotenv file: .env with a
// suffix (.env.local, and the copies editors and people leave behind:
// .env~, .env-prod, .env_old) or a name ending in .env (prod.env), but
// not a template (.env.example).
func envFile(base string) bool {
	switch path.Ext(base) {
	case ".example", ".sample", ".template", ".dist", ".defaults":
		return false
	}
	if rest, ok := strings.CutPrefix(base, ".env"); ok && rest != "" && strings.ContainsRune(".~-_", rune(rest[0])) {
		return true
	}
	return strings.HasSuffix(base, ".env") && len(base) > len(".env")
}

// secretNamesForGlobs are names a glob is tried against.
var secretNamesForGlobs = []string{".env", ".env.local", ".env.production", ".netrc", ".git-credentials",
	".npmrc", ".pypirc", ".pgpass", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "credentials", "shadow", "shadow-", "prod.env", ".env~", ".envrc"}

// GlobMayName reports whether the glob base (the last element of a path,
// not a bare *) can match the name of a credential file.
func GlobMayName(base string) bool {
	for _, ext := range []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx"} {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	for _, n := range secretNamesForGlobs {
		if ok, _ := path.Match(base, n); ok && (base[0] == '.') == (n[0] == '.') {
			return true
		}
	}
	return false
}
