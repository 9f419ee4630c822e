// Package tool defines what a tool is: a spec the model sees, a class the
// gate judges it by, and a Run method. Approval, sandboxing, limits and
// audit are the gate's job and never happen inside a tool.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"time"
)

// Class is the approval class of a tool, as in tools-and-safety.md.
type Class string

const (
	Read     Class = "read"     // runs directly
	Mutating Class = "mutating" // changes files: approval required
	Command  Class = "command"  // runs a process: approval required
)

// Spec describes a tool to the model and to the gate.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
	Class       Class           `json:"class"`
}

// Result is what a tool call returns to the model.
type Result struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
	// Command describes the process a command tool ran, for the gate's
	// audit and sandbox report; nil for other tools.
	Command *CommandOutcome `json:"-"`
	// Refusal is set when the gate refused the call, so that nothing ran:
	// a short reason for the person watching ("policy rule
	// privilege-escalation", "not approved: …").
	Refusal string `json:"-"`
	// Failed marks a call the audit records as failed although the model
	// reads its content as an ordinary result (spawn_wisps with failed
	// wisps: an error result would make the model re-run the ones that
	// worked).
	Failed bool `json:"-"`
}

// CommandOutcome is how a command ended.
type CommandOutcome struct {
	ExitCode int
	Signal   string
	TimedOut bool
	// Canceled says the run was stopped (Ctrl-C, a signal to wisp, a
	// cancel): Signal is then the one wisp sent, not the reason.
	Canceled  bool
	Truncated bool
	Duration  time.Duration
	// StderrTail is the end of stderr, where a sandbox refusal shows.
	StderrTail string
}

// Errorf builds an error result for the model.
func Errorf(format string, args ...any) Result {
	return Result{Content: "error: " + fmt.Sprintf(format, args...), IsError: true}
}

// Env is what the harness hands every tool call.
type Env struct {
	// Workdir is the workspace root; file tools stay inside it.
	Workdir string
	// TempDir is where tools may spill large output.
	TempDir string
	// Shell builds the process for a shell line. The gate always supplies
	// it so that the sandbox wraps every command; tools never build one
	// themselves, and a command tool handed none runs nothing (there is
	// no unsandboxed fallback). The caller owns starting, killing and
	// waiting.
	Shell func(line, dir string) *exec.Cmd
	// Protected tells whether an absolute path is a protected secret that
	// no file tool may read or write (nil: none).
	Protected func(abs string) bool
	// CommandTimeout is a command's default timeout (0: 60 s).
	CommandTimeout time.Duration
	// OutputBytes and OutputLines bound each stream of a command's output;
	// the tail is kept (0: 50 KB and 2,000 lines).
	OutputBytes, OutputLines int
	// Interactive is true when a person watches the terminal (notify).
	Interactive bool
}

// Tool is one callable tool.
type Tool interface {
	Spec() Spec
	// Run executes the call. A returned error is a harness failure; a
	// problem the model should see is a Result with IsError set.
	Run(ctx context.Context, env *Env, args json.RawMessage) (Result, error)
}

// CommandLiner is implemented by command-class tools so the gate can judge
// the exact shell line a call will run before it runs.
type CommandLiner interface {
	CommandLine(args json.RawMessage) (line string, err error)
}

// Registry holds the tools of a session by name.
type Registry struct {
	tools    map[string]Tool
	order    []string
	guidance map[string]string
}

// NewRegistry builds a registry of the given tools; later names replace earlier.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range tools {
		r.Add(t)
	}
	return r
}

// Add registers a tool.
func (r *Registry) Add(t Tool) {
	name := t.Spec().Name
	if _, ok := r.tools[name]; !ok {
		r.order = append(r.order, name)
	}
	r.tools[name] = t
}

// Get finds a tool by name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the registered tools in registration order.
func (r *Registry) Names() []string { return append([]string(nil), r.order...) }

// Specs lists the tools' specs in registration order.
func (r *Registry) Specs() []Spec {
	out := make([]Spec, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.tools[n].Spec())
	}
	return out
}

// Subset returns a registry holding only the named tools that exist.
func (r *Registry) Subset(names []string) *Registry {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	s := NewRegistry()
	for _, n := range r.order {
		if keep[n] {
			s.Add(r.tools[n])
			if g, ok := r.guidance[n]; ok {
				if s.guidance == nil {
					s.guidance = map[string]string{}
				}
				s.guidance[n] = g
			}
		}
	}
	return s
}

// Remove drops a tool.
func (r *Registry) Remove(name string) {
	if _, ok := r.tools[name]; !ok {
		return
	}
	delete(r.tools, name)
	delete(r.guidance, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
}

// SortedNames lists the names alphabetically.
func (r *Registry) SortedNames() []string {
	n := r.Names()
	sort.Strings(n)
	return n
}
