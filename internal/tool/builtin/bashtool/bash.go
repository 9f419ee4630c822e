// Package bashtool holds the command tool, bash: one-shot runs and the
// session's managed processes, and RunLine, the one way a tool runs a shell
// line to its end. It must not build a process itself: every line runs
// through the shell the gate hands it in tool.Env, which wraps it in the
// sandbox, and deciding whether a line may run is the gate's job.
package bashtool

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wisp-agent/wisp/internal/proc"
	"github.com/wisp-agent/wisp/internal/tool"
)

//go:embed bash.md
var bashDescription string

// The description (bash.md) says what each argument does; repeating it
// here would cost every request its bytes again.
const bashSchema = `{"type":"object","properties":{` +
	`"operation":{"type":"string","enum":["run","start","poll","cancel"]},` +
	`"command":{"type":"string"},` +
	`"timeout":{"type":"number"},` +
	`"lifetime_seconds":{"type":"number"},` +
	`"yield_seconds":{"type":"number"},` +
	`"process_id":{"type":"string"},` +
	`"wait_seconds":{"type":"number"}` +
	`},"additionalProperties":false}`

// Defaults and limits of the bash tool's arguments.
const (
	bashDefaultTimeout  = 60 * time.Second
	bashMaxTimeout      = time.Hour
	bashDefaultLifetime = 300 * time.Second
	bashMaxLifetime     = 24 * time.Hour
	bashDefaultYield    = time.Second
	bashMaxWait         = 30 * time.Second
	// bashMaxProcesses bounds the managed-process table: each entry may
	// hold up to about 200 KB of output tail.
	bashMaxProcesses = 16
)

// Tool runs shell lines: one-shot (run) or as managed processes
// (start, poll, cancel). One instance serves one session and owns that
// session's managed processes; Close ends them.
type Tool struct {
	mu     sync.Mutex
	procs  map[string]*bashProcess
	nextID int
	closed bool
}

type bashProcess struct {
	p       *proc.Process
	started int // order of start, for pruning
	// final is set once a poll or cancel reported the ended state, after
	// which the entry may be dropped to make room.
	final bool
}

// New returns a bash tool with an empty process table.
func New() *Tool {
	return &Tool{procs: map[string]*bashProcess{}}
}

// Spec describes bash to the model and the gate.
func (b *Tool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "bash",
		Description: strings.TrimSpace(bashDescription),
		Schema:      json.RawMessage(bashSchema),
		Class:       tool.Command,
	}
}

// Describe states the limits bash enforces and an example prompt, for
// `wisp tools --markdown` and wisp://tools.md.
func (*Tool) Describe() (limits []string, example string) {
	return []string{
			fmt.Sprintf("default timeout %s (commandTimeoutSeconds), then SIGTERM to the process group and SIGKILL %s later", spacedSeconds(bashDefaultTimeout), spacedSeconds(proc.DefaultGrace)),
			fmt.Sprintf("output bound %d KB / %s lines per stream, tail kept, whole output saved under $TMPDIR", proc.DefaultBoundBytes>>10, tool.Thousands(proc.DefaultBoundLines)),
			"sandboxed: writes only in the workspace, $TMPDIR and configured paths",
			fmt.Sprintf("start/poll/cancel: at most %d managed processes, lifetime %s by default", bashMaxProcesses, spacedSeconds(bashDefaultLifetime)),
		},
		"Run the test suite and summarise any failures."
}

// CommandLine returns the shell line a run or start call will run. Poll
// and cancel act on a process already approved at start; they return "".
func (b *Tool) CommandLine(args json.RawMessage) (string, error) {
	c, err := parseBashCall(args)
	if err != nil {
		return "", err
	}
	return c.command, nil
}

// Run performs one call.
func (b *Tool) Run(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	c, err := parseBashCall(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if env == nil {
		env = &tool.Env{}
	}
	switch c.op {
	case "run":
		return b.run(ctx, env, c), nil
	case "start":
		return b.start(ctx, env, c), nil
	case "poll":
		return b.poll(ctx, c), nil
	default:
		return b.cancel(c), nil
	}
}

// Close ends every managed process and refuses new ones. It returns when
// all have ended (each within the kill grace period).
func (b *Tool) Close() {
	b.mu.Lock()
	b.closed = true
	procs := make([]*proc.Process, 0, len(b.procs))
	for _, e := range b.procs {
		procs = append(procs, e.p)
	}
	b.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Cancel()
		}()
	}
	wg.Wait()
}

