package custom

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/tool"
)

func mustParse(t testing.TB, config string, opts Options) []*Tool {
	t.Helper()
	tools, err := Parse(json.RawMessage(config), builtinNames, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// substTool covers every type, an enum, defaults, and a default that
// looks like a placeholder.
const substTool = `[{"name":"t","description":"d","arguments":{
	"s":{"type":"string"},
	"n":{"type":"integer","default":5},
	"f":{"type":"number","default":1.5},
	"b":{"type":"boolean","default":false},
	"e":{"type":"string","enum":["open","closed"],"default":"open"},
	"o":{"type":"string","default":"{s}"}},
	"command":"run -- {s} {n} {f} {b} {e} {o}"}]`

func TestSubstitute(t *testing.T) {
	tl := mustParse(t, substTool, Options{})[0]
	const rest = " 5 1.5 false 'open' '{s}'"
	tests := []struct {
		name, args string
		want       string // the whole line
		err        string // the whole error
	}{
		{name: "plain", args: `{"s":"hello"}`, want: "run -- 'hello'" + rest},
		{name: "quote", args: `{"s":"it's"}`, want: `run -- 'it'\''s'` + rest},
		{name: "only quotes", args: `{"s":"''"}`, want: `run -- ''\'''\'''` + rest},
		{name: "command substitution", args: `{"s":"$(rm -rf ~)"}`, want: "run -- '$(rm -rf ~)'" + rest},
		{name: "backticks", args: "{\"s\":\"`id`\"}", want: "run -- '`id`'" + rest},
		{name: "semicolon", args: `{"s":"x; touch pwned"}`, want: "run -- 'x; touch pwned'" + rest},
		{name: "newline", args: `{"s":"a\nrm -rf ~"}`, want: "run -- 'a\nrm -rf ~'" + rest},
		{name: "another placeholder stays text", args: `{"s":"{n} {e}"}`, want: "run -- '{n} {e}'" + rest},
		{name: "a value naming itself", args: `{"s":"{s}","o":"{o}"}`, want: "run -- '{s}' 5 1.5 false 'open' '{o}'"},
		{name: "option-looking values are quoted, not refused", args: `{"s":"-rf","o":"--help"}`, want: "run -- '-rf' 5 1.5 false 'open' '--help'"},
		{name: "unicode", args: `{"s":"héllo 世界 🎉"}`, want: "run -- 'héllo 世界 🎉'" + rest},
		{name: "empty string", args: `{"s":""}`, want: "run -- ''" + rest},
		{name: "backslashes and dollars", args: `{"s":"a\\b $HOME ${x} *"}`, want: `run -- 'a\b $HOME ${x} *'` + rest},
		{name: "NUL", args: `{"s":"a\u0000b"}`, err: "t: argument 's' holds a NUL byte, which a command line cannot carry"},
		{name: "enum value", args: `{"s":"a","e":"closed"}`, want: "run -- 'a' 5 1.5 false 'closed' '{s}'"},
		{name: "enum mismatch", args: `{"s":"a","e":"merged"}`, err: `t: argument 'e' must be one of "open", "closed", not "merged"`},
		{name: "enum is case-sensitive", args: `{"s":"a","e":"Open"}`, err: `t: argument 'e' must be one of "open", "closed", not "Open"`},
		{name: "string given a number", args: `{"s":5}`, err: "t: argument 's' must be a string, not 5"},
		{name: "integer", args: `{"s":"a","n":10}`, want: "run -- 'a' 10 1.5 false 'open' '{s}'"},
		{name: "negative integer", args: `{"s":"a","n":-3}`, want: "run -- 'a' -3 1.5 false 'open' '{s}'"},
		{name: "zero", args: `{"s":"a","n":0}`, want: "run -- 'a' 0 1.5 false 'open' '{s}'"},
		{name: "integer as a string", args: `{"s":"a","n":"10"}`, err: `t: argument 'n' must be an integer, not "10"`},
		{name: "integer smuggling a command", args: `{"s":"a","n":"10; rm -rf ~"}`, err: `t: argument 'n' must be an integer, not "10; rm -rf ~"`},
		{name: "integer with a fraction", args: `{"s":"a","n":10.5}`, err: "t: argument 'n' must be an integer, not 10.5"},
		{name: "integer written as a float", args: `{"s":"a","n":1.0}`, err: "t: argument 'n' must be an integer, not 1.0"},
		{name: "integer with an exponent", args: `{"s":"a","n":1e3}`, err: "t: argument 'n' must be an integer, not 1e3"},
		{name: "integer too big", args: `{"s":"a","n":99999999999999999999}`, err: "t: argument 'n' must be an integer that fits in 64 bits, not 99999999999999999999"},
		{name: "integer as a boolean", args: `{"s":"a","n":true}`, err: "t: argument 'n' must be an integer, not true"},
		{name: "number", args: `{"s":"a","f":2.25}`, want: "run -- 'a' 5 2.25 false 'open' '{s}'"},
		{name: "number as written", args: `{"s":"a","f":-0.50}`, want: "run -- 'a' 5 -0.50 false 'open' '{s}'"},
		{name: "whole number", args: `{"s":"a","f":10}`, want: "run -- 'a' 5 10 false 'open' '{s}'"},
		{name: "number with an exponent", args: `{"s":"a","f":1e3}`, want: "run -- 'a' 5 1000 false 'open' '{s}'"},
		{name: "number with a negative exponent", args: `{"s":"a","f":1.5E-3}`, want: "run -- 'a' 5 0.0015 false 'open' '{s}'"},
		{name: "number out of range", args: `{"s":"a","f":1e999}`, err: "t: argument 'f' must be a number within the range of a 64-bit float, not 1e999"},
		{name: "number as a string", args: `{"s":"a","f":"1.5"}`, err: `t: argument 'f' must be a number, not "1.5"`},
		{name: "true", args: `{"s":"a","b":true}`, want: "run -- 'a' 5 1.5 true 'open' '{s}'"},
		{name: "boolean as a string", args: `{"s":"a","b":"true"}`, err: `t: argument 'b' must be true or false, not "true"`},
		{name: "boolean as a number", args: `{"s":"a","b":1}`, err: "t: argument 'b' must be true or false, not 1"},
		{name: "missing required", args: `{}`, err: "t: argument 's' is required (a string)"},
		{name: "null is missing", args: `{"s":null}`, err: "t: argument 's' is required (a string)"},
		{name: "null takes the default", args: `{"s":"a","n":null}`, want: "run -- 'a'" + rest},
		{name: "no arguments at all", args: ``, err: "t: argument 's' is required (a string)"},
		{name: "unknown argument", args: `{"s":"a","zz":1}`, err: "t: unknown argument 'zz'; t takes s, n, f, b, e, o"},
		{name: "not an object", args: `["a"]`, err: "t: the arguments must be a JSON object"},
		{name: "a string", args: `"a"`, err: "t: the arguments must be a JSON object"},
		{name: "long bad value is clipped", args: `{"s":"a","n":"` + strings.Repeat("9", 60) + `"}`, err: `t: argument 'n' must be an integer, not "` + strings.Repeat("9", 39) + "…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line, err := tl.Substitute(json.RawMessage(tc.args))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error\n got: %v\nwant: %s\n(line %q)", err, tc.err, line)
				}
				if line != "" {
					t.Errorf("a line %q alongside an error", line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if line != tc.want {
				t.Fatalf("line\n got: %s\nwant: %s", line, tc.want)
			}
			if cl, err := tl.CommandLine(json.RawMessage(tc.args)); err != nil || cl != line {
				t.Errorf("CommandLine = %q, %v; want the substituted line", cl, err)
			}
		})
	}
}

func TestSubstituteRequiredEnum(t *testing.T) {
	tl := mustParse(t, def(`{"state":{"type":"string","enum":["open","closed"]}}`, "gh issue list --state {state}"), Options{})[0]
	_, err := tl.Substitute(json.RawMessage(`{}`))
	if want := `t: argument 'state' is required (a string: one of "open", "closed")`; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
	tl = mustParse(t, def(`{}`, "date"), Options{})[0]
	_, err = tl.Substitute(json.RawMessage(`{"x":1}`))
	if want := "t: unknown argument 'x'; t takes no arguments"; err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// TestSubstituteRuns runs substituted lines in a real shell: what the
// program receives is the value, byte for byte, as one argument.
func TestSubstituteRuns(t *testing.T) {
	dir := t.TempDir()
	tl := mustParse(t, withX(`printf '[%s]' {x}`), Options{})[0]
	for _, v := range []string{"it's", "$(touch pwned)", "`touch pwned`", "a\nb; touch pwned", "{x}", "", " spaced  out ", "*", "~", "'\\''", "é🎉", "a\r\nb", "\t\x01\x7f"} {
		args, _ := json.Marshal(map[string]string{"x": v})
		line, err := tl.Substitute(args)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("/bin/sh", "-c", "cd "+singleQuote(dir)+" && "+line).Output()
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := string(out); got != "["+v+"]" {
			t.Errorf("value %q came out as %q (line %q)", v, got, line)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("a value ran a command")
	}
}

func TestRun(t *testing.T) {
	home := t.TempDir()
	work := t.TempDir()
	for _, d := range []string{filepath.Join(home, "proj"), filepath.Join(work, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, config, args string
		want               []string
		dir                string // where env.Shell is asked to run it
		isError            bool
		noCommand          bool
	}{
		{name: "runs in the workspace", config: withX("echo {x}"), args: `{"x":"a b"}`, want: []string{"exit_code: 0\n", "stdout:\na b\n"}, dir: work},
		{name: "working directory under home", config: `[{"name":"t","description":"d","command":"pwd","workingDirectory":"~/proj"}]`, args: `{}`, want: []string{filepath.Join(home, "proj")}, dir: filepath.Join(home, "proj")},
		{name: "relative working directory", config: `[{"name":"t","description":"d","command":"pwd","workingDirectory":"sub"}]`, args: `{}`, want: []string{filepath.Join(work, "sub")}, dir: filepath.Join(work, "sub")},
		{name: "exit status", config: def(`{"n":{"type":"integer"}}`, "exit {n}"), args: `{"n":3}`, want: []string{"exit_code: 3\n"}, dir: work},
		{name: "own timeout", config: `[{"name":"t","description":"d","command":"sleep 5","timeoutSeconds":1}]`, args: `{}`, want: []string{"timed_out: after 1s"}, dir: work, isError: true},
		{name: "bad value runs nothing", config: def(`{"n":{"type":"integer"}}`, "touch ran; echo {n}"), args: `{"n":"1; touch ran"}`, want: []string{`error: t: argument 'n' must be an integer, not "1; touch ran"`}, isError: true, noCommand: true},
		{name: "missing value runs nothing", config: def(`{"n":{"type":"integer"}}`, "touch ran; echo {n}"), args: `{}`, want: []string{"error: t: argument 'n' is required (an integer)"}, isError: true, noCommand: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := mustParse(t, tc.config, Options{Home: home})[0]
			var shellDir string
			env := &tool.Env{Workdir: work, TempDir: t.TempDir(), Shell: func(line, dir string) *exec.Cmd {
				shellDir = dir
				return sandbox.Command(sandbox.Config{}, "", line, dir)
			}}
			res, err := tl.Run(context.Background(), env, json.RawMessage(tc.args))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Content)
				}
			}
			if res.IsError != tc.isError {
				t.Errorf("IsError = %v:\n%s", res.IsError, res.Content)
			}
			if tc.noCommand {
				if res.Command != nil || shellDir != "" {
					t.Error("a command was built for a bad call")
				}
				if _, err := os.Stat(filepath.Join(work, "ran")); err == nil {
					t.Error("a bad call ran the command")
				}
				return
			}
			if res.Command == nil {
				t.Error("no command outcome for the gate")
			}
			if shellDir != tc.dir {
				t.Errorf("ran in %q, want %q", shellDir, tc.dir)
			}
		})
	}
}

