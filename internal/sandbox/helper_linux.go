//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/sandbox/conceal"
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

// The helper's other roles, named in argv after HelperArg.
const (
	// initArg makes the helper the init of a command's PID namespace.
	initArg = "--init"
	// probeArg makes it build the auto-run profile and report what it
	// managed instead of running a line.
	probeArg = "--probe"
)

// Main is the helper: cmd/wisp's main calls it with the arguments after
// HelperArg (os.Args[2:], which Command makes [config, line]). It builds
// the command's box (namespaces, cgroup, Landlock, seccomp, no
// capabilities) on its own thread, starts the shell from that thread and
// stays as the shell's supervisor; it returns the shell's exit status, or
// ends by the signal that ended the shell. When it could not start the
// command it returns ExitSetup.
func Main(args []string) int {
	switch {
	case len(args) == 1 && args[0] == initArg:
		return initMain()
	case len(args) == 2 && args[0] == probeArg:
		return probeMain(args[1])
	case len(args) != 2:
		return setupFailed(fmt.Errorf("want a configuration and a command line, got %d arguments", len(args)))
	}
	var cfg Config
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return setupFailed(fmt.Errorf("decode configuration: %w", err))
	}

	// Namespaces, Landlock, seccomp, capabilities and no_new_privs all
	// bind to the calling thread, and a child inherits them from the
	// thread that forks it; the lock is never released, so this thread
	// is the one that builds the box and starts the shell.
	runtime.LockOSThread()
	b, err := enter(cfg)
	if err != nil {
		offThread(b.release)
		return setupFailed(err)
	}
	if b.notice != "" {
		fmt.Fprintf(os.Stderr, "wisp sandbox: %s\n", b.notice)
	}
	return b.run(shellArgv(args[1]))
}

// confine restricts the calling thread to cfg's rules: Landlock for
// writes (and TCP), and the socket filter when the network is denied.
func confine(cfg Config) error {
	abi, ok := Available()
	if !ok {
		return errUnenforced
	}
	roots, err := WritableRoots(cfg)
	if err != nil {
		return err
	}
	network := cfg.AllowNetwork && !cfg.AutoRun

	// The newest preset, downgraded to what the kernel knows: a newer
	// kernel restricts more without a change here.
	ll := landlock.V11.BestEffort()
	if network {
		ll.HandledAccessNet = 0
		ll.Scoped &^= llsys.ScopeAbstractUnixSocket
	}

	rules := []landlock.Rule{landlock.RODirs("/")}
	for _, root := range roots.Writable {
		rules = append(rules, rootRule(root, abi, network))
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
	switch {
	case cfg.AutoRun:
		return denyUnconfinedSockets(autoRunSockets)
	case !network && abi >= NetworkABI:
		return denyUnconfinedSockets(approvedSockets)
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

// platformAttr is how the parent starts the helper: leading its own
// process group, killed when the thread that started it dies (the caller
// keeps that thread alive: see internal/proc), and, where namespaces need
// one, in a user namespace of its own that maps the caller's ids to
// themselves.
func platformAttr(cfg Config) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if !cfg.Enabled {
		return attr
	}
	attr.Pdeathsig = syscall.SIGKILL
	if needUserNS() && Probe().userNS {
		withUserNS(attr)
	}
	return attr
}

// withUserNS adds a user namespace in which the caller keeps its own uid
// and gid, so that files keep their owners (and the command is not root
// in it), with the capabilities the helper needs to create the other
// namespaces and mount (CAP_SYS_ADMIN), and to empty the bounding set
// before the shell (CAP_SETPCAP). A process that is not root in its
// namespace loses its capabilities on exec, so these are ambient: they
// survive the exec of the helper and of init, and the helper drops them
// all before the shell.
func withUserNS(attr *syscall.SysProcAttr) {
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
}

// needUserNS reports whether this process lacks CAP_SYS_ADMIN, which
// creating namespaces without a user namespace needs.
func needUserNS() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return true
	}
	return data[unix.CAP_SYS_ADMIN/32].Effective&(1<<(unix.CAP_SYS_ADMIN%32)) == 0
}

// WorkspaceTooLarge says why the auto-run profile cannot be built for
// the workspace workdir ("" when it can): see conceal.TooLarge. The gate
// asks about such a workspace's lines instead of running them unasked.
func WorkspaceTooLarge(workdir string) string { return conceal.TooLarge(workdir) }
