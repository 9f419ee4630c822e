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
	"authorized_keys": true, "known_hosts": false,
}

// secretDirs are directories whose files are credentials.
var secretDirs = []string{"/.ssh/", "/.gnupg/", "/.aws/", "/.azure/", "/.kube/", "/.docker/", "/.config/gh/", "/.config/gcloud/", "/.wisp/"}

// Named reports whether the path p names a credential file by its name
// alone, wherever it lies: .env files, private keys, cloud and SSH
// credentials, the shadow password file, wisp's own directory.
func Named(p string) bool {
	lp := strings.ToLower(p)
	base := path.Base(lp)
	if v, ok := secretNames[base]; ok {
		if base == "shadow" || base == "gshadow" {
			// The password files of /etc, not any file of that name
			// (the shadow vet tool, say).
			return strings.HasSuffix(path.Dir(lp), "/etc")
		}
		return v
	}
	if strings.HasPrefix(base, ".env.") {
		switch path.Ext(base) {
		case ".example", ".sample", ".template", ".dist", ".defaults":
			return false
		}
		return true
	}
	switch path.Ext(base) {
	case ".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".kdbx":
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

// secretNamesForGlobs are names a glob is tried against.
var secretNamesForGlobs = []string{".env", ".env.local", ".env.production", ".netrc", ".git-credentials",
	".npmrc", ".pypirc", ".pgpass", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "credentials", "shadow"}

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
