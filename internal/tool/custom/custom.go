// Package custom holds the user's own tools, declared in
// ~/.wisp/config.json under tools.custom: a shell command template with
// {placeholders} and the typed arguments that fill them
// (custom-tools.md). Parse checks every definition at load, so that a bad
// one makes the config malformed before a session starts; a Tool then
// substitutes a call's values in one pass and runs the line exactly as
// bash's run operation would.
//
// A placeholder is `{` + a snake_case name + `}` and nothing else: `{}`,
// `{ a; }`, `{a,b}` or `{Name}` are shell text, and so is `${x}`, a shell
// parameter expansion. Every placeholder must be a declared argument and
// every argument must appear. Since a string value is single-quoted, a
// placeholder is accepted only where a single-quoted word keeps the value
// one inert word: a whole word by itself, as a command argument or a
// redirection target, outside quotes, substitutions, arithmetic, [[ ]],
// assignments and here-documents, and never as the command name. Anything
// else is refused at load.
//
// Beyond custom-tools.md: an argument's description is optional (the
// model then has only its name and type, so write one); a relative
// workingDirectory is taken from where wisp runs; integers must be JSON
// integers (not "10", 1.0 or 1e3) within 64 bits; a number with an
// exponent is written out in plain decimals (1e3 becomes 1000); a null
// value counts as not given.
//
// What the package must never do: decide whether a line may run, build a
// process itself, or run anything when a value is wrong. The gate judges
// the substituted line (policy, classifier, approval) and supplies the
// sandboxed shell. A string value that begins with '-' is refused (the
// program would read it as an option: -rf, --exec=…) unless every
// placeholder of its argument follows a `--` argument in the template or
// is a redirection target, or the value is one of the argument's enum,
// which the user wrote. A value that the program reads as code (eval {x},
// sh -c {x}) is still one quoted word here, and guarding against that is
// the classifier's job, which sees the substituted line.
package custom

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/tool"
	"github.com/wisp-agent/wisp/internal/tool/builtin/bashtool"
)

// Limits of a definition (custom-tools.md).
const (
	MaxNameLen        = 40
	MaxDescriptionLen = 300
	// MaxArgumentNameLen keeps argument names within what model APIs
	// accept as JSON Schema property names.
	MaxArgumentNameLen = 64
	// MaxTimeoutSeconds matches commandTimeoutSeconds' upper bound.
	MaxTimeoutSeconds = 86400
)

// Argument types.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
)

// Options carry what Parse needs from the caller's environment.
type Options struct {
	// Home is the user's home folder, for workingDirectory's ~.
	Home string
}

// Tool is one custom tool, checked and ready to run. It is immutable and
// safe for concurrent use.
type Tool struct {
	name        string
	description string
	command     string
	args        []*Argument
	segments    []segment
	// dir is workingDirectory with ~ expanded; empty means where wisp
	// runs, a relative one is taken from there.
	dir     string
	timeout time.Duration
	schema  json.RawMessage
}

// Argument is one declared argument.
type Argument struct {
	Name        string
	Type        string // TypeString, TypeInteger, TypeNumber or TypeBoolean
	Description string // may be empty
	Enum        []string
	// Default is the default as compact JSON; nil when the argument is
	// required.
	Default json.RawMessage
	// defaultText is Default as substituted into the command.
	defaultText string
	// optionProof says every placeholder of the argument stands after a
	// `--` argument or as a redirection target, so that a value starting
	// with '-' cannot be taken for an option.
	optionProof bool
}

// Required tells whether a call must give the argument.
func (a *Argument) Required() bool { return a.Default == nil }

// Limits describe a tool for `wisp tools --markdown` and wisp://tools.md.
type Limits struct {
	// Timeout is the tool's own timeoutSeconds; 0 means the session's
	// commandTimeoutSeconds.
	Timeout time.Duration
	// WorkingDirectory is where it runs, ~ expanded; empty means where
	// wisp runs.
	WorkingDirectory string
	Arguments        []Argument
	// Command is the template as written.
	Command string
	// Example is a prompt that would make the model call the tool, such
	// as "Use issue with number=42".
	Example string
}

var (
	_ tool.Tool         = (*Tool)(nil)
	_ tool.CommandLiner = (*Tool)(nil)
	_ tool.Describer    = (*Tool)(nil)
)

// Names lists the tools' names in order.
func Names(tools []*Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.name
	}
	return out
}

// Name is what the model calls the tool.
func (t *Tool) Name() string { return t.name }

// Limits describes the tool's limits and arguments.
func (t *Tool) Limits() Limits {
	args := make([]Argument, len(t.args))
	for i, a := range t.args {
		args[i] = *a
		args[i].Enum = slices.Clone(a.Enum)
		args[i].Default = bytes.Clone(a.Default)
	}
	return Limits{Timeout: t.timeout, WorkingDirectory: t.dir, Arguments: args, Command: t.command, Example: t.example()}
}

// Describe states the tool's limits and an example prompt, for `wisp
// tools --markdown` and wisp://tools.md.
func (t *Tool) Describe() (limits []string, example string) {
	l := t.Limits()
	if l.Timeout > 0 {
		limits = append(limits, fmt.Sprintf("timeout %s", l.Timeout))
	} else {
		limits = append(limits, "timeout: commandTimeoutSeconds")
	}
	if l.WorkingDirectory != "" {
		limits = append(limits, "runs in "+l.WorkingDirectory)
	}
	limits = append(limits, "runs `"+l.Command+"` through the gate: policy, classifier, approval, sandbox, output bound")
	return limits, l.Example
}

