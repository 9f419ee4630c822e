package judge

import (
	"path"
	"strings"
)

// Place is where a path argument lands, as far as the classifier can tell
// without touching the disk.
type Place int

const (
	PlaceUnknown   Place = iota // only known at run time
	PlaceWorkspace              // inside the workspace
	PlaceTemp                   // inside a temporary directory
	PlaceSink                   // /dev/null, the terminal, standard streams
	PlaceOutside                // anywhere else on the machine
	PlaceDevice                 // a device file
	PlaceNetwork                // bash's /dev/tcp and /dev/udp
)

// startupFiles are files that a shell or git runs or obeys later, so
// writing one plants commands for the future.
var startupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true,
	".profile": true, ".zshrc": true, ".zprofile": true, ".zshenv": true, ".zlogin": true,
	".inputrc": true, ".gitconfig": true, "authorized_keys": true, ".envrc": true,
}

// Plants reports whether writing p plants commands that run later: shell
// start-up files, SSH authorised keys, git hooks and git's own config.
func Plants(p string) bool {
	if startupFiles[path.Base(p)] {
		return true
	}
	return strings.Contains(p, "/.git/hooks/") || strings.HasSuffix(p, "/.git/config") ||
		strings.HasSuffix(p, "/.git/hooks")
}

// InGitDir reports whether p is a .git directory or gitfile, or lies
// below one, at any depth (sub/.git/config, .git/modules/a/hooks). Git
// obeys what is there (hooks, config, a gitfile or commondir pointing
// elsewhere) and runs it outside the sandbox, so only git itself may
// write there. Case is folded: a case-insensitive file system opens .GIT
// as .git.
func InGitDir(p string) bool {
	i := strings.Index(p, "/.")
	if i < 0 {
		return false // the quick way out for most paths
	}
	lp := strings.ToLower(p[i:])
	return strings.HasSuffix(lp, "/.git") || strings.Contains(lp, "/.git/")
}

// GitDirReason is why writing into .git is dangerous.
const GitDirReason = "writes into .git (git hooks and config run outside the sandbox): "

// SystemBin are directories whose programs are the ones rules know.
var SystemBin = map[string]bool{
	"/bin": true, "/usr/bin": true, "/sbin": true, "/usr/sbin": true,
	"/usr/local/bin": true, "/usr/local/sbin": true,
}

func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// RephraseWrite puts a reason from writeTo after what the command does
// ("edits in place: outside the workspace: /etc/hosts").
func RephraseWrite(what, reason string) string {
	if strings.HasPrefix(reason, GitDirReason) {
		return what + ": " + reason
	}
	return what + ": " + strings.TrimPrefix(reason, "writes ")
}
