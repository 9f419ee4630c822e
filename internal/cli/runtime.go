package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/chat"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/event"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/prompt"
	"github.com/wisp-agent/wisp/internal/session"
	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin"
)

// runtime is one wired-up run: provider, tools, gate, session, agent.
type runtime struct {
	opts     Options
	sys      IO
	paths    config.Paths
	choice   providerChoice
	agent    *agent.Agent
	tools    *tool.Registry
	bash     *builtin.BashTool
	session  *session.Writer
	frontend event.Sink
	approver gate.Approver
	closers  []func()
}

// toolAliases maps the names custom-tools.md uses to the built-ins.
var toolAliases = map[string]string{"run_command": "bash", "read_file": "read", "edit_file": "edit"}

// allBuiltins builds one session's built-in tools, in the order the model
// sees them.
func allBuiltins(bash *builtin.BashTool, stderr io.Writer) []tool.Tool {
	return []tool.Tool{
		builtin.Read(), builtin.Grep(), builtin.Find(), builtin.Ls(),
		builtin.Write(), builtin.Edit(), bash,
		builtin.CurrentDate(), builtin.SystemInfo(), builtin.Notify(stderr),
	}
}

func newRuntime(ctx context.Context, o Options, sys IO, interactive bool) (*runtime, error) {
	paths, err := config.ResolvePaths(sys.Getenv)
	if err != nil {
		return nil, err
	}
	settings, warns, err := config.LoadSettings(paths)
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		fmt.Fprintf(sys.Stderr, "wisp: warning: %s\n", w)
	}
	choice, err := chooseProvider(o, settings, sys.Getenv, paths.Pretty(paths.SettingsFile()))
	if err != nil {
		return nil, err
	}
	rt := &runtime{opts: o, sys: sys, paths: paths, choice: choice}

	rt.bash = builtin.Bash()
	rt.closers = append(rt.closers, rt.bash.Close)
	all := tool.NewRegistry(allBuiltins(rt.bash, sys.Stderr)...)
	exposed, err := exposedTools(o, all, interactive)
	if err != nil {
		return nil, err
	}
	rt.tools = exposed

	// The session is opened before the provider so that a bad --resume is
	// a usage error, reported before anything starts.
	history, err := rt.openSession(o, settings, sys)
	if err != nil {
		return nil, err
	}

	prov, closeProv, err := openProvider(choice, sys.Getenv)
	if err != nil {
		rt.Close()
		return nil, err
	}
	rt.closers = append(rt.closers, closeProv)

	switch {
	case interactive:
		rt.approver = nil // set by the interactive frontend
	case o.Yes:
		rt.approver = gate.Allow{}
	default:
		rt.approver = gate.Deny{Reason: "print mode runs mutating and command tools only with --yes (alias --allow-unsafe-tool-execution)"}
	}

	sink := func(e event.Event) {
		if rt.session != nil {
			rt.record(e)
		}
		if rt.frontend != nil {
			rt.frontend(e)
		}
	}
	g := gate.New(gate.Options{
		Approver: gate.ApproverFunc(func(ctx context.Context, r gate.Request) (bool, error) {
			if rt.approver == nil {
				return false, errors.New("no approver")
			}
			return rt.approver.Approve(ctx, r)
		}),
		Sink: sink,
	})
	tmp := sys.Getenv("TMPDIR")
	if tmp == "" {
		tmp = os.TempDir()
	}
	rt.agent = agent.New(agent.Options{
		Provider:  prov,
		Model:     choice.Model,
		MaxTokens: settings.MaxTokens,
		System: prompt.Build(prompt.Options{
			Workdir: sys.Workdir, Now: time.Now(), Tools: rt.tools.Names(),
		}),
		Tools:             rt.tools,
		Gate:              g,
		Env:               tool.Env{Workdir: sys.Workdir, TempDir: tmp, Interactive: interactive && sys.StderrTTY},
		MaxToolIterations: o.MaxToolIters,
		Sink:              sink,
		Session:           rt.sessionID(),
	}, history)
	return rt, nil
}

// exposedTools decides which tools the model sees. Interactive runs get
// them all (each unsafe call is asked about); print mode gets none unless
// the flags ask.
func exposedTools(o Options, all *tool.Registry, interactive bool) (*tool.Registry, error) {
	var names []string
	for _, n := range o.AllowTools {
		canon := n
		if a, ok := toolAliases[n]; ok {
			canon = a
		}
		if _, ok := all.Get(canon); !ok {
			return nil, usagef("unknown tool %q for --allow-tool; known tools: %s", n, strings.Join(all.SortedNames(), ", "))
		}
		names = append(names, canon)
	}
	if interactive || o.AllowAllTools {
		return all, nil
	}
	if o.AllowReadTools {
		for _, s := range all.Specs() {
			if s.Class == tool.Read {
				names = append(names, s.Name)
			}
		}
	}
	return all.Subset(names), nil
}

func (rt *runtime) sessionID() string {
	if rt.session == nil {
		return ""
	}
	return rt.session.ID()
}

// openSession starts or resumes the transcript and returns the
// conversation to continue.
func (rt *runtime) openSession(o Options, s config.Settings, sys IO) ([]chat.Message, error) {
	dir := first(o.SessionDir, sys.Getenv("WISP_SESSION_DIR"), s.SessionDir, rt.paths.SessionDir())
	if o.NoSession {
		if o.Continue || o.Resume != "" {
			return nil, usagef("--no-session cannot be combined with --continue or --resume")
		}
		return nil, nil
	}
	var path string
	var err error
	switch {
	case o.Continue && o.Resume != "":
		return nil, usagef("use --continue or --resume, not both")
	case o.Resume != "":
		path, err = session.Find(dir, o.Resume)
		if err != nil {
			return nil, usagef("--resume %s: %v", o.Resume, err)
		}
	case o.Continue:
		path, err = session.Latest(dir, sys.Workdir)
		if err != nil && !errors.Is(err, session.ErrNotFound) {
			return nil, fmt.Errorf("--continue: %w", err)
		}
		if err != nil {
			fmt.Fprintf(sys.Stderr, "wisp: no earlier session in %s; starting a new one\n", sys.Workdir)
		}
	}
	if path == "" {
		w, err := session.Create(dir, session.Header{Cwd: sys.Workdir, Provider: rt.choice.Name, Model: rt.choice.Model})
		if err != nil {
			return nil, fmt.Errorf("create the session: %w", err)
		}
		rt.session = w
		return nil, nil
	}
	_, records, err := session.Load(path)
	if err != nil {
		return nil, fmt.Errorf("load the session: %w", err)
	}
	w, err := session.OpenAppend(path)
	if err != nil {
		return nil, fmt.Errorf("open the session: %w", err)
	}
	rt.session = w
	return session.Messages(records), nil
}

// record keeps what a transcript needs (session.FromEvent decides):
// messages, tool calls and results, approvals, retries and errors; never
// text deltas.
func (rt *runtime) record(e event.Event) {
	for _, rec := range session.FromEvent(e) {
		if _, err := rt.session.Append(rec); err != nil {
			fmt.Fprintf(rt.sys.Stderr, "wisp: warning: session not saved: %v\n", err)
			return
		}
	}
}

// Close stops managed processes, the provider and the session, last
// started first.
func (rt *runtime) Close() {
	for i := len(rt.closers) - 1; i >= 0; i-- {
		rt.closers[i]()
	}
	if rt.session != nil {
		_ = rt.session.Close()
	}
}
