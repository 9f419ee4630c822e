// Package sandbox confines the shell commands wisp runs with Linux Landlock
// and a seccomp filter, and builds the process every command line runs in.
//
// A command never runs in wisp's own process: [Command] starts wisp again as
// a helper (argv[1] == [HelperArg]); the helper restricts itself and then
// replaces itself with the shell, so the shell keeps the helper's pid and
// process group (the parent sets Setpgid) and every signal sent to the
// group reaches it. The restriction is inherited by everything the shell
// starts and can never be lifted.
//
// # The shell
//
// wisp's policy and classifier read a line as bash, so the line must run in
// bash: a line that is one harmless echo to bash ("echo $'\' ; touch x ; #'")
// runs touch under dash. [ShellPath] finds bash (/bin/bash, else
// /usr/bin/bash), run as "bash --noprofile --norc -c LINE"; only where
// there is no bash does a line run in /bin/sh, and ShellPath says so, so
// that the caller parses it as POSIX shell instead.
//
// # Environment
//
// A command gets wisp's environment without what it must not see or be
// steered by ([CommandEnv]): wisp's own settings and secrets (every WISP_
// variable, ANTHROPIC_API_KEY, OPENAI_API_KEY) and the shells' startup
// files (BASH_ENV, which a non-interactive bash sources before the line,
// and ENV). The sandbox configuration travels in argv, never in the
// environment.
//
// # What a sandboxed command may do
//
// Read and execute anything: reads are not confined, only writes are.
//
// Write (create, change, truncate, remove, rename, link) only beneath these
// roots, each resolved through its symlinks first; a root that does not
// exist is skipped, because Landlock can only name existing files:
//
//   - the workspace (Config.Workdir), where the work happens;
//   - $TMPDIR (or Config.TempDir), /tmp and /dev/shm, because compilers,
//     test runners, mktemp and Python's multiprocessing need scratch space;
//   - the build tools' caches, so that "go test", "pip install", "npm
//     install" and "cargo build" work inside the workspace: Go's build
//     cache ($GOCACHE, else go-build in the user cache folder, ~/.cache),
//     the Go module cache ($GOMODCACHE, else $GOPATH/pkg/mod, else
//     ~/go/pkg/mod), pip, pnpm and yarn in the user cache folder, ~/.npm
//     (or $npm_config_cache) and $CARGO_HOME's (or ~/.cargo's) registry
//     and git folders. The rest of the user cache folder stays read-only:
//     other programs keep things there that run outside the sandbox later
//     (pre-commit's hook environments, for one);
//   - Config.WritablePaths, the user's extra paths;
//   - the character devices a shell expects to write: /dev/null, /dev/zero,
//     /dev/full, /dev/random, /dev/urandom, /dev/tty, /dev/ptmx and
//     /dev/pts (with terminal ioctls).
//
// # What it may never write
//
// The wisp home (Config.WispHome, else $WISP_HOME, else ~/.wisp) holds the
// configuration, the trust store and the audit log; a command that could
// write there could loosen its own gate or erase its trail. Landlock only
// grants, it cannot take a subtree back out of a granted one, so a root
// that contains the wisp home, lies inside it, or contains the home folder
// (HOME is never writable: ~/.bashrc and ~/.ssh live there) is refused as a
// whole and left read-only. It is not replaced by its other children: that
// would be a snapshot (a file created later at the top of the root would
// still be refused) and, for HOME, would hand out exactly the siblings the
// rule protects. [WritableRoots] reports refused roots so that the caller
// can tell the user why, for example, a workspace of ~ is read-only.
//
// # Network
//
// With AllowNetwork false (Landlock ABI 4 or later, see [NetworkABI]) no
// TCP port may be connected to or bound, loopback included, and abstract
// Unix sockets outside the sandbox are unreachable (ABI 6). Landlock sees
// only TCP, so a seccomp filter narrows what socket(2) may create to what
// Landlock can confine: IPv4 and IPv6 sockets only of type SOCK_STREAM with
// protocol TCP (no UDP, so no DNS and no DNS exfiltration; no raw, ICMP,
// Multipath TCP or SCTP socket), Unix, netlink and kernel-crypto sockets,
// and no other family (packet, vsock, SMC and the like). Multipath TCP is
// refused as unsupported so that programs fall back to plain TCP. The
// filter also refuses io_uring, which could create a socket without the
// socket call. A test that starts a server on 127.0.0.1 needs AllowNetwork.
//
// # Limits
//
// Landlock does not confine chmod, chown, utime or extended attributes, and
// a hard link made before the sandbox into a writable root stays writable.
// The writable caches are shared with builds that run outside the sandbox,
// and those builds trust them: a command can plant a build-cache entry, or
// chmod an extracted module in the Go module cache (read-only by mode
// alone) and edit it ("go mod verify" detects that; cargo's extracted
// sources are in the same position). They stay writable because builds
// need them. A daemon reached over a pathname Unix socket (docker's, for
// one) acts outside the sandbox; Landlock confines connecting to such
// sockets only from ABI 9, and then allows it beneath the writable roots
// alone, and only when the command may use the network. A cache folder
// that does not exist yet is not created, so a first "npm install" cannot
// create ~/.npm (nor a first "go build" ~/.cache/go-build; GOCACHE can
// point into the workspace or $TMPDIR instead). When the wisp home lies in
// /tmp (as in tests), /tmp is refused: give such commands a TMPDIR of
// their own.
// Signals to processes outside the sandbox (wisp itself) are refused from
// ABI 6. Where Landlock is missing, [Available] says so; the helper then
// still runs the command, with a notice on its stderr, and the caller must
// warn and audit the command as unsandboxed.
//
// The package never decides whether a command may run (that is the gate's
// job) and never weakens a rule it cannot enforce: when the rules cannot be
// applied the helper refuses to run the command at all.
package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
)

