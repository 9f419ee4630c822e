package audit

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/segmentio/encoding/json"
)

// The kinds of audit line. docs/audit.md documents each one's details.
const (
	KindSessionStart      = "session.start"
	KindSessionEnd        = "session.end"
	KindPrompt            = "prompt"
	KindResponse          = "response"
	KindToolCall          = "tool.call"
	KindToolResult        = "tool.result"
	KindPolicyDecision    = "policy.decision"
	KindClassifierVerdict = "classifier.verdict"
	KindApprovalRequested = "approval.requested"
	KindApprovalDecided   = "approval.decided"
	KindCommandOutcome    = "command.outcome"
	KindFileWrite         = "file.write"
	KindError             = "error"
	KindConfigChange      = "config.change"
)

// Limits on what one line carries. Free text is cut at a character
// boundary; where the size matters a bytes field keeps the full size.
const (
	// TextLimit bounds every text of a line (prompts, tool arguments,
	// command lines, subjects, reasons, messages, config values), in
	// bytes.
	TextLimit = 4096
	// PreviewLimit bounds a tool result's preview, in characters.
	PreviewLimit = 200
	// RecordLimit bounds a whole line, newline included. A line that
	// would be longer is written again with shorter texts and lists
	// (see cutter) until it fits.
	RecordLimit = 64 << 10
)

// Details is what one kind of line says. Only this package's types
// implement it, so every kind is typed and documented in docs/audit.md.
type Details interface {
	// Kind is the line's kind, e.g. "command.outcome".
	Kind() string
	// bounded returns a copy with every text cut to c's limits and nil
	// lists made empty, so every line of a kind has the same shape; c
	// records whether anything was cut.
	bounded(c *cutter) Details
	// summary is the compact text FormatText shows after the kind.
	summary() string
}

// registry lists a zero value of every kind, in the order the doc
// documents them. A function, not a variable, so nothing can change it.
func registry() []Details {
	return []Details{
		SessionStart{}, SessionEnd{}, Prompt{}, Response{},
		ToolCall{}, ToolResult{}, PolicyDecision{}, ClassifierVerdict{},
		ApprovalRequested{}, ApprovalDecided{}, CommandOutcome{},
		FileWrite{}, ErrorReport{}, ConfigChange{}, MCPRequest{}, MCPResult{},
	}
}

// Kinds lists every kind this wisp writes, in the order docs/audit.md
// documents them.
func Kinds() []string {
	r := registry()
	out := make([]string, len(r))
	for i, d := range r {
		out[i] = d.Kind()
	}
	return out
}

// Zero returns the zero details of kind (the struct type that kind's
// details decode into); ok is false for a kind this wisp does not know.
func Zero(kind string) (d Details, ok bool) {
	for _, d := range registry() {
		if d.Kind() == kind {
			return d, true
		}
	}
	return nil, false
}

// Usage is a token count, as in session.end.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
}