func (b *Tool) run(ctx context.Context, env *tool.Env, c bashCall) tool.Result {
	timeout := c.timeout
	if !c.timeoutGiven {
		// RunLine applies the configured commandTimeoutSeconds, then the default.
		timeout = 0
	}
	// The user's commandTimeoutSeconds is a limit the model cannot raise;
	// longer work belongs in a managed process (operation start).
	capped := env.CommandTimeout > 0 && timeout > env.CommandTimeout
	if capped {
		timeout = env.CommandTimeout
	}
	res := RunLine(ctx, env, c.command, env.Workdir, timeout)
	if capped && res.Command != nil && res.Command.TimedOut {
		res.Content += fmt.Sprintf("note: timeout is limited to %s by commandTimeoutSeconds; use operation start for longer commands\n", bashSeconds(env.CommandTimeout))
	}
	return res
}

// bashBound is the gate's output bound for this session.
func bashBound(env *tool.Env) proc.Bound {
	return proc.Bound{Bytes: env.OutputBytes, Lines: env.OutputLines}
}

// commandOutcome tells the gate how a command ended, for its audit and
// its sandbox report.
func commandOutcome(o proc.Outcome) *tool.CommandOutcome {
	tail := o.Stderr.Text
	if len(tail) > 4096 {
		tail = tail[len(tail)-4096:]
	}
	return &tool.CommandOutcome{
		ExitCode: o.ExitCode, Signal: o.Signal, TimedOut: o.TimedOut(), Canceled: o.State == proc.Killed,
		Truncated: o.Stdout.Truncated || o.Stderr.Truncated,
		Duration:  o.Duration, StderrTail: tail,
	}
}

func (b *Tool) start(ctx context.Context, env *tool.Env, c bashCall) tool.Result {
	cmd, err := shellCommand(env, c.command, env.Workdir)
	if err != nil {
		return tool.Errorf("could not start the command: %v", err)
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return tool.Errorf("the session is ending; no new processes")
	}
	if !b.makeRoom() {
		ids := b.ids()
		b.mu.Unlock()
		return tool.Errorf("%d processes are running (%s); cancel one first", len(ids), strings.Join(ids, ", "))
	}
	// Started under the lock so that Close never misses a process.
	p, err := proc.Start(cmd, proc.Options{Timeout: c.lifetime, Dir: env.TempDir, Bound: bashBound(env)})
	if err != nil {
		b.mu.Unlock()
		return tool.Errorf("could not start the command: %v", err)
	}
	b.nextID++
	id := "p" + strconv.Itoa(b.nextID)
	e := &bashProcess{p: p, started: b.nextID}
	b.procs[id] = e
	b.mu.Unlock()

	bashWait(ctx, p, c.yield)
	return b.report(id, e, "(no output yet)")
}

func (b *Tool) poll(ctx context.Context, c bashCall) tool.Result {
	e, res, ok := b.lookup(c.id)
	if !ok {
		return res
	}
	bashWait(ctx, e.p, c.wait)
	return b.report(c.id, e, "(no new output)")
}

func (b *Tool) cancel(c bashCall) tool.Result {
	e, res, ok := b.lookup(c.id)
	if !ok {
		return res
	}
	e.p.Cancel()
	return b.report(c.id, e, "(no new output)")
}

func (b *Tool) lookup(id string) (*bashProcess, tool.Result, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.procs[id]; ok {
		return e, tool.Result{}, true
	}
	if ids := b.ids(); len(ids) > 0 {
		return nil, tool.Errorf("no process %q; known: %s", id, strings.Join(ids, ", ")), false
	}
	return nil, tool.Errorf("no process %q; start one with operation start", id), false
}

