// Package gatetest builds a real gate for tests: a workspace, a wisp
// home, a scratch folder outside both, the Landlock sandbox (re-executing
// the test binary as its helper), remembered approvals and an audit log,
// all in temporary folders. It is for tests only.
package gatetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/audit"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/workspace"
)

// Main lets a test binary serve as the sandbox helper, exactly as the
// wisp binary does; call it from TestMain.
func Main(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// World is a workspace and a wisp home with a real gate over them.
type World struct {
	Work, Home, WispHome, Outside, Tmp string
	Log                                *audit.Log
	Store                              *approval.Store
	Gate                               *gate.Gate
}

// New builds a world; mod may change the gate's options (approver,
// sandbox settings) before the gate is made. HOME and WISP_HOME point
// into it for the rest of the test.
func New(t *testing.T, mod func(*gate.Options)) *World {
	t.Helper()
	base := t.TempDir()
	w := &World{
		Work:    filepath.Join(base, "work"),
		Home:    filepath.Join(base, "home"),
		Outside: filepath.Join(base, "outside"),
		Tmp:     filepath.Join(base, "tmp"),
	}
	w.WispHome = filepath.Join(w.Home, ".wisp")
	for _, d := range []string{w.Work, w.WispHome, w.Outside, w.Tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", w.Home)
	t.Setenv("WISP_HOME", w.WispHome)
	var err error
	w.Log, err = audit.Open(audit.Dir(w.WispHome), audit.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Log.Close() })
	w.Store, err = approval.Open(filepath.Join(w.WispHome, "approvals.json"), w.Work, nil)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	_, landlock := sandbox.Available()
	opts := gate.Options{
		Approver:       gate.Allow{},
		Threshold:      approval.ThresholdModerate,
		Approvals:      w.Store,
		Classifier:     shell.NewCache(0),
		ShellOptions:   shell.Options{Workdir: w.Work, Home: w.Home, TempDir: w.Tmp},
		Sandbox:        sandbox.Config{Enabled: true, Workdir: w.Work, WispHome: w.WispHome, TempDir: w.Tmp, AllowNetwork: true},
		Self:           self,
		Sandboxed:      landlock,
		CommandTimeout: 10 * time.Second,
		Protected:      workspace.NewProtection(w.Home, nil, w.WispHome).Match,
		Audit:          w.Log,
		Session:        "test-session",
	}
	if mod != nil {
		mod(&opts)
	}
	w.Gate = gate.New(opts)
	return w
}

// BreakAudit makes every later audit write fail: the live log file is
// replaced by a folder, which no writer can open, root included.
func (w *World) BreakAudit(t *testing.T) {
	t.Helper()
	live := filepath.Join(audit.Dir(w.WispHome), audit.FileName)
	if err := os.Rename(live, live+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(live, 0o700); err != nil {
		t.Fatal(err)
	}
}

// Run calls tl through the gate as call id, in turn 1.
func (w *World) Run(t *testing.T, id string, tl tool.Tool, args string) tool.Result {
	t.Helper()
	res, err := w.Gate.Run(context.Background(), gate.Call{ID: id, Name: tl.Spec().Name, Args: json.RawMessage(args), Turn: 1},
		tl, tool.Env{Workdir: w.Work, TempDir: w.Tmp})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Lines returns one call's audit lines in the order they were written.
func (w *World) Lines(t *testing.T, call string) []audit.Line {
	t.Helper()
	all, err := audit.Read(audit.Dir(w.WispHome), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Line
	for _, l := range all {
		if l.Call == call {
			out = append(out, l)
		}
	}
	return out
}

// Kinds groups one call's audit lines by kind.
func (w *World) Kinds(t *testing.T, call string) map[string][]audit.Line {
	t.Helper()
	out := map[string][]audit.Line{}
	for _, l := range w.Lines(t, call) {
		out[l.Kind] = append(out[l.Kind], l)
	}
	return out
}

// Decode returns the details of the first line of a kind, failing the
// test when there is none.
func Decode[T audit.Details](t *testing.T, ls []audit.Line, kind string) T {
	t.Helper()
	for _, l := range ls {
		if l.Kind == kind {
			d, err := l.Decode()
			if err != nil {
				t.Fatal(err)
			}
			return d.(T)
		}
	}
	t.Fatalf("no %s line", kind)
	var zero T
	return zero
}