// SessionStart opens a session.
type SessionStart struct {
	Cwd      string `json:"cwd"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Mode     string `json:"mode"`
	// Sandbox is "landlock abi N", "unavailable" or "disabled".
	Sandbox string `json:"sandbox"`
	Trusted bool   `json:"trusted"`
}

// SessionEnd closes a session.
type SessionEnd struct {
	Reason string `json:"reason"`
	Usage  Usage  `json:"usage"`
}

// Prompt is what the user asked. Bytes is the prompt's full size; zero
// means "the size of Text before it was cut".
type Prompt struct {
	Text  string `json:"text"`
	Bytes int    `json:"bytes"`
}

// Response is one provider answer.
type Response struct {
	Model            string `json:"model"`
	StopReason       string `json:"stop_reason"`
	InputTokens      int64  `json:"input_tokens"`
	OutputTokens     int64  `json:"output_tokens"`
	CacheReadTokens  int64  `json:"cache_read_tokens"`
	CacheWriteTokens int64  `json:"cache_write_tokens"`
	ToolCalls        int    `json:"tool_calls"`
}

// ToolCall is a tool call the model asked for. Args is the arguments'
// JSON text (compacted, then cut); Bytes their full compact size, filled
// in when zero. Origin names who made a call no model asked for (mcp for
// a client of wisp mcp serve); empty for the model's calls.
type ToolCall struct {
	Tool   string `json:"tool"`
	Class  string `json:"class"`
	Args   string `json:"args"`
	Bytes  int    `json:"bytes"`
	Origin string `json:"origin"`
}

// ToolResult is what a call returned to the model. Preview may be the
// whole content: it is cut to PreviewLimit characters, and Bytes, when
// zero, becomes the content's full size.
type ToolResult struct {
	Tool       string `json:"tool"`
	IsError    bool   `json:"is_error"`
	Bytes      int    `json:"bytes"`
	DurationMS int64  `json:"duration_ms"`
	Preview    string `json:"preview"`
}

// PolicyDecision is the command policy's answer for a shell line.
type PolicyDecision struct {
	Line    string `json:"line"`
	Allowed bool   `json:"allowed"`
	// Rule is the pattern that denied the line, empty when allowed.
	Rule string `json:"rule"`
	// Command is the simple command the rule matched, empty for the
	// whole line.
	Command string `json:"command"`
}

// VerdictPart is one simple command of a classified line.
type VerdictPart struct {
	Command string   `json:"command"`
	Program string   `json:"program"`
	Level   string   `json:"level"`
	Reasons []string `json:"reasons"`
}

// ClassifierVerdict is the risk classifier's judgement of a shell line.
type ClassifierVerdict struct {
	Line    string        `json:"line"`
	Level   string        `json:"level"`
	Parts   []VerdictPart `json:"parts"`
	Reasons []string      `json:"reasons"`
	Cached  bool          `json:"cached"`
}

// ApprovalRequested is a question put to the approver.
type ApprovalRequested struct {
	Tool    string `json:"tool"`
	Subject string `json:"subject"`
	// Level is the classifier's level for a command, else empty.
	Level string `json:"level"`
	// Pattern is what an "always" or "session" answer would remember.
	Pattern string `json:"pattern"`
}

// ApprovalDecided is the answer to an approval request.
type ApprovalDecided struct {
	Tool     string `json:"tool"`
	Subject  string `json:"subject"`
	Approved bool   `json:"approved"`
	// Scope is once, session, project or always.
	Scope string `json:"scope"`
	// By is user, flag, remembered, timeout or policy.
	By         string `json:"by"`
	Reason     string `json:"reason"`
	Persisted  bool   `json:"persisted"`
	Downgraded bool   `json:"downgraded"`
}

// CommandOutcome is how a shell command ended. ExitCode is -1 when the
// command was killed by a signal or never ran.
type CommandOutcome struct {
	Line           string `json:"line"`
	ExitCode       int    `json:"exit_code"`
	Signal         string `json:"signal"`
	TimedOut       bool   `json:"timed_out"`
	Truncated      bool   `json:"truncated"`
	DurationMS     int64  `json:"duration_ms"`
	Sandboxed      bool   `json:"sandboxed"`
	SandboxRefusal string `json:"sandbox_refusal"`
	// Profile is the sandbox profile the command ran under: ProfileAutoRun,
	// ProfileApproved or ProfileUnsandboxed.
	Profile string `json:"profile"`
	// Containment says what ends everything the command started when its
	// call ends, as the sandbox reports it ("cgroup", "pid-namespace" or
	// "process-group"); empty when unsandboxed.
	Containment string `json:"containment"`
}

// The sandbox profiles a command can run under (CommandOutcome.Profile).
const (
	// ProfileAutoRun: nobody was asked; no network, no secret reads.
	ProfileAutoRun = "auto-run"
	// ProfileApproved: a person approved it (asked, remembered or --yes);
	// the network as sandbox.allowNetwork says.
	ProfileApproved = "approved"
	// ProfileUnsandboxed: the sandbox was off or missing.
	ProfileUnsandboxed = "unsandboxed"
)

// FileWrite is a file a tool wrote.
type FileWrite struct {
	Tool    string `json:"tool"`
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	Created bool   `json:"created"`
}

// ErrorReport is a failure worth keeping: a provider error after retries,
// a harness failure, an audit of something that went wrong.
type ErrorReport struct {
	Message string `json:"message"`
	Where   string `json:"where"`
}

// ConfigChange is a setting wisp changed on the user's behalf. Old and
// New are the values as JSON text, empty when unset.
type ConfigChange struct {
	File string `json:"file"`
	Key  string `json:"key"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

func (SessionStart) Kind() string      { return KindSessionStart }
func (SessionEnd) Kind() string        { return KindSessionEnd }
func (Prompt) Kind() string            { return KindPrompt }
func (Response) Kind() string          { return KindResponse }
func (ToolCall) Kind() string          { return KindToolCall }
func (ToolResult) Kind() string        { return KindToolResult }
func (PolicyDecision) Kind() string    { return KindPolicyDecision }
func (ClassifierVerdict) Kind() string { return KindClassifierVerdict }
func (ApprovalRequested) Kind() string { return KindApprovalRequested }
func (ApprovalDecided) Kind() string   { return KindApprovalDecided }
func (CommandOutcome) Kind() string    { return KindCommandOutcome }
func (FileWrite) Kind() string         { return KindFileWrite }
func (ErrorReport) Kind() string       { return KindError }
func (ConfigChange) Kind() string      { return KindConfigChange }

func (d SessionStart) bounded(c *cutter) Details {
	d.Cwd, d.Provider, d.Model = c.str(d.Cwd), c.str(d.Provider), c.str(d.Model)
	d.Mode, d.Sandbox = c.str(d.Mode), c.str(d.Sandbox)
	return d
}

func (d SessionEnd) bounded(c *cutter) Details {
	d.Reason = c.str(d.Reason)
	return d
}

func (d Prompt) bounded(c *cutter) Details {
	if d.Bytes == 0 {
		d.Bytes = len(d.Text)
	}
	d.Text = c.str(d.Text)
	return d
}

func (d Response) bounded(c *cutter) Details {
	d.Model, d.StopReason = c.str(d.Model), c.str(d.StopReason)
	return d
}

func (d ToolCall) bounded(c *cutter) Details {
	var b bytes.Buffer
	if json.Compact(&b, []byte(d.Args)) == nil {
		d.Args = b.String()
	}
	if d.Bytes == 0 {
		d.Bytes = len(d.Args)
	}
	d.Tool, d.Class, d.Args, d.Origin = c.str(d.Tool), c.str(d.Class), c.str(d.Args), c.str(d.Origin)
	return d
}

// bounded cuts the preview to its documented length without marking the
// line truncated: a preview is the start of the result by definition,
// and Bytes keeps the full size.
func (d ToolResult) bounded(c *cutter) Details {
	if d.Bytes == 0 {
		d.Bytes = len(d.Preview)
	}
	d.Tool = c.str(d.Tool)
	d.Preview = cutRunes(d.Preview, min(PreviewLimit, c.text))
	return d
}

func (d PolicyDecision) bounded(c *cutter) Details {
	d.Line, d.Rule, d.Command = c.str(d.Line), c.str(d.Rule), c.str(d.Command)
	return d
}

func (d ClassifierVerdict) bounded(c *cutter) Details {
	d.Line, d.Level = c.str(d.Line), c.str(d.Level)
	d.Reasons = c.strs(d.Reasons)
	n := c.count(len(d.Parts))
	parts := make([]VerdictPart, n)
	for i, p := range d.Parts[:n] {
		p.Command, p.Program, p.Level = c.str(p.Command), c.str(p.Program), c.str(p.Level)
		p.Reasons = c.strs(p.Reasons)
		parts[i] = p
	}
	d.Parts = parts
	return d
}

func (d ApprovalRequested) bounded(c *cutter) Details {
	d.Tool, d.Subject, d.Level, d.Pattern = c.str(d.Tool), c.str(d.Subject), c.str(d.Level), c.str(d.Pattern)
	return d
}

func (d ApprovalDecided) bounded(c *cutter) Details {
	d.Tool, d.Subject, d.Scope = c.str(d.Tool), c.str(d.Subject), c.str(d.Scope)
	d.By, d.Reason = c.str(d.By), c.str(d.Reason)
	return d
}

func (d CommandOutcome) bounded(c *cutter) Details {
	d.Line, d.Signal, d.SandboxRefusal = c.str(d.Line), c.str(d.Signal), c.str(d.SandboxRefusal)
	d.Profile, d.Containment = c.str(d.Profile), c.str(d.Containment)
	return d
}

func (d FileWrite) bounded(c *cutter) Details {
	d.Tool, d.Path = c.str(d.Tool), c.str(d.Path)
	return d
}

func (d ErrorReport) bounded(c *cutter) Details {
	d.Message, d.Where = c.str(d.Message), c.str(d.Where)
	return d
}

func (d ConfigChange) bounded(c *cutter) Details {
	d.File, d.Key, d.Old, d.New = c.str(d.File), c.str(d.Key), c.str(d.Old), c.str(d.New)
	return d
}

func (d SessionStart) summary() string {
	s := fmt.Sprintf("%s/%s mode=%s sandbox=%q", d.Provider, d.Model, d.Mode, d.Sandbox)
	if d.Trusted {
		s += " trusted"
	}
	return s + " cwd=" + d.Cwd
}

func (d SessionEnd) summary() string {
	return fmt.Sprintf("%s in=%d out=%d", d.Reason, d.Usage.InputTokens, d.Usage.OutputTokens)
}

func (d Prompt) summary() string {
	return fmt.Sprintf("%s %s", size(int64(d.Bytes)), quote(d.Text))
}

func (d Response) summary() string {
	s := fmt.Sprintf("%s stop=%s in=%d out=%d", d.Model, d.StopReason, d.InputTokens, d.OutputTokens)
	if d.CacheReadTokens > 0 || d.CacheWriteTokens > 0 {
		s += fmt.Sprintf(" cache=%d/%d", d.CacheReadTokens, d.CacheWriteTokens)
	}
	if d.ToolCalls > 0 {
		s += fmt.Sprintf(" tools=%d", d.ToolCalls)
	}
	return s
}

func (d ToolCall) summary() string {
	return fmt.Sprintf("%s %s %s", d.Tool, d.Class, shorten(d.Args))
}

func (d ToolResult) summary() string {
	status := "ok"
	if d.IsError {
		status = "error"
	}
	return fmt.Sprintf("%s %s %s %s %s", d.Tool, status, size(int64(d.Bytes)), duration(d.DurationMS), quote(d.Preview))
}

func (d PolicyDecision) summary() string {
	if d.Allowed {
		return "allowed " + quote(d.Line)
	}
	return fmt.Sprintf("denied by %s %s", quote(d.Rule), quote(d.Line))
}

func (d ClassifierVerdict) summary() string {
	s := d.Level
	if d.Cached {
		s += " cached"
	}
	s += " " + quote(d.Line)
	if len(d.Reasons) > 0 {
		s += " (" + shorten(strings.Join(d.Reasons, "; ")) + ")"
	}
	return s
}

func (d ApprovalRequested) summary() string {
	s := d.Tool
	if d.Level != "" {
		s += " " + d.Level
	}
	return s + " " + quote(d.Subject)
}

func (d ApprovalDecided) summary() string {
	verb := "denied"
	if d.Approved {
		verb = "approved"
	}
	s := fmt.Sprintf("%s %s by %s", verb, d.Scope, d.By)
	if d.Persisted {
		s += " persisted"
	}
	if d.Downgraded {
		s += " downgraded"
	}
	s += " " + d.Tool + " " + quote(d.Subject)
	if d.Reason != "" {
		s += " (" + shorten(d.Reason) + ")"
	}
	return s
}

func (d CommandOutcome) summary() string {
	s := fmt.Sprintf("exit=%d", d.ExitCode)
	if d.Signal != "" {
		s += " signal=" + d.Signal
	}
	s += " " + duration(d.DurationMS)
	if d.TimedOut {
		s += " timed-out"
	}
	if d.Truncated {
		s += " truncated"
	}
	switch {
	case d.Profile != "" && d.Profile != ProfileUnsandboxed:
		s += " sandboxed=" + d.Profile
	case d.Sandboxed:
		s += " sandboxed"
	default:
		s += " unsandboxed"
	}
	if d.SandboxRefusal != "" {
		s += " refused=" + quote(d.SandboxRefusal)
	}
	return s + " " + quote(d.Line)
}

func (d FileWrite) summary() string {
	verb := "changed"
	if d.Created {
		verb = "created"
	}
	return fmt.Sprintf("%s %s %s %s", d.Tool, verb, size(d.Bytes), quote(d.Path))
}

func (d ErrorReport) summary() string {
	if d.Where == "" {
		return quote(d.Message)
	}
	return d.Where + ": " + quote(d.Message)
}

func (d ConfigChange) summary() string {
	return fmt.Sprintf("%s %s: %s -> %s", d.File, d.Key, shorten(d.Old), shorten(d.New))
}

// cutter applies the limits of one line and remembers whether it cut
// anything. Every text is cut to text bytes and every list to items
// entries; a line still over RecordLimit is cut again with tighter
// limits (tighten).
type cutter struct {
	text, items int
	cut         bool
}

// noItemLimit keeps every entry of a list while the line fits.
const noItemLimit = 1 << 30

func newCutter() *cutter { return &cutter{text: TextLimit, items: noItemLimit} }

// tighten lowers the limits for another try at a line that was too long,
// and reports false once they cannot go lower. At the floor (64 bytes of
// text, 8 entries per list) every kind fits RecordLimit many times over.
func (c *cutter) tighten() bool {
	if c.text <= 64 && c.items <= 8 {
		return false
	}
	c.text = max(64, c.text/4)
	c.items = max(8, min(c.items, 256)/2)
	c.cut = false
	return true
}

func (c *cutter) str(s string) string {
	if len(s) <= c.text {
		return s
	}
	c.cut = true
	return cut(s, c.text)
}

// count returns how many of n list entries are kept.
func (c *cutter) count(n int) int {
	if n > c.items {
		c.cut = true
		return c.items
	}
	return n
}

func (c *cutter) strs(ss []string) []string {
	n := c.count(len(ss))
	out := make([]string, n)
	for i, s := range ss[:n] {
		out[i] = c.str(s)
	}
	return out
}

// cut returns s cut to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// cutRunes returns the first n characters of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// summaryWidth is how many characters of free text a summary shows.
const summaryWidth = 80

func shorten(s string) string {
	if t := cutRunes(s, summaryWidth); len(t) < len(s) {
		return t + "…"
	}
	return s
}

func quote(s string) string {
	if t := cutRunes(s, summaryWidth); len(t) < len(s) {
		return fmt.Sprintf("%q…", t)
	}
	return fmt.Sprintf("%q", s)
}

func size(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1<<20))
	}
}

func duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}
