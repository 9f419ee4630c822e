// Package sandbox confines the shell commands wisp runs with Linux Landlock.
//
// A command never runs in wisp's own process: [Command] starts wisp again as
// a helper (argv[1] == [HelperArg]); the helper restricts itself and then
// replaces itself with "/bin/sh -c LINE", so the shell keeps the helper's pid
// and process group (the parent sets Setpgid) and every signal sent to the
// group reaches it. The restriction is inherited by everything the shell
// starts and can never be lifted.
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
//   - the build tools' caches, so that "go test", "npm install" and
//     "cargo build" work inside the workspace: the user cache folder
//     (os.UserCacheDir, which holds Go's build cache), $GOCACHE when set,
//     the Go module cache ($GOMODCACHE, else $GOPATH/pkg/mod, else
//     ~/go/pkg/mod), ~/.npm (or $npm_config_cache) and $CARGO_HOME's (or
//     ~/.cargo's) registry and git folders;
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
// Unix sockets outside the sandbox are unreachable (ABI 6). Landlock does
// not see Multipath TCP, so a seccomp filter also refuses to create MPTCP
// sockets (programs fall back to plain TCP) and refuses io_uring, which
// could create one without the socket call. UDP is confined only from ABI
// 10 (DNS lookups still work below it): this is a backstop, not a firewall.
// A test that starts a server on 127.0.0.1 needs AllowNetwork.
//
// # Limits
//
// Landlock does not confine chmod, chown, utime or extended attributes, and
// a hard link made before the sandbox into a writable root stays writable.
// A daemon reached over a Unix socket (docker's, for one) acts outside the
// sandbox; Landlock confines connecting to such sockets only from ABI 9,
// and then allows it beneath the writable roots alone, and only when the
// command may use the network. A cache folder that does not exist yet is
// not created, so a first "npm install" cannot create ~/.npm. When the
// wisp home lies in /tmp (as in tests), /tmp is refused: give such
// commands a TMPDIR of their own.
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
	"os/exec"
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

// Shell is the shell every command line runs in.
const Shell = "/bin/sh"

// Config says how one command is confined.
type Config struct {
	// Enabled false runs the command unconfined (but still in its own
	// process group).
	Enabled bool `json:"enabled"`
	// Workdir is the workspace root.
	Workdir string `json:"workdir"`
	// WritablePaths are extra roots the user allows writing under.
	WritablePaths []string `json:"writable_paths,omitempty"`
	// AllowNetwork false refuses TCP connect and bind.
	AllowNetwork bool `json:"allow_network"`
	// WispHome is never writable; empty means $WISP_HOME, else ~/.wisp.
	WispHome string `json:"wisp_home,omitempty"`
	// TempDir is writable; empty means $TMPDIR.
	TempDir string `json:"temp_dir,omitempty"`
}

// Command builds the process that runs line in dir. With cfg.Enabled it is
// self (the wisp executable) acting as the helper, which applies the rules
// and then becomes "/bin/sh -c line"; without, it is the shell directly.
// Either way the process leads a new process group, so the caller can
// signal the whole command with kill(-pid). The configuration travels in
// argv, not in the environment, so nothing of it reaches the command.
// The caller sets Env, Stdin, Stdout and Stderr and owns start, kill and wait.
func Command(cfg Config, self, line, dir string) *exec.Cmd {
	var cmd *exec.Cmd
	if cfg.Enabled {
		// Marshalling a struct of strings and bools cannot fail.
		enc, _ := json.Marshal(cfg)
		cmd = exec.Command(self, HelperArg, string(enc), line)
	} else {
		cmd = exec.Command(Shell, "-c", line)
	}
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}
