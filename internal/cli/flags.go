package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/wisp-agent/wisp/internal/host"
)

// Options is what the command line asked for: the session's options,
// and what only the command line has.
type Options struct {
	host.Options
	Print bool
	// Line keeps the interactive conversation in line mode rather than
	// on the full screen.
	Line bool
	Mode string // text | json | rpc
	// Chdir is -C DIR: run as if started in DIR.
	Chdir string
	// MaxInputBytes bounds piped stdin; 0 means defaultMaxInput.
	MaxInputBytes int64
	// All is `wisp sessions --all`: every folder's sessions.
	All bool
	// SkipPermissions says --dangerously-skip-permissions set Yes, so
	// the run warns what that spelling does not do.
	SkipPermissions bool
	Version         bool
	Help            bool
	Args            []string // the prompt words, or a subcommand and its words
}

// UsageError is a bad command line: exit code 2.
type UsageError = host.UsageError

func usagef(format string, a ...any) error { return host.Usagef(format, a...) }

type flagKind int

const (
	boolFlag flagKind = iota
	stringFlag
	intFlag
	listFlag
)

type flagDef struct {
	names []string
	kind  flagKind
	set   func(o *Options, v string) error
	help  string
	arg   string
}

// flagDefs is hand-rolled rather than the flag package's because wisp's
// flags may follow the prompt (`wisp -p "list files" --allow-read-tools`),
// take GNU-style --long forms, and must report unknown names as usage
// errors with exit code 2.
var flagDefs = []flagDef{
	{names: []string{"p", "print"}, kind: boolFlag, help: "print mode: answer one prompt non-interactively (prompt from the arguments, or stdin with - or when piped)",
		set: func(o *Options, _ string) error { o.Print = true; return nil }},
	{names: []string{"line"}, kind: boolFlag, help: "interactive: the line-mode conversation instead of the full screen (also when TERM=dumb or not on a terminal)",
		set: func(o *Options, _ string) error { o.Line = true; return nil }},
	{names: []string{"mode"}, kind: stringFlag, arg: "text|json|rpc", help: "print mode output: the final text, or every event as JSON Lines (docs/events.md); rpc: commands as JSON Lines on stdin (docs/rpc.md)",
		set: func(o *Options, v string) error {
			if v != "text" && v != "json" && v != "rpc" {
				return usagef("--mode must be text, json or rpc, not %q", v)
			}
			o.Mode = v
			return nil
		}},
	{names: []string{"output-format"}, kind: stringFlag, arg: "FORMAT", help: "text, json or stream-json: the same as --mode (json and stream-json both mean --mode json)",
		set: func(o *Options, v string) error {
			switch v {
			case "text":
				o.Mode = "text"
			case "json", "stream-json":
				o.Mode = "json"
			default:
				return usagef("--output-format must be text, json or stream-json, not %q", v)
			}
			return nil
		}},
	{names: []string{"provider"}, kind: stringFlag, arg: "NAME", help: "anthropic, openai, openai-compatible or fake (env WISP_PROVIDER)",
		set: func(o *Options, v string) error { o.Provider = v; return nil }},
	{names: []string{"model", "m"}, kind: stringFlag, arg: "NAME", help: "model name (env WISP_MODEL)",
		set: func(o *Options, v string) error { o.Model = v; return nil }},
	{names: []string{"base-url"}, kind: stringFlag, arg: "URL", help: "provider endpoint (env WISP_BASE_URL, ANTHROPIC_BASE_URL, OPENAI_BASE_URL)",
		set: func(o *Options, v string) error { o.BaseURL = v; return nil }},
	{names: []string{"allow-read-tools"}, kind: boolFlag, help: "print mode: expose the read tools (read, grep, find, ls, ...)",
		set: func(o *Options, _ string) error { o.AllowReadTools = true; return nil }},
	{names: []string{"allow-tool"}, kind: listFlag, arg: "NAME", help: "print mode: expose one tool (repeatable)",
		set: func(o *Options, v string) error { o.AllowTools = append(o.AllowTools, v); return nil }},
	{names: []string{"all-tools"}, kind: boolFlag, help: "print mode: expose every tool",
		set: func(o *Options, _ string) error { o.AllowAllTools = true; return nil }},
	{names: []string{"yes", "allow-unsafe-tool-execution"}, kind: boolFlag, help: "print mode: run mutating and command tools without asking",
		set: func(o *Options, _ string) error { o.Yes = true; return nil }},
	{names: []string{"dangerously-skip-permissions"}, kind: boolFlag, help: "the same as --yes; the policy's deny rules and the sandbox still apply",
		set: func(o *Options, _ string) error { o.Yes, o.SkipPermissions = true, true; return nil }},
	{names: []string{"max-input-bytes"}, kind: intFlag, arg: "N", help: "accept up to N bytes of piped stdin (default 1048576, 1 MiB)",
		set: func(o *Options, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 || n > maxInputCeiling {
				return usagef("--max-input-bytes takes a whole number from 1 to %d (32 MiB, about what a provider accepts in one request), not %q", maxInputCeiling, v)
			}
			o.MaxInputBytes = n
			return nil
		}},
	{names: []string{"max-tool-iterations"}, kind: intFlag, arg: "N", help: "stop after N rounds of tool calls (default: uncapped)",
		set: func(o *Options, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return usagef("--max-tool-iterations takes a whole number ≥ 0, not %q", v)
			}
			o.MaxToolIters = n
			return nil
		}},
	{names: []string{"continue", "c"}, kind: boolFlag, help: "continue the newest session of this folder",
		set: func(o *Options, _ string) error { o.Continue = true; return nil }},
	{names: []string{"resume", "r"}, kind: stringFlag, arg: "ID|PREFIX|PATH", help: "resume a given session",
		set: func(o *Options, v string) error { o.Resume = v; return nil }},
	{names: []string{"fork"}, kind: boolFlag, help: "with --continue or --resume: branch the session into a new one (also when another wisp has it open)",
		set: func(o *Options, _ string) error { o.Fork = true; return nil }},
	{names: []string{"keep-turns"}, kind: intFlag, arg: "N", help: "with --fork: the new session keeps only the last N turns (for a history that no longer fits the model)",
		set: func(o *Options, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return usagef("--keep-turns takes a whole number ≥ 1, not %q", v)
			}
			o.KeepTurns = n
			return nil
		}},
	{names: []string{"session-dir"}, kind: stringFlag, arg: "DIR", help: "where transcripts live (env WISP_SESSION_DIR; default ~/.wisp/sessions)",
		set: func(o *Options, v string) error { o.SessionDir = v; return nil }},
	{names: []string{"no-session"}, kind: boolFlag, help: "write no transcript",
		set: func(o *Options, _ string) error { o.NoSession = true; return nil }},
	{names: []string{"all"}, kind: boolFlag, help: "with wisp sessions: every folder's sessions, not only this folder's",
		set: func(o *Options, _ string) error { o.All = true; return nil }},
	{names: []string{"C"}, kind: stringFlag, arg: "DIR", help: "run as if wisp was started in DIR",
		set: func(o *Options, v string) error {
			if v == "" {
				return usagef("-C needs a folder, not an empty word")
			}
			// Each -C is relative to the one before, as git's and
			// make's are.
			if o.Chdir != "" && !filepath.IsAbs(v) {
				v = filepath.Join(o.Chdir, v)
			}
			o.Chdir = v
			return nil
		}},
	{names: []string{"version", "v"}, kind: boolFlag, help: "print the version",
		set: func(o *Options, _ string) error { o.Version = true; return nil }},
	{names: []string{"help", "h"}, kind: boolFlag, help: "show this help",
		set: func(o *Options, _ string) error { o.Help = true; return nil }},
}

