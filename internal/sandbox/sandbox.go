// Package sandbox confines the shell commands wisp runs with Linux
// namespaces, Landlock and a seccomp filter, contains everything a command
// starts, and builds the process every command line runs in.
//
// A command never runs in wisp's own process: [Command] starts wisp again
// as a helper (argv[1] == [HelperArg]). The helper builds the command's box
// on one locked thread (namespaces, cgroup, Landlock, seccomp, no
// capabilities: all bound to that thread and inherited by what it forks),
// starts "bash --noprofile --norc -c LINE" from it and stays as a small
// supervisor: it passes SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and
// SIGUSR2 on to the shell's process group, and when the shell ends it
// ends everything else the command started and exits with the shell's
// status, or dies by the signal that killed the shell, so that the caller
// (internal/proc) sees what running the shell itself would have shown.
// The helper leads its own process group (the parent sets Setpgid), so
// kill(-pid) reaches it.
//
// # Two profiles
//
// A line nobody approved (Config.AutoRun: the classifier rated it safe)
// gets the auto-run profile; a line a person approved gets the approved
// profile. Both write only where the rules below allow and both are
// contained. The auto-run profile also:
//
//   - has no network of any kind, whatever AllowNetwork says: a network
//     namespace of its own with no interface up (not even loopback, so no
//     abstract Unix socket of the host either), and the socket filter of
//     a denied network narrowed further (see seccomp_linux.go): no IP
//     socket (so no TCP, Fast Open, listen, UDP or DNS), no stream Unix
//     socket (resolver daemons, ssh-agent, D-Bus act outside any
//     namespace), netlink for routing only;
//   - cannot read the secret locations: in a mount namespace of its own
//     (private propagation), every credential location of
//     internal/secrets that exists under HOME and the account's home
//     folder, and the wisp home, is covered by an empty read-only tmpfs
//     (a folder) or /dev/null (anything else), and /proc is a fresh mount
//     that shows only the command's own PID namespace, so wisp's environ,
//     cmdline and memory, and /proc/PID/root of any process outside, do
//     not exist. Mounts sit on what a path resolves to, so the secret is
//     hidden however a command spells it (.., a symlink, a glob, a
//     variable). Landlock could not do this: its read rules only grant,
//     and cannot take a subtree back out of a granted "/". The command
//     cannot undo the mounts: it has no capabilities, and Landlock forbids
//     a sandboxed process any mount or umount;
//   - cannot read the home folders ($HOME, the account's, /root, /home)
//     beyond the workspace, the temp folder and PATH's folders, which are
//     mounted back into an otherwise empty read-only tmpfs (homes_linux.go):
//     credentials live under names no list foresees;
//   - reads the workspace's own protected files (.env, keys, .npmrc: the
//     file tools' list) as empty, found by a bounded walk
//     (wssecrets_linux.go);
//   - sees only an allowlist of environment variables ([AutoRunEnv]).
//
// Where the auto-run profile cannot be built (no namespaces: unprivileged
// user namespaces refused, or no Landlock), [Probe] reports AutoRun false
// with the reason, and the helper refuses an auto-run line (ExitSetup):
// the caller must ask a person instead. It never runs such a line with
// less protection.
//
// # Containment
//
// Everything a command starts ends when its call ends: the one-shot
// command, its timeout, the caller's cancellation, or wisp's own death,
// even by SIGKILL. [Probe] reports the level in force
// (Support.Containment), strongest first:
//
//   - ContainCgroup: as below, plus a cgroup of its own beneath the
//     helper's with pids.max (Config.PidsMax, default 512), where one can
//     be made (cgroup v2 delegated with the pids controller, or the v1
//     pids hierarchy as root); it is removed afterwards, and leftovers of
//     a helper killed outright are removed by the next one;
//   - ContainPidNamespace: the shell runs in a PID namespace whose init is
//     the helper again (it mounts the fresh /proc and reaps orphans), so
//     setsid, set -m jobs, double forks and daemons all stay inside; when
//     the shell ends the helper kills init and the kernel kills the rest.
//     init dies with the helper (a parent-death signal, and a pipe only
//     the helper holds), and the helper with wisp (parent-death signal
//     SIGKILL), so wisp's death ends the namespace. As a normal user the
//     namespaces live in a user namespace of their own that maps the
//     caller's uid and gid to themselves (files of other owners show as
//     nobody), and RLIMIT_NPROC, counted per user namespace, bounds the
//     processes when no cgroup can be made;
//   - ContainProcessGroup, where no namespace can be made: the helper is a
//     child subreaper, the shell stays in its process group, and when the
//     shell ends (or wisp dies: the helper's parent-death signal is then
//     SIGTERM) the helper kills every descendant until none is left. No
//     process limit; approved commands only.
//
// When wisp runs as root the helper still drops every capability
// (bounding, ambient, inheritable, permitted and effective sets) before the
// shell starts, with no_new_privs, so a command cannot pass the kernel's
// ptrace-class checks on wisp nor regain privileges by exec.
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
// and ENV). Its temporary folder is Config.TempDir, named in TMPDIR,
// GOTMPDIR, TMP and TEMP ([TempEnv]). The sandbox configuration travels
// in argv, never in the environment.
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
//   - Config.TempDir (else $TMPDIR), /tmp and /dev/shm, because compilers,
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
// One folder of the wisp home is granted on its own to approved (never
// auto-run) commands: the wisps' shared volume, SharedDirName, when it
// is a real folder right beneath the wisp home. It holds data handed
// between a wisp's steps; wisp neither runs nor trusts anything in it.
// Links in it do not carry the grant elsewhere (Landlock judges the
// file reached), and a rename or hard link out of it is refused (EXDEV).
//
// # Network
//
// With AllowNetwork false (Landlock ABI 4 or later, see [NetworkABI]) no
// TCP port may be connected to or bound, loopback included, and abstract
// Unix sockets outside the sandbox are unreachable (ABI 6). Landlock sees
// only TCP, and not all of it (Fast Open and listen() on an unbound socket
// pass it by), so a seccomp filter refuses every IPv4 and IPv6 socket
// outright (no TCP, UDP, DNS, raw or ICMP socket) and every family other
// than Unix, netlink and kernel crypto (packet, vsock, SMC and the like);
// it also refuses io_uring, which could create a socket without the
// socket call. A test that starts a server on 127.0.0.1 needs
// AllowNetwork. Raw and packet sockets stay unusable with the network
// allowed too, since the command holds no capability.
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
// point into the workspace or $TMPDIR instead; [TempEnv] does that for
// GOCACHE). When the wisp home lies in /tmp (as in tests), /tmp is
// refused: the caller gives commands a temp folder of their own in
// Config.TempDir.
// Signals to processes outside the sandbox (wisp itself) are refused from
// ABI 6. Where Landlock is missing, [Available] says so; the helper then
// still runs an approved command, with a notice on its stderr, and the
// caller must warn and audit the command as unsandboxed; it refuses an
// auto-run one.
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
	// TempDir is the command's temporary folder: writable, and named by
	// TMPDIR, GOTMPDIR, TMP and TEMP in its environment (see [TempEnv]).
	// Empty means $TMPDIR, with the environment left as it is.
	TempDir string `json:"temp_dir,omitempty"`
	// AutoRun marks a line that runs because the classifier rated it
	// safe and nobody was asked. It gets the auto-run profile: no network
	// of any kind whatever AllowNetwork says, and the secret locations
	// hidden. Where that profile cannot be built (see [Probe]) the helper
	// refuses to run the line (ExitSetup) instead of running it with
	// less protection.
	AutoRun bool `json:"auto_run,omitempty"`
	// PidsMax bounds the number of processes (and threads) a command may
	// have at once; 0 means DefaultPidsMax.
	PidsMax int `json:"pids_max,omitempty"`
}