// HelperArg is the hidden argv[1] that makes wisp act as the sandbox helper.
const HelperArg = "__wisp_sandbox"

// ExitSetup is the helper's exit status when it could not start the command
// (bad arguments, rules that could not be applied, the shell not found).
// Its stderr then starts with "wisp sandbox: ".
const ExitSetup = 125

// NetworkABI is the first Landlock ABI that can refuse network access;
// below it a command denied the network still has it, and the caller
// should say so.
const NetworkABI = 4

// bashPaths are where bash is looked for, in order; fallbackShell runs a
// line only where neither exists.
var bashPaths = [...]string{"/bin/bash", "/usr/bin/bash"}

const fallbackShell = "/bin/sh"

// ShellPath reports the shell a command line runs in and whether it is
// bash. It looks at the file system on every call (a few stats), so that
// the caller's parse and the helper's exec agree without shared state. A
// caller that judges lines must parse them as bash only when isBash is
// true, and as POSIX shell otherwise.
func ShellPath() (path string, isBash bool) {
	for _, p := range bashPaths {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return fallbackShell, false
}

// shellArgv is the argv that runs line in the shell ShellPath finds.
// --noprofile and --norc keep bash from reading startup files even when
// it believes sshd started it; BASH_ENV is taken out by CommandEnv.
func shellArgv(line string) []string {
	path, isBash := ShellPath()
	if isBash {
		return []string{path, "--noprofile", "--norc", "-c", line}
	}
	return []string{path, "-c", line}
}

// hiddenVars are the variables a command never sees: wisp's secrets, and
// the startup files that sh (ENV) and bash (BASH_ENV) would run before the
// line, outside what the gate judged. Every WISP_ variable is hidden too
// (see CommandEnv).
var hiddenVars = [...]string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "BASH_ENV", "ENV"}

// CommandEnv returns the environment a command runs with: environ (as
// os.Environ gives it) without wisp's own variables (WISP_*, which hold
// its API key and trust decisions), the providers' API keys, BASH_ENV and
// ENV. environ is not changed.
func CommandEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "WISP_") || slices.Contains(hiddenVars[:], name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Config says how one command is confined.
type Config struct {
	// Enabled false runs the command unconfined (but still in its own
	// process group).
	Enabled bool `json:"enabled"`
	// Workdir is the workspace root.
	Workdir string `json:"workdir"`
	// WritablePaths are extra roots the user allows writing under.
	WritablePaths []string `json:"writable_paths,omitempty"`
	// AllowNetwork false refuses TCP connect and bind and every socket
	// Landlock cannot confine (UDP, raw, packet and the like).
	AllowNetwork bool `json:"allow_network"`
	// WispHome is never writable; empty means $WISP_HOME, else ~/.wisp.
	WispHome string `json:"wisp_home,omitempty"`
	// TempDir is writable; empty means $TMPDIR.
	TempDir string `json:"temp_dir,omitempty"`
}

// Command builds the process that runs line in dir. With cfg.Enabled it is
// self (the wisp executable) acting as the helper, which applies the rules
// and then becomes the shell ShellPath reports running line; without, it
// is that shell directly. Either way the process leads a new process
// group, so the caller can signal the whole command with kill(-pid), and
// its Env is CommandEnv(os.Environ()). The configuration travels in argv,
// not in the environment, so nothing of it reaches the command.
// The caller may add to Env (never replace it with os.Environ()), sets
// Stdin, Stdout and Stderr, and owns start, kill and wait.
func Command(cfg Config, self, line, dir string) *exec.Cmd {
	var cmd *exec.Cmd
	if cfg.Enabled {
		// The helper does not see WISP_HOME (CommandEnv hides it), so
		// the wisp home it must protect is named in the configuration.
		// It is made absolute here, since the helper runs in dir.
		if cfg.WispHome == "" {
			cfg.WispHome = os.Getenv("WISP_HOME")
		}
		if cfg.WispHome != "" {
			cfg.WispHome = absClean(cfg.WispHome)
		}
		// Marshalling a struct of strings and bools cannot fail.
		enc, _ := json.Marshal(cfg)
		cmd = exec.Command(self, HelperArg, string(enc), line)
	} else {
		argv := shellArgv(line)
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	cmd.Env = CommandEnv(os.Environ())
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}
