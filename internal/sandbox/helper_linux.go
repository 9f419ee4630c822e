//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Available reports the kernel's Landlock ABI version and whether it can
// confine writes at all (ABI 1 or later). Refusing network access needs
// NetworkABI or later.
func Available() (abi int, ok bool) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0, false
	}
	return v, true
}

// errUnenforced means the kernel has no Landlock to enforce with.
var errUnenforced = errors.New("this system has no Landlock")

// Main is the helper: cmd/wisp's main calls it with the arguments after
// HelperArg (os.Args[2:], which Command makes [config, line]). It applies
// the rules to its own thread and execs the shell from that thread, so it
// never returns on success. On failure it returns ExitSetup.
func Main(args []string) int {
	if len(args) != 2 {
		return setupFailed(fmt.Errorf("want a configuration and a command line, got %d arguments", len(args)))
	}
	var cfg Config
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return setupFailed(fmt.Errorf("decode configuration: %w", err))
	}
	line := args[1]

	// Landlock and no_new_privs bind to the calling thread and are kept
	// across execve by that thread alone; the lock is never released, so
	// the restricted thread is the one that execs.
	runtime.LockOSThread()
	// Set even when Landlock is missing: setuid binaries can then no
	// longer raise the command's privileges.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return setupFailed(fmt.Errorf("set no_new_privs: %w", err))
	}
	switch err := confine(cfg); {
	case errors.Is(err, errUnenforced):
		fmt.Fprintf(os.Stderr, "wisp sandbox: %v; the command runs unsandboxed\n", err)
	case err != nil:
		return setupFailed(err)
	}
	argv := shellArgv(line)
	err := syscall.Exec(argv[0], argv, CommandEnv(os.Environ()))
	return setupFailed(fmt.Errorf("exec %s: %w", argv[0], err))
}

// confine restricts the calling thread to cfg's rules.
func confine(cfg Config) error {
	abi, ok := Available()
	if !ok {
		return errUnenforced
	}
	roots, err := WritableRoots(cfg)
	if err != nil {
		return err
	}

	// The newest preset, downgraded to what the kernel knows: a newer
	// kernel restricts more without a change here.
	ll := landlock.V11.BestEffort()
	if cfg.AllowNetwork {
		ll.HandledAccessNet = 0
		ll.Scoped &^= llsys.ScopeAbstractUnixSocket
	}

	rules := []landlock.Rule{landlock.RODirs("/")}
	for _, root := range roots.Writable {
		rules = append(rules, rootRule(root, abi, cfg.AllowNetwork))
	}
	for _, d := range devices {
		rules = append(rules, landlock.RWFiles(d).WithIoctlDev().IgnoreIfMissing())
	}
	rules = append(rules, landlock.RWFiles(ptsDir).WithIoctlDev().IgnoreIfMissing())

	fd, flags, err := ll.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("build Landlock rules (%s): %w", roots, err)
	}
	if fd < 0 {
		return errUnenforced
	}
	defer unix.Close(fd)
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("enforce Landlock rules: %w", err)
	}
	if !cfg.AllowNetwork && abi >= NetworkABI {
		return denyUnconfinedSockets()
	}
	return nil
}

// rootRule grants full access beneath one writable root.
func rootRule(root string, abi int, network bool) landlock.Rule {
	st, err := os.Stat(root)
	if err == nil && !st.IsDir() {
		// Directory rights on a file make the kernel reject the rule.
		return landlock.RWFiles(root)
	}
	r := landlock.RWDirs(root)
	// Renames and links between directories need "refer". Asking for it
	// on ABI 1, which cannot grant it, would make the best-effort
	// downgrade drop every rule, so it is asked for only from ABI 2.
	if abi >= 2 {
		r = r.WithRefer()
	}
	if network {
		// Sockets such as ssh-agent's in /tmp (confined from ABI 9).
		r = r.WithResolveUnix()
	}
	return r
}

func setupFailed(err error) int {
	fmt.Fprintf(os.Stderr, "wisp sandbox: %v\n", err)
	return ExitSetup
}