// report polls a managed process and formats what is new.
func (b *Tool) report(id string, e *bashProcess, empty string) tool.Result {
	o := e.p.Poll(0)
	if o.State != proc.Running {
		b.mu.Lock()
		e.final = true
		b.mu.Unlock()
	}
	var w strings.Builder
	fmt.Fprintf(&w, "process_id: %s\nstate: %s\n", id, o.State)
	if o.State != proc.Running {
		writeBashExit(&w, o)
	}
	writeBashStreams(&w, o, empty)
	return tool.Result{Content: w.String()}
}

// makeRoom drops ended processes until a new one fits: those whose end
// was reported first, oldest first. It reports whether there is room.
// The caller holds b.mu.
func (b *Tool) makeRoom() bool {
	if len(b.procs) < bashMaxProcesses {
		return true
	}
	var ended []string
	for id, e := range b.procs {
		select {
		case <-e.p.Done():
			ended = append(ended, id)
		default:
		}
	}
	sort.Slice(ended, func(i, j int) bool {
		ei, ej := b.procs[ended[i]], b.procs[ended[j]]
		if ei.final != ej.final {
			return ei.final
		}
		return ei.started < ej.started
	})
	for _, id := range ended {
		if len(b.procs) < bashMaxProcesses {
			break
		}
		delete(b.procs, id)
	}
	return len(b.procs) < bashMaxProcesses
}

// ids lists the table's process ids in start order. The caller holds b.mu.
func (b *Tool) ids() []string {
	ids := make([]string, 0, len(b.procs))
	for id := range b.procs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return b.procs[ids[i]].started < b.procs[ids[j]].started })
	return ids
}

// bashWait waits up to d for p to end, or for the call to be abandoned.
func bashWait(ctx context.Context, p *proc.Process, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.Done():
	case <-t.C:
	case <-ctx.Done():
	}
}

func writeBashExit(w *strings.Builder, o proc.Outcome) {
	if o.Signal != "" {
		fmt.Fprintf(w, "exit_code: %d (ended by %s)\n", o.ExitCode, o.Signal)
		return
	}
	fmt.Fprintf(w, "exit_code: %d\n", o.ExitCode)
}

func writeBashStreams(w *strings.Builder, o proc.Outcome, empty string) {
	if o.Stdout.TotalBytes == 0 && o.Stderr.TotalBytes == 0 {
		w.WriteString(empty)
		w.WriteByte('\n')
		return
	}
	writeBashStream(w, "stdout", o.Stdout)
	writeBashStream(w, "stderr", o.Stderr)
}

func writeBashStream(w *strings.Builder, name string, s proc.Stream) {
	if s.TotalBytes == 0 {
		return
	}
	w.WriteString(name + ":\n")
	if s.Truncated {
		fmt.Fprintf(w, "[%s truncated: %s; %s]\n", name, bashKept(s), bashFullOutput(s))
	}
	text := strings.ToValidUTF8(s.Text, "\uFFFD")
	w.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		w.WriteByte('\n')
	}
}

func bashKept(s proc.Stream) string {
	if int64(s.Lines) < s.TotalLines {
		return fmt.Sprintf("kept last %d of %d lines", s.Lines, s.TotalLines)
	}
	return fmt.Sprintf("kept last %d of %d bytes", len(s.Text), s.TotalBytes)
}

func bashFullOutput(s proc.Stream) string {
	switch {
	case s.FileErr != "":
		return "full output not saved: " + s.FileErr
	case s.File == "":
		return "full output not saved"
	case s.FileCapped:
		return fmt.Sprintf("first %d MiB of the output: %s", proc.DefaultFileLimit>>20, s.File)
	default:
		return "full output: " + s.File
	}
}

func bashSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// spacedSeconds writes d as the descriptions do: "60 s".
func spacedSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// bashCall is a checked call.
type bashCall struct {
	op      string
	command string
	timeout time.Duration
	// timeoutGiven is false when the model left timeout out, so that the
	// configured commandTimeoutSeconds applies.
	timeoutGiven bool
	lifetime     time.Duration
	yield        time.Duration
	wait         time.Duration
	id           string
}

// bashArgs is the wire form; pointers tell absent (or null) from zero.
type bashArgs struct {
	Operation       string   `json:"operation"`
	Command         *string  `json:"command"`
	Timeout         *float64 `json:"timeout"`
	LifetimeSeconds *float64 `json:"lifetime_seconds"`
	YieldSeconds    *float64 `json:"yield_seconds"`
	ProcessID       *string  `json:"process_id"`
	WaitSeconds     *float64 `json:"wait_seconds"`
}