// TestOptionLikeValues: a string value that begins with '-' would be read
// as an option by the program, so it is refused unless the template ends
// the options with `--` before the placeholder (or the value is a
// redirection target, or one of the user's own enum values).
func TestOptionLikeValues(t *testing.T) {
	const refused = "value for x may not start with '-'"
	tests := []struct {
		name, args, command, value string
		enum                       bool
		err                        string // "" when the value is substituted
	}{
		{name: "plain argument", command: "grep {x} file", value: "-rf", err: refused},
		{name: "long option", command: "grep {x} file", value: "--include=*.go", err: refused},
		{name: "lone dash", command: "cat {x}", value: "-", err: refused},
		{name: "dash inside is fine", command: "grep {x} file", value: "a-b"},
		{name: "space then dash is fine", command: "grep {x} file", value: " -rf"},
		{name: "after --", command: "grep -e x -- {x}", value: "-rf"},
		{name: "after quoted --", command: "grep -e x '--' {x}", value: "--exec=id"},
		{name: "before --", command: "grep {x} -- file", value: "-rf", err: refused},
		{name: "-- of another command", command: "echo -- ; grep {x} file", value: "-rf", err: refused},
		{name: "-- in a pipeline's other side", command: "git log -- . | grep {x}", value: "-v", err: refused},
		{name: "once after --, once not", command: "grep -- {x} a && rm {x}", value: "-rf", err: refused},
		{name: "both after --", command: "grep -- {x} a && rm -- {x}", value: "-rf"},
		{name: "the --'s own text as value", command: "grep {x} file", value: "--", err: refused},
		{name: "redirection target", command: "echo hi > {x}", value: "-out"},
		{name: "enum value", command: "ls {x}", value: "-l", enum: true},
		{name: "enum does not cover others", command: "ls {x}", value: "-R", enum: true, err: `t: argument 'x' must be one of "-l", "-a", not "-R"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := `{"x":{"type":"string"}}`
			if tt.enum {
				spec = `{"x":{"type":"string","enum":["-l","-a"]}}`
			}
			tl := mustParse(t, def(spec, tt.command), Options{})[0]
			args, _ := json.Marshal(map[string]string{"x": tt.value})
			line, err := tl.Substitute(args)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Fatalf("got %q, %v; want the error %q", line, err, tt.err)
			case tt.err == "" && !strings.Contains(line, singleQuote(tt.value)):
				t.Errorf("line %q lacks the value", line)
			}
		})
	}
	t.Run("numbers are not strings", func(t *testing.T) {
		tl := mustParse(t, def(`{"n":{"type":"integer"}}`, "head -n {n} f"), Options{})[0]
		if _, err := tl.Substitute(json.RawMessage(`{"n":-5}`)); err != nil {
			t.Errorf("negative integer refused: %v", err)
		}
	})
	t.Run("the call is refused with the exact error", func(t *testing.T) {
		tl := mustParse(t, withX("grep {x} f"), Options{})[0]
		res, err := tl.Run(context.Background(), &tool.Env{Workdir: t.TempDir()}, json.RawMessage(`{"x":"-rf"}`))
		if err != nil || !res.IsError || res.Content != "error: "+refused {
			t.Errorf("Run = %+v, %v", res, err)
		}
	})
}