// DefaultPidsMax is the process limit of a command when Config.PidsMax is 0.
const DefaultPidsMax = 512

// Containment levels, strongest first, as Support.Containment reports them.
const (
	// ContainCgroup: a cgroup of its own with pids.max, inside a PID
	// namespace.
	ContainCgroup = "cgroup"
	// ContainPidNamespace: a PID namespace whose end ends every process
	// in it; processes are bounded by RLIMIT_NPROC inside a user
	// namespace where that is possible.
	ContainPidNamespace = "pid-namespace"
	// ContainProcessGroup: a process group and a child subreaper that
	// kills every descendant when the shell ends.
	ContainProcessGroup = "process-group"
)

// Support is what the sandbox can do on this machine, as [Probe] found it.
type Support struct {
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int
	// Landlock is true when writes can be confined at all.
	Landlock bool
	// AutoRun is true when the auto-run profile (Config.AutoRun) can be
	// built; AutoRunWhy says why not when it is false.
	AutoRun    bool
	AutoRunWhy string
	// Containment is ContainCgroup, ContainPidNamespace or
	// ContainProcessGroup: how everything a command starts is ended.
	Containment string
	// PidsMax is the process limit in force for a command with the
	// default Config.PidsMax, 0 when processes cannot be limited.
	PidsMax int
	// userNS is set when namespaces need an unprivileged user namespace,
	// which the parent must create when it starts the helper.
	userNS bool
}

// Command builds the process that runs line in dir. With cfg.Enabled it is
// self (the wisp executable) acting as the helper, which builds the box
// and runs the shell ShellPath reports on line inside it; without, it is
// that shell directly. With cfg.Enabled it dies with the thread that
// starts it (a parent-death signal; internal/proc starts it from a thread
// that outlives the command) and, where namespaces need one, starts in a
// user namespace of its own (this may run [Probe] once). Either way the process leads a new process
// group, so the caller can signal the whole command with kill(-pid), and
// its Env is CommandEnv(os.Environ()) (AutoRunEnv in the auto-run
// profile) with TempEnv's variables. The configuration travels in argv,
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
	if cfg.Enabled && cfg.AutoRun {
		cmd.Env = AutoRunEnv(os.Environ())
	}
	cmd.Env = withEnv(cmd.Env, TempEnv(cfg, cmd.Env))
	cmd.Dir = dir
	cmd.SysProcAttr = platformAttr(cfg)
	return cmd
}

// autoRunVars are the only variables a command nobody approved sees. The
// user's environment holds credentials under names no list can predict
// (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, a CI's secrets), and a reader the
// classifier rates safe (jq -n env, grep over /proc/self) would hand them
// to the model; so this is an allowlist, like the rest of the profile.
var autoRunVars = [...]string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "TMPDIR",
	"TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR",
	"CLICOLOR", "CLICOLOR_FORCE", "LANG", "LANGUAGE", "TZ",
}

// AutoRunEnv returns the environment of an auto-run command: from
// environ, only the variables in autoRunVars and the locale's LC_*.
func AutoRunEnv(environ []string) []string {
	out := make([]string, 0, len(autoRunVars)+4)
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "LC_") || slices.Contains(autoRunVars[:], name) {
			out = append(out, kv)
		}
	}
	return out
}

// autoRun reports whether an encoded configuration asks for the auto-run
// profile; one that cannot be read counts as asking, so that it is
// refused rather than run with less protection.
func autoRun(config string) bool {
	var cfg Config
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		return true
	}
	return cfg.AutoRun
}
