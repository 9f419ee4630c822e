package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/shell"
)

// cmdClassify shows how the gate judges a shell line: the policy's
// decision, the level, every part and the reasons.
func cmdClassify(args []string, sys IO) error {
	asJSON := false
	var words []string
	for i, a := range args {
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if a == "--json" {
			asJSON = true
			continue
		}
		if strings.HasPrefix(a, "-") && len(words) == 0 {
			return usagef("wisp classify: unknown flag %s (usage: wisp classify [--json] -- COMMAND)", a)
		}
		words = append(words, a)
	}
	line := strings.Join(words, " ")
	if strings.TrimSpace(line) == "" {
		return usagef("usage: wisp classify [--json] -- COMMAND")
	}
	cfg, err := host.LoadConfig(sys.Getenv)
	if err != nil {
		return err
	}
	d := cfg.Policy.Check(line)
	v := shell.ClassifyWith(line, shell.Options{Workdir: sys.Workdir, Home: cfg.Paths.UserHome, TempDir: host.TempDir(sys.Getenv)})
	threshold, _ := approval.ParseThreshold(cfg.File.Threshold())
	asks := false
	for _, p := range partsOf(line, v) {
		asks = asks || threshold.Asks(p.Level)
	}
	if asJSON {
		out := struct {
			Line    string       `json:"line"`
			Policy  any          `json:"policy"`
			Level   shell.Level  `json:"level"`
			Asks    bool         `json:"asks"`
			Reasons []string     `json:"reasons"`
			Parts   []shell.Part `json:"parts"`
		}{line, map[string]any{"allowed": d.Allowed, "name": d.Name, "about": d.About, "rule": d.Rule, "command": d.Command}, v.Level, asks && d.Allowed, v.Reasons, v.Parts}
		enc := json.NewEncoder(sys.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	if !d.Allowed {
		fmt.Fprintf(sys.Stdout, "policy: denied by rule %s (%s)\n  pattern: %s\n", d.Name, d.About, d.Rule)
		if d.Command != "" && d.Command != line {
			fmt.Fprintf(sys.Stdout, "  command: %s\n", d.Command)
		}
	} else {
		fmt.Fprintln(sys.Stdout, "policy: allowed")
	}
	fmt.Fprintf(sys.Stdout, "level: %s", v.Text())
	switch {
	case !d.Allowed:
		fmt.Fprintln(sys.Stdout, "→ refused by the command policy; no approval can run it")
	case asks:
		fmt.Fprintf(sys.Stdout, "→ asks before running (approval.threshold: %s)\n", threshold)
	default:
		fmt.Fprintf(sys.Stdout, "→ runs without asking (approval.threshold: %s)\n", threshold)
	}
	return nil
}

// partsOf mirrors the gate: a line judged stricter than its parts is one
// part of its own.
func partsOf(line string, v shell.Verdict) []shell.Part {
	max := shell.Level(-1)
	for _, p := range v.Parts {
		if p.Level > max {
			max = p.Level
		}
	}
	if len(v.Parts) == 0 || v.Level > max {
		return append(append([]shell.Part(nil), v.Parts...), shell.Part{Command: line, Level: v.Level})
	}
	return v.Parts
}

// cmdLogs reads the audit log.
func cmdLogs(ctx context.Context, args []string, sys IO) error {
	cfg, err := host.LoadConfig(sys.Getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// A bad command line is a UsageError already: exit code 2.
	err = audit.Logs(ctx, sys.Stdout, sys.Stderr, audit.Dir(cfg.Paths.Home), args)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// cmdApprovals lists, revokes or clears remembered approvals.
func cmdApprovals(args []string, sys IO) error {
	cfg, err := host.LoadConfig(sys.Getenv)
	if err != nil {
		return err
	}
	store, err := approval.Open(filepath.Join(cfg.Paths.Home, "approvals.json"), sys.Workdir, nil)
	if err != nil {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %v\n", err)
	}
	var before []approval.Entry
	if store != nil {
		before, _ = store.List()
	}
	err = approval.Command(args, sys.Stdout, sys.Stderr, store)
	if err == nil && store != nil && len(args) > 0 && (args[0] == "revoke" || args[0] == "clear") {
		after, _ := store.List()
		key := "approvals"
		if args[0] == "revoke" && len(args) > 1 {
			key = "approval " + args[1]
		}
		host.AuditConfigChange(cfg, sys, audit.ConfigChange{
			File: cfg.Paths.Pretty(store.Path()), Key: key,
			Old: fmt.Sprintf("%d entries", len(before)), New: fmt.Sprintf("%d entries", len(after)),
		})
	}
	return err
}