// bashFields lists the arguments an operation takes; nil for an unknown one.
func bashFields(op string) []string {
	switch op {
	case "run":
		return []string{"command", "timeout"}
	case "start":
		return []string{"command", "lifetime_seconds", "yield_seconds"}
	case "poll":
		return []string{"process_id", "wait_seconds"}
	case "cancel":
		return []string{"process_id"}
	}
	return nil
}

func parseBashCall(raw json.RawMessage) (bashCall, error) {
	var a bashArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return bashCall{}, fmt.Errorf("bash arguments: %s", bashJSONError(err))
	}
	if a.Operation == "" {
		a.Operation = "run"
	}
	allowed := bashFields(a.Operation)
	if allowed == nil {
		return bashCall{}, fmt.Errorf("bash: unknown operation %q; use run, start, poll or cancel", a.Operation)
	}
	given := map[string]bool{
		"command": a.Command != nil, "timeout": a.Timeout != nil,
		"lifetime_seconds": a.LifetimeSeconds != nil, "yield_seconds": a.YieldSeconds != nil,
		"process_id": a.ProcessID != nil, "wait_seconds": a.WaitSeconds != nil,
	}
	for _, f := range allowed {
		delete(given, f)
	}
	for _, f := range []string{"command", "timeout", "lifetime_seconds", "yield_seconds", "process_id", "wait_seconds"} {
		if given[f] {
			return bashCall{}, fmt.Errorf("bash: %s does not apply to operation %s (it takes %s)", f, a.Operation, strings.Join(allowed, ", "))
		}
	}

	c := bashCall{op: a.Operation}
	var err error
	switch c.op {
	case "run", "start":
		if a.Command == nil || strings.TrimSpace(*a.Command) == "" {
			return bashCall{}, fmt.Errorf("bash: command is required for %s", c.op)
		}
		c.command = *a.Command
		if c.op == "run" {
			c.timeout, err = bashDuration("timeout", a.Timeout, bashDefaultTimeout, bashMaxTimeout, false)
			c.timeoutGiven = a.Timeout != nil
		} else {
			c.lifetime, err = bashDuration("lifetime_seconds", a.LifetimeSeconds, bashDefaultLifetime, bashMaxLifetime, false)
			if err == nil {
				c.yield, err = bashDuration("yield_seconds", a.YieldSeconds, bashDefaultYield, bashMaxWait, true)
			}
		}
	case "poll", "cancel":
		if a.ProcessID == nil || *a.ProcessID == "" {
			return bashCall{}, fmt.Errorf("bash: process_id is required for %s", c.op)
		}
		c.id = *a.ProcessID
		if c.op == "poll" {
			c.wait, err = bashDuration("wait_seconds", a.WaitSeconds, 0, bashMaxWait, true)
		}
	}
	if err != nil {
		return bashCall{}, err
	}
	return c, nil
}

func bashDuration(name string, v *float64, def, max time.Duration, zeroOK bool) (time.Duration, error) {
	if v == nil {
		return def, nil
	}
	s := *v
	switch {
	case math.IsNaN(s) || s < 0 || (s == 0 && !zeroOK):
		return 0, fmt.Errorf("bash: %s must be a positive number of seconds", name)
	case s > max.Seconds():
		return 0, fmt.Errorf("bash: %s is at most %s", name, bashSeconds(max))
	}
	return time.Duration(s * float64(time.Second)), nil
}

// bashJSONError turns a decoding error into words for the model.
func bashJSONError(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return "expected a JSON object"
	case errors.As(err, &te):
		return fmt.Sprintf("%s must be a %s, not %s", te.Field, bashTypeName(te.Type.Kind().String()), te.Value)
	case errors.Is(err, io.EOF):
		return "expected a JSON object"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return strings.TrimPrefix(err.Error(), "json: ") + "; bash takes operation, command, timeout, lifetime_seconds, yield_seconds, process_id, wait_seconds"
	}
	return err.Error()
}

func bashTypeName(kind string) string {
	switch kind {
	case "float64":
		return "number"
	case "ptr":
		return "value"
	}
	return kind
}