func lookupFlag(name string) (flagDef, bool) {
	for _, d := range flagDefs {
		for _, n := range d.names {
			if n == name {
				return d, true
			}
		}
	}
	return flagDef{}, false
}

// parseFlags reads flags anywhere on the line; `--` ends them.
func parseFlags(args []string) (Options, error) {
	o := Options{Mode: "text", Options: host.Options{MaxToolIters: -1}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			o.Args = append(o.Args, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			o.Args = append(o.Args, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		d, ok := lookupFlag(name)
		if !ok && !o.Print && len(o.Args) > 0 && slices.Contains(commandNames(), o.Args[0]) {
			// A subcommand's words: not a prompt.
			return o, usagef("wisp %s: unknown flag %s (wisp %s --help lists its flags)", o.Args[0], strconv.Quote(clipRunes(a, 40)), o.Args[0])
		}
		if !ok {
			return o, unknownFlag(a)
		}
		if d.kind == boolFlag {
			if hasValue {
				return o, usagef("flag %s takes no value", a)
			}
			if err := d.set(&o, ""); err != nil {
				return o, err
			}
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return o, usagef("flag %s needs a value (%s)", a, d.arg)
			}
			i++
			value = args[i]
		}
		if err := d.set(&o, value); err != nil {
			return o, err
		}
	}
	return o, nil
}

// unknownFlag is the error for a word that looks like a flag but is none.
// Often it is a prompt that starts with "-", so the error says how to
// send one; it stays on one line whatever the word holds.
func unknownFlag(a string) error {
	shown, example := a, a+" ..."
	if strings.ContainsFunc(a, func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r == 0x7f || !unicode.IsPrint(r) }) {
		shown = strconv.Quote(clipRunes(a, 40))
	}
	if strings.ContainsAny(a, " \t") {
		example = a
	}
	example = strconv.Quote(clipRunes(example, 40))
	return usagef("unknown flag %s (to send a prompt that starts with \"-\", put it after --: wisp -p -- %s; flags: wisp --help)", shown, example)
}

// clipRunes cuts s to at most n runes, marking a cut with an ellipsis.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func flagHelp() string {
	var b strings.Builder
	for _, d := range flagDefs {
		var names []string
		for _, n := range d.names {
			if len(n) == 1 {
				names = append(names, "-"+n)
			} else {
				names = append(names, "--"+n)
			}
		}
		left := strings.Join(names, ", ")
		if d.arg != "" {
			left += " " + d.arg
		}
		fmt.Fprintf(&b, "  %-34s %s\n", left, d.help)
	}
	return b.String()
}
