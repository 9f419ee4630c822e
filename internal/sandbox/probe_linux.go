//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Probe reports what the sandbox can do here. It finds out by running the
// helper once (this executable, os.Executable, with HelperArg), which
// builds the auto-run profile in namespaces of its own, runs nothing, and
// says what it managed; so it must be called only from a binary whose
// main hands HelperArg to Main, as every binary that runs sandboxed
// commands must. Nothing of the trial outlives it: its namespaces end
// with it and its cgroup is removed. The answer is worked out once per
// process and cached.
func Probe() Support { return probeOnce() }

var probeOnce = sync.OnceValue(probe)

// probingEnv is set in the trial helper's environment: a binary that
// does not hand HelperArg to Main and calls Probe again gets a refusal
// instead of starting a trial of its own.
const probingEnv = "WISP_SANDBOX_PROBING"

// probeTimeout bounds one trial.
const probeTimeout = 10 * time.Second

// probeReport is what the trial helper prints.
type probeReport struct {
	AutoRun     bool   `json:"auto_run"`
	Why         string `json:"why,omitempty"`
	Containment string `json:"containment"`
	PidsMax     int    `json:"pids_max"`
}

func probe() Support {
	abi, ok := Available()
	s := Support{LandlockABI: abi, Landlock: ok, Containment: ContainProcessGroup}
	if os.Getenv(probingEnv) != "" {
		s.AutoRunWhy = "the sandbox trial ran in a binary that does not act as the sandbox helper"
		return s
	}
	self, err := os.Executable()
	if err != nil {
		s.AutoRunWhy = fmt.Sprintf("locate the wisp executable: %v", err)
		return s
	}
	// Without CAP_SYS_ADMIN namespaces need a user namespace; with it,
	// they need none, but a container may still refuse them and allow
	// a user namespace.
	tries := []bool{true}
	if !needUserNS() {
		tries = []bool{false, true}
	}
	var why []string
	for _, userNS := range tries {
		rep, err := trial(self, userNS)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		s.Containment, s.PidsMax = rep.Containment, rep.PidsMax
		s.AutoRun, s.AutoRunWhy, s.userNS = rep.AutoRun, rep.Why, userNS
		if rep.AutoRun || rep.Containment != ContainProcessGroup {
			return s
		}
		why = append(why, rep.Why)
	}
	s.AutoRunWhy = strings.Join(why, "; ")
	return s
}

// trial runs the helper in probe mode.
func trial(self string, userNS bool) (probeReport, error) {
	var rep probeReport
	tmp := os.TempDir()
	// No workspace: the trial runs nothing, and the auto-run profile
	// would walk a workspace for its protected files.
	cfg := Config{Enabled: true, AutoRun: true, TempDir: tmp, WispHome: filepath.Join(tmp, "wisp-sandbox-probe")}
	if home := os.Getenv("WISP_HOME"); home != "" {
		cfg.WispHome = absClean(home)
	}
	enc, _ := json.Marshal(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, HelperArg, probeArg, string(enc))
	cmd.Env = append(CommandEnv(os.Environ()), probingEnv+"=1")
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if userNS {
		withUserNS(cmd.SysProcAttr)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// The parent-death signal follows the thread that starts the child.
	runtime.LockOSThread()
	err := cmd.Run()
	runtime.UnlockOSThread()
	if jerr := json.Unmarshal(out.Bytes(), &rep); jerr != nil || rep.Containment == "" {
		what := "the helper"
		if userNS {
			what += " in a user namespace"
		}
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(errOut.String()), "wisp sandbox: "))
		if msg == "" && err != nil {
			msg = err.Error()
		}
		return rep, errors.New(what + ": " + firstLine(msg))
	}
	return rep, nil
}

// probeMain is the helper in probe mode: it builds the auto-run box,
// releases it and prints what it managed as JSON on stdout.
func probeMain(config string) int {
	var cfg Config
	if err := json.Unmarshal([]byte(config), &cfg); err != nil {
		return setupFailed(fmt.Errorf("decode configuration: %w", err))
	}
	runtime.LockOSThread()
	b, err := enter(cfg)
	rep := probeReport{AutoRun: err == nil, Containment: b.containment(), PidsMax: b.limit()}
	if err != nil {
		rep.Why = err.Error()
	}
	offThread(b.release)
	if err != nil && !b.ns {
		// No namespace was made, so the thread is as it was: try the
		// approved profile (no network namespace), whose containment
		// approved commands would get.
		cfg.AutoRun = false
		b, _ = enter(cfg)
		rep.Containment, rep.PidsMax = b.containment(), b.limit()
		offThread(b.release)
	}
	enc, _ := json.Marshal(rep)
	fmt.Println(string(enc))
	return 0
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 300 {
		line = line[:300]
	}
	return line
}
