package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host/runtemp"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// Config is the user's configuration, read once per process.
type Config = config.Loaded

// LoadConfig reads ~/.wisp/settings.json and ~/.wisp/config.json. A bad
// file or pattern is a MalformedError naming the file and the key.
func LoadConfig(getenv config.Getenv) (*Config, error) { return config.Load(getenv) }

func expandHome(p, home string) string { return config.ExpandHome(p, home) }

// gateParts are what a run's gate is built from.
type gateParts struct {
	opts  gate.Options
	log   *audit.Log
	store *approval.Store
	// sandboxNote says how commands are confined, for the audit and
	// `inspect status`.
	sandboxNote string
	// goCache is the Go build cache commands get in their temporary
	// folder when go's own cannot be written in the sandbox, for
	// `inspect status`; "" when they use go's own.
	goCache string
}

// buildGate assembles the gate's options from the configuration and
// warns, on stderr, about anything that weakens it.
func buildGate(l *Config, sys IO, temp runtemp.Temp) (*gateParts, error) {
	tmp := TempDir(sys.Getenv)
	f := l.File
	threshold, err := approval.ParseThreshold(f.Threshold())
	if err != nil {
		return nil, &config.MalformedError{File: l.Paths.Pretty(l.Paths.ConfigFile()), What: "approval.threshold: " + err.Error()}
	}
	gp := &gateParts{}
	gp.log, err = audit.Open(audit.Dir(l.Paths.Home), audit.Options{Version: Version})
	if err != nil {
		return nil, fmt.Errorf("open the audit log: %w", err)
	}
	gp.store, err = approval.Open(filepath.Join(l.Paths.Home, "approvals.json"), sys.Workdir, nil)
	var dup *approval.DuplicateError
	switch {
	case errors.As(err, &dup):
		fmt.Fprintf(sys.Stderr, "wisp: warning: %v\n", err)
	case err != nil:
		fmt.Fprintf(sys.Stderr, "wisp: warning: %v; remembered approvals are ignored until it is fixed or cleared (wisp approvals clear)\n", err)
	}
	var writable []string
	for _, p := range f.Sandbox.WritablePaths {
		writable = append(writable, expandHome(p, l.Paths.UserHome))
	}
	sb := sandbox.Config{
		Enabled: f.SandboxEnabled(), Workdir: sys.Workdir, WritablePaths: writable,
		AllowNetwork: f.AllowNetwork(), WispHome: l.Paths.Home, TempDir: first(temp.Commands, tmp),
	}
	sandboxed := false
	switch abi, ok := sandbox.Available(); {
	case !f.SandboxEnabled():
		gp.sandboxNote = "disabled"
		fmt.Fprintf(sys.Stderr, "wisp: warning: the sandbox is disabled (sandbox.enabled: false in %s); commands run unconfined\n", l.Paths.Pretty(l.Paths.ConfigFile()))
	case !ok:
		gp.sandboxNote = "unavailable"
		fmt.Fprintln(sys.Stderr, "wisp: warning: Landlock is not available on this system; commands run unsandboxed")
	default:
		sandboxed = true
		gp.sandboxNote = fmt.Sprintf("landlock abi %d", abi)
		if !f.AllowNetwork() && abi < sandbox.NetworkABI {
			fmt.Fprintf(sys.Stderr, "wisp: warning: sandbox.allowNetwork is false but Landlock ABI %d cannot deny the network (needs %d)\n", abi, sandbox.NetworkABI)
		}
		gp.goCache = readOnlyNotes(sys, l.Paths, sb, tmp, temp)
	}
	bytes, lines := f.OutputBound()
	protect := workspace.NewProtection(l.Paths.UserHome, l.Settings.ProtectedPaths, l.Paths.Home)
	gp.opts = gate.Options{
		ApprovalTimeout: f.ApprovalTimeout(),
		Policy:          l.Policy,
		Classifier:      shell.NewCache(shell.DefaultCacheSize),
		ShellOptions:    shell.Options{Workdir: sys.Workdir, Home: l.Paths.UserHome, TempDir: first(temp.Commands, tmp)},
		Threshold:       threshold,
		Approvals:       gp.store,
		Sandbox:         sb,
		Self:            sys.Self,
		Sandboxed:       sandboxed,
		CommandTimeout:  f.CommandTimeout(),
		OutputBytes:     bytes,
		OutputLines:     lines,
		Protected:       protect.Match,
		Audit:           gp.log,
	}
	refuseWithoutHelper(gp, sys)
	return gp, nil
}

// readOnlyNotes tells the person, on stderr, which roots commands were
// to write that stay read-only, and returns the Go build cache commands
// get in their temporary folder ("" when they use go's own).
func readOnlyNotes(sys IO, paths config.Paths, sb sandbox.Config, tmp string, temp runtemp.Temp) (goCache string) {
	if roots, err := sandbox.WritableRoots(sb); err == nil {
		for _, r := range roots.Refused {
			if fix, tell := runtemp.Fix(r.Path, tmp, temp); tell {
				fmt.Fprintf(sys.Stderr, "wisp: note: %s stays read-only to commands: %s%s\n", paths.Pretty(r.Path), r.Reason, fix)
			}
		}
	}
	for _, kv := range sandbox.TempEnv(sb, sandbox.CommandEnv(os.Environ())) {
		if v, ok := strings.CutPrefix(kv, "GOCACHE="); ok {
			goCache = v
		}
	}
	return goCache
}

// TempDir is the temporary folder the person chose ($TMPDIR), else the
// system's.
func TempDir(getenv config.Getenv) string { return runtemp.Dir(getenv) }

// AuditConfigChange records a change a wisp command made to one of the
// user's files.
func AuditConfigChange(cfg *Config, sys IO, d audit.ConfigChange) {
	log, err := audit.Open(audit.Dir(cfg.Paths.Home), audit.Options{Version: Version})
	if err != nil {
		fmt.Fprintf(sys.Stderr, "wisp: warning: audit log: %v\n", err)
		return
	}
	defer log.Close()
	if err := log.Write(audit.Entry{Details: d}); err != nil {
		fmt.Fprintf(sys.Stderr, "wisp: warning: audit log: %v\n", err)
	}
}

// LoadQuietly reads the configuration and the project for a command that
// starts no session: nobody is asked about trust, so an undecided project
// counts as untrusted.
func LoadQuietly(ctx context.Context, sys IO) (*Config, *Project, error) {
	cfg, err := LoadConfig(sys.Getenv)
	if err != nil {
		return nil, nil, err
	}
	p, err := LoadProject(ctx, cfg, sys, nil)
	if err != nil {
		return nil, nil, err
	}
	return cfg, p, nil
}