// Spec describes the tool to the model, its description exactly as the
// user wrote it.
func (t *Tool) Spec() tool.Spec {
	return tool.Spec{Name: t.name, Description: t.description, Schema: t.schema, Class: tool.Command}
}

// CommandLine is the substituted line the gate judges.
func (t *Tool) CommandLine(args json.RawMessage) (string, error) { return t.Substitute(args) }

// Run substitutes the call's values and runs the line as bash's run
// operation does. A bad value comes back as an error result and nothing
// runs.
func (t *Tool) Run(ctx context.Context, env *tool.Env, args json.RawMessage) (tool.Result, error) {
	line, err := t.Substitute(args)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	if env == nil {
		env = &tool.Env{}
	}
	return bashtool.RunLine(ctx, env, line, t.workdir(env), t.timeout), nil
}

func (t *Tool) workdir(env *tool.Env) string {
	switch {
	case t.dir == "":
		return env.Workdir
	case filepath.IsAbs(t.dir):
		return t.dir
	default:
		return filepath.Join(env.Workdir, t.dir)
	}
}

// Substitute fills the template with a call's values in one pass, so a
// value is never searched for placeholders itself. Strings are
// single-quoted; integers, numbers and booleans are checked strictly and
// written as plain JSON literals, which hold no shell syntax.
func (t *Tool) Substitute(args json.RawMessage) (string, error) {
	values, err := t.values(args)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range t.segments {
		if s.arg < 0 {
			b.WriteString(s.text)
		} else {
			b.WriteString(values[s.arg])
		}
	}
	return b.String(), nil
}

// values renders each argument of a call, defaults applied.
func (t *Tool) values(raw json.RawMessage) ([]string, error) {
	given := map[string]json.RawMessage{}
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if s[0] != '{' {
			return nil, fmt.Errorf("%s: the arguments must be a JSON object", t.name)
		}
		if err := json.Unmarshal(raw, &given); err != nil {
			return nil, fmt.Errorf("%s: the arguments are not valid JSON: %v", t.name, err)
		}
	}
	for _, name := range sortedKeys(given) {
		if t.argument(name) == nil {
			if len(t.args) == 0 {
				return nil, fmt.Errorf("%s: unknown argument '%s'; %s takes no arguments", t.name, name, t.name)
			}
			return nil, fmt.Errorf("%s: unknown argument '%s'; %s takes %s", t.name, name, t.name, strings.Join(t.argNames(), ", "))
		}
	}
	out := make([]string, len(t.args))
	for i, a := range t.args {
		v, ok := given[a.Name]
		if !ok || isNull(v) {
			if a.Required() {
				what := typeWords(a.Type)
				if len(a.Enum) > 0 {
					what += ": one of " + enumList(a.Enum)
				}
				return nil, fmt.Errorf("%s: argument '%s' is required (%s)", t.name, a.Name, what)
			}
			out[i] = a.defaultText
			continue
		}
		text, err := a.render(v)
		if err != nil {
			return nil, fmt.Errorf("%s: argument '%s' %v", t.name, a.Name, err)
		}
		if err := a.checkOption(v); err != nil {
			return nil, err
		}
		out[i] = text
	}
	return out, nil
}

func (t *Tool) argument(name string) *Argument {
	for _, a := range t.args {
		if a.Name == name {
			return a
		}
	}
	return nil
}

func (t *Tool) argNames() []string {
	names := make([]string, len(t.args))
	for i, a := range t.args {
		names[i] = a.Name
	}
	return names
}

// example builds a prompt that names every argument with a plausible
// value: its default, else its first allowed value, else one of its type.
func (t *Tool) example() string {
	if len(t.args) == 0 {
		return "Use " + t.name
	}
	parts := make([]string, len(t.args))
	for i, a := range t.args {
		var v string
		switch {
		case a.Default != nil:
			v = string(a.Default)
		case len(a.Enum) > 0:
			v = jsonString(a.Enum[0])
		case a.Type == TypeInteger:
			v = "42"
		case a.Type == TypeNumber:
			v = "2.5"
		case a.Type == TypeBoolean:
			v = "true"
		default:
			v = `"example"`
		}
		parts[i] = a.Name + "=" + v
	}
	list := parts[0]
	if n := len(parts); n > 1 {
		list = strings.Join(parts[:n-1], ", ") + " and " + parts[n-1]
	}
	return "Use " + t.name + " with " + list
}

// DefinitionError is a bad definition in tools.custom. Its text names the
// tool (or its position when the name is missing) and why.
type DefinitionError struct {
	// Index is the definition's position, from 1.
	Index int
	// Name is the tool's name as written; empty when it has none.
	Name string
	Why  string
}

func (e *DefinitionError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("custom tool #%d: %s", e.Index, e.Why)
	}
	return fmt.Sprintf("custom tool '%s': %s", e.Name, e.Why)
}

// errNotList is the text for a tools.custom that is not an array.
var errNotList = errors.New("tools.custom must be a list of tool definitions")
