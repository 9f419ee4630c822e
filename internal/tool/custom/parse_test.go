package custom

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// builtinNames are the built-in tools' names and aliases, as the caller
// passes them.
var builtinNames = []string{
	"read", "grep", "find", "ls", "write", "edit", "bash", "current_date", "system_info",
	"inspect", "notify", "run_command", "read_file", "edit_file", "skill", "spawn_wisps",
}

const snakeMsg = "must be snake_case: lowercase letters and digits in words joined by single underscores, starting with a letter"

const quoteMsg = " in the command; single-quoting only protects a value that stands as its own word"

// def is a one-tool config named t with the given arguments (a JSON
// object) and command.
func def(args, command string) string {
	c, _ := json.Marshal(command)
	return `[{"name":"t","description":"Does a thing.","arguments":` + args + `,"command":` + string(c) + `}]`
}

// withX is a one-tool config with one string argument x.
func withX(command string) string { return def(`{"x":{"type":"string"}}`, command) }

// withField is a one-tool config named t with one extra definition field.
func withField(field string) string {
	return `[{"name":"t","description":"Does a thing.","command":"true",` + field + `}]`
}

// withArg is a one-tool config whose argument a is defined by spec.
func withArg(spec string) string { return def(`{"a":`+spec+`}`, "echo {a}") }

func TestParseErrors(t *testing.T) {
	long41 := strings.Repeat("a", 41)
	tests := []struct {
		name, config, want string
	}{
		// The list itself.
		{"not a list", `{"name":"t"}`, "tools.custom must be a list of tool definitions"},
		{"definition not an object", `[5]`, "custom tool #1: a definition must be a JSON object: got 5"},

		// Names.
		{"name missing", `[{"description":"d","command":"true"}]`, "custom tool #1: name is required"},
		{"name missing, second", `[{"name":"a","description":"d","command":"true"},{"description":"d","command":"true"}]`, "custom tool #2: name is required"},
		{"name empty", `[{"name":"","description":"d","command":"true"}]`, "custom tool #1: name is required"},
		{"name null", `[{"name":null,"description":"d","command":"true"}]`, "custom tool #1: name is required"},
		{"name not a string", `[{"name":5,"description":"d","command":"true"}]`, "custom tool #1: name must be a string"},
		{"name upper case", `[{"name":"Issue","description":"d","command":"true"}]`, "custom tool 'Issue': name " + snakeMsg},
		{"name with a dash", `[{"name":"get-issue","description":"d","command":"true"}]`, "custom tool 'get-issue': name " + snakeMsg},
		{"name starts with a digit", `[{"name":"1issue","description":"d","command":"true"}]`, "custom tool '1issue': name " + snakeMsg},
		{"name starts with an underscore", `[{"name":"_issue","description":"d","command":"true"}]`, "custom tool '_issue': name " + snakeMsg},
		{"name ends with an underscore", `[{"name":"issue_","description":"d","command":"true"}]`, "custom tool 'issue_': name " + snakeMsg},
		{"name with a double underscore", `[{"name":"get__issue","description":"d","command":"true"}]`, "custom tool 'get__issue': name " + snakeMsg},
		{"name with a space", `[{"name":"get issue","description":"d","command":"true"}]`, "custom tool 'get issue': name " + snakeMsg},
		{"name too long", `[{"name":"` + long41 + `","description":"d","command":"true"}]`, "custom tool '" + long41 + "': name must be at most 40 characters, not 41"},
		{"name of a built-in", `[{"name":"bash","description":"d","command":"true"}]`, "custom tool 'bash': the name is taken by a built-in tool"},
		{"name of a built-in alias", `[{"name":"run_command","description":"d","command":"true"}]`, "custom tool 'run_command': the name is taken by a built-in tool"},
		{"name of read_file", `[{"name":"read_file","description":"d","command":"true"}]`, "custom tool 'read_file': the name is taken by a built-in tool"},
		{"name of skill", `[{"name":"skill","description":"d","command":"true"}]`, "custom tool 'skill': the name is taken by a built-in tool"},
		{"name of spawn_wisps", `[{"name":"spawn_wisps","description":"d","command":"true"}]`, "custom tool 'spawn_wisps': the name is taken by a built-in tool"},
		{"name repeated", `[{"name":"a","description":"d","command":"true"},{"name":"b","description":"d","command":"true"},{"name":"a","description":"d","command":"ls"}]`, "custom tool 'a': the name is already taken by custom tool #1"},

		// Descriptions.
		{"description missing", `[{"name":"t","command":"true"}]`, "custom tool 't': description is required"},
		{"description empty", `[{"name":"t","description":"","command":"true"}]`, "custom tool 't': description is required"},
		{"description blank", `[{"name":"t","description":"  \n ","command":"true"}]`, "custom tool 't': description is required"},
		{"description not a string", `[{"name":"t","description":["a"],"command":"true"}]`, "custom tool 't': description must be a string"},
		{"description too long", `[{"name":"t","description":"` + strings.Repeat("d", 301) + `","command":"true"}]`, "custom tool 't': description must be 1 to 300 characters, not 301"},
		{"description too long in runes", `[{"name":"t","description":"` + strings.Repeat("é", 301) + `","command":"true"}]`, "custom tool 't': description must be 1 to 300 characters, not 301"},

		// Unknown and malformed fields.
		{"unknown field", withField(`"timeout":5`), "custom tool 't': unknown field 'timeout' (a custom tool has name, description, arguments, command, workingDirectory, timeoutSeconds)"},
		{"field in the wrong case", withField(`"working_directory":"/"`), "custom tool 't': unknown field 'working_directory' (a custom tool has name, description, arguments, command, workingDirectory, timeoutSeconds)"},
		{"field given twice", `[{"name":"t","name":"u","description":"d","command":"true"}]`, "custom tool #1: a definition must be a JSON object: 'name' is given twice"},

		// Arguments.
		{"arguments not an object", def(`[]`, "true"), "custom tool 't': arguments must be a JSON object of arguments by name: got []"},
		{"argument name not snake_case", def(`{"Path":{"type":"string"}}`, "cat {path}"), "custom tool 't': argument name 'Path' " + snakeMsg},
		{"argument name with a dash", def(`{"max-count":{"type":"string"}}`, "true"), "custom tool 't': argument name 'max-count' " + snakeMsg},
		{"argument name too long", def(`{"`+strings.Repeat("a", 65)+`":{"type":"string"}}`, "true"), "custom tool 't': argument name '" + strings.Repeat("a", 65) + "' must be at most 64 characters, not 65"},
		{"argument given twice", def(`{"a":{"type":"string"},"a":{"type":"integer"}}`, "echo {a}"), "custom tool 't': arguments must be a JSON object of arguments by name: 'a' is given twice"},
		{"argument not an object", withArg(`"integer"`), `custom tool 't': argument 'a': must be a JSON object with a type: got "integer"`},
		{"argument unknown field", withArg(`{"type":"integer","min":1}`), "custom tool 't': argument 'a': unknown field 'min' (an argument has type, description, enum, default)"},
		{"argument type missing", withArg(`{"description":"x"}`), "custom tool 't': argument 'a': type is required: string, integer, number or boolean"},
		{"argument type unknown", withArg(`{"type":"int"}`), "custom tool 't': argument 'a': type must be string, integer, number or boolean, not 'int'"},
		{"argument type array", withArg(`{"type":"array"}`), "custom tool 't': argument 'a': type must be string, integer, number or boolean, not 'array'"},
		{"argument type not a string", withArg(`{"type":5}`), "custom tool 't': argument 'a': type must be string, integer, number or boolean, not 5"},
		{"argument description not a string", withArg(`{"type":"string","description":5}`), "custom tool 't': argument 'a': description must be a string"},
		{"enum on an integer", withArg(`{"type":"integer","enum":["1"]}`), "custom tool 't': argument 'a': enum is only for string arguments"},
		{"enum on a boolean", withArg(`{"type":"boolean","enum":["true"]}`), "custom tool 't': argument 'a': enum is only for string arguments"},
		{"enum empty", withArg(`{"type":"string","enum":[]}`), "custom tool 't': argument 'a': enum must list at least one value"},
		{"enum of numbers", withArg(`{"type":"string","enum":[1,2]}`), "custom tool 't': argument 'a': enum must be a list of strings"},
		{"enum not a list", withArg(`{"type":"string","enum":"a"}`), "custom tool 't': argument 'a': enum must be a list of strings"},
		{"default string for an integer", withArg(`{"type":"integer","default":"5"}`), `custom tool 't': argument 'a': default must be an integer, not "5"`},
		{"default fraction for an integer", withArg(`{"type":"integer","default":2.5}`), "custom tool 't': argument 'a': default must be an integer, not 2.5"},
		{"default number for a string", withArg(`{"type":"string","default":5}`), "custom tool 't': argument 'a': default must be a string, not 5"},
		{"default string for a number", withArg(`{"type":"number","default":"1.5"}`), `custom tool 't': argument 'a': default must be a number, not "1.5"`},
		{"default string for a boolean", withArg(`{"type":"boolean","default":"true"}`), `custom tool 't': argument 'a': default must be true or false, not "true"`},
		{"default outside the enum", withArg(`{"type":"string","enum":["open","closed"],"default":"all"}`), `custom tool 't': argument 'a': default must be one of "open", "closed", not "all"`},
		{"default with a NUL", withArg(`{"type":"string","default":"a\u0000b"}`), "custom tool 't': argument 'a': default holds a NUL byte, which a command line cannot carry"},

		// Commands.
		{"command missing", `[{"name":"t","description":"d"}]`, "custom tool 't': command is required"},
		{"command empty", `[{"name":"t","description":"d","command":" "}]`, "custom tool 't': command is required"},
		{"command not a string", `[{"name":"t","description":"d","command":["ls"]}]`, "custom tool 't': command must be a string"},
		{"placeholder not declared", `[{"name":"issue","description":"d","arguments":{"number":{"type":"integer"}},"command":"gh issue view {num}"}]`, "custom tool 'issue': the command uses {num}, which is not a declared argument"},
		{"placeholder without arguments", def(`{}`, "echo {x}"), "custom tool 't': the command uses {x}, which is not a declared argument"},
		{"argument unused", def(`{"path":{"type":"string"},"lines":{"type":"integer","default":5}}`, "head {path}"), "custom tool 't': argument 'lines' is declared but the command never uses {lines}"},
		{"shell expansion is not a use", withX("echo ${x}"), "custom tool 't': argument 'x' is declared but the command never uses {x}"},
		{"command with a NUL", `[{"name":"t","description":"d","command":"echo a\u0000b"}]`, "custom tool 't': the command holds a NUL byte"},

		// Placeholders where single quotes cannot protect them.
		{"inside single quotes", withX("echo '{x}'"), "custom tool 't': {x} is inside quotes" + quoteMsg},
		{"inside double quotes", withX(`echo "{x}"`), "custom tool 't': {x} is inside quotes" + quoteMsg},
		{"inside a quoted option", withX(`echo "--flag={x}"`), "custom tool 't': {x} is inside quotes" + quoteMsg},
		{"inside ANSI quotes", withX(`echo $'{x}'`), "custom tool 't': {x} is inside quotes" + quoteMsg},
		{"joined to an option", withX("echo --x={x}"), "custom tool 't': {x} is part of a larger word" + quoteMsg},
		{"text before", withX("echo a{x}"), "custom tool 't': {x} is part of a larger word" + quoteMsg},
		{"text after", withX("echo {x}b"), "custom tool 't': {x} is part of a larger word" + quoteMsg},
		{"two placeholders joined", def(`{"x":{"type":"string"},"y":{"type":"string"}}`, "echo {x}{y}"), "custom tool 't': {x} is part of a larger word" + quoteMsg},
		{"after a variable", withX("echo $a{x}"), "custom tool 't': {x} is part of a larger word" + quoteMsg},
		{"after a backslash", withX(`echo \{x}`), "custom tool 't': {x} is part of a larger word" + quoteMsg},
		{"command name", withX("{x} --help"), "custom tool 't': {x} cannot be the command name; a value may only be an argument or a redirection target"},
		{"command name after a pipe", withX("echo hi | {x}"), "custom tool 't': {x} cannot be the command name; a value may only be an argument or a redirection target"},
		{"command name after an assignment", withX("LC_ALL=C {x} a"), "custom tool 't': {x} cannot be the command name; a value may only be an argument or a redirection target"},
		{"inside a command substitution", withX("echo $(cat {x})"), "custom tool 't': {x} is inside a command substitution" + quoteMsg},
		{"inside backticks", withX("echo `cat {x}`"), "custom tool 't': {x} is inside backticks" + quoteMsg},
		{"inside a process substitution", withX("diff <(cat {x}) b"), "custom tool 't': {x} is inside a process substitution" + quoteMsg},
		{"inside a here-document", withX("cat <<EOF\n{x}\nEOF"), "custom tool 't': {x} is inside a here-document" + quoteMsg},
		{"inside a quoted here-document", withX("cat <<'EOF'\n{x}\nEOF"), "custom tool 't': {x} is inside a here-document" + quoteMsg},
		{"an assignment", withX("X={x} make"), "custom tool 't': {x} is in an assignment" + quoteMsg},
		{"an assignment alone", withX("X={x}"), "custom tool 't': {x} is in an assignment" + quoteMsg},
		{"an export", withX("export X={x}"), "custom tool 't': {x} is in an assignment" + quoteMsg},
		{"a declared name", withX("declare {x}"), "custom tool 't': {x} is in an assignment" + quoteMsg},
		{"an array", withX("a=({x}); echo $a"), "custom tool 't': {x} is in an assignment" + quoteMsg},
		{"arithmetic", withX("echo $(( {x} + 1 ))"), "custom tool 't': {x} is inside an arithmetic expression" + quoteMsg},
		{"arithmetic command", withX("(( {x} > 1 ))"), "custom tool 't': {x} is inside an arithmetic expression" + quoteMsg},
		{"let", withX("let n={x}"), "custom tool 't': {x} is inside an arithmetic expression" + quoteMsg},
		{"a [[ ]] test", withX("[[ {x} == a ]]"), "custom tool 't': {x} is inside a [[ ]] test" + quoteMsg},
		{"a parameter default", withX("echo ${HOME:-{x}}"), "custom tool 't': {x} is inside a parameter expansion" + quoteMsg},
		{"a comment", withX("echo hi # {x}"), "custom tool 't': {x} is inside a comment" + quoteMsg},
		{"a for list", withX("for f in {x}; do echo $f; done"), "custom tool 't': {x} is neither a command argument nor a redirection target" + quoteMsg},
		{"a case subject", withX("case {x} in a) echo a;; esac"), "custom tool 't': {x} is neither a command argument nor a redirection target" + quoteMsg},
		{"a function name", withX("{x}() { echo; }"), "custom tool 't': {x} is neither a command argument nor a redirection target" + quoteMsg},
		{"the first bad one is named", def(`{"x":{"type":"string"},"y":{"type":"string"}}`, "echo {x} '{y}'"), "custom tool 't': {y} is inside quotes" + quoteMsg},

		// Working folders and timeouts.
		{"working directory empty", withField(`"workingDirectory":""`), "custom tool 't': workingDirectory is empty; leave it out to run where wisp runs"},
		{"working directory not a string", withField(`"workingDirectory":5`), "custom tool 't': workingDirectory must be a string"},
		{"working directory of another user", withField(`"workingDirectory":"~bob/src"`), "custom tool 't': workingDirectory '~bob/src': only ~ and ~/ are expanded, not another user's home"},
		{"timeout zero", withField(`"timeoutSeconds":0`), "custom tool 't': timeoutSeconds must be a whole number of seconds from 1 to 86400, not 0"},
		{"timeout negative", withField(`"timeoutSeconds":-5`), "custom tool 't': timeoutSeconds must be a whole number of seconds from 1 to 86400, not -5"},
		{"timeout fraction", withField(`"timeoutSeconds":1.5`), "custom tool 't': timeoutSeconds must be a whole number of seconds from 1 to 86400, not 1.5"},
		{"timeout string", withField(`"timeoutSeconds":"10"`), `custom tool 't': timeoutSeconds must be a whole number of seconds from 1 to 86400, not "10"`},
		{"timeout too long", withField(`"timeoutSeconds":86401`), "custom tool 't': timeoutSeconds must be a whole number of seconds from 1 to 86400, not 86401"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := Parse(json.RawMessage(tc.config), builtinNames, Options{Home: "/home/u"})
			if err == nil {
				t.Fatalf("Parse accepted it: %d tools", len(tools))
			}
			if err.Error() != tc.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tc.want)
			}
			if tools != nil {
				t.Errorf("tools = %v alongside an error", tools)
			}
		})
	}
}

func TestParseErrorType(t *testing.T) {
	_, err := Parse(json.RawMessage(`[{"name":"issue","description":"d","arguments":{"number":{"type":"integer"}},"command":"gh issue view {num}"}]`), builtinNames, Options{})
	var de *DefinitionError
	if !errors.As(err, &de) || de.Index != 1 || de.Name != "issue" || de.Why != "the command uses {num}, which is not a declared argument" {
		t.Fatalf("error %#v", err)
	}
	// The caller's prefix makes the line custom-tools.md shows.
	if got := "Error: malformed ~/.wisp/config.json: " + err.Error(); got != "Error: malformed ~/.wisp/config.json: custom tool 'issue': the command uses {num}, which is not a declared argument" {
		t.Fatal(got)
	}
}

func TestParseCommandDoesNotParse(t *testing.T) {
	tests := []struct{ name, config string }{
		{"open parenthesis", def(`{}`, "echo (")},
		{"open if", def(`{}`, "if true; then")},
		{"with a placeholder", withX("echo {x} (")},
		{"unclosed quote", withX("echo {x} 'a")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tc.config), builtinNames, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), "custom tool 't': the command does not parse as a shell line: ") {
				t.Fatalf("error %v", err)
			}
			if strings.Contains(err.Error(), "wispslot") {
				t.Errorf("the error shows the internal marker: %v", err)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name, config string
	}{
		{"issue", `[{"name":"issue","description":"Shows a GitHub issue of the current repository.","arguments":{"number":{"type":"integer","description":"The issue number"}},"command":"gh issue view {number}"}]`},
		{"line_head", def(`{"path":{"type":"string"},"lines":{"type":"integer","default":5}}`, "head -n {lines} {path}")},
		{"grep to /dev/null", def(`{"pattern":{"type":"string"},"file":{"type":"string"}}`, "grep -- {pattern} {file} > /dev/null")},
		{"shell expansion beside", withX("echo ${HOME} {x}")},
		{"redirection target", def(`{"path":{"type":"string"},"x":{"type":"string"}}`, "echo {x} >> {path}")},
		{"input redirection", withX("wc -l < {x}")},
		{"here-string", withX("cat <<< {x}")},
		{"twice", withX("echo {x} {x}")},
		{"in an if", withX("if test -f {x}; then cat -- {x}; fi")},
		{"in a block", withX("{ echo {x}; }")},
		{"in a subshell", withX("(cd -- {x} && ls)")},
		{"in a pipeline", withX("printf '%s\\n' {x} | wc -c")},
		{"after && and ;", withX("true && echo {x}; echo {x}")},
		{"in a function", withX("f() { echo \"$1\"; }; f {x}")},
		{"find braces", withX("find . -name {x} -exec ls {} \\;")},
		{"awk braces", withX("awk '{ print $1 }' {x}")},
		{"shell brace text", withX("echo {a,b} {X} {} {x}")},
		{"sh -c with an argument", withX("sh -c 'echo \"$1\"' sh {x}")},
		{"assignment before the command", withX("LC_ALL=C sort -- {x}")},
		{"heredoc elsewhere", withX("cat <<EOF - {x}\nhi\nEOF")},
		{"no arguments", def(`{}`, "date -u")},
		{"no arguments field", `[{"name":"t","description":"d","command":"true"}]`},
		{"all types", def(`{"s":{"type":"string","enum":["a"]},"i":{"type":"integer"},"n":{"type":"number","default":1e3},"b":{"type":"boolean","default":true}}`, "echo {s} {i} {n} {b}")},
		{"nulls are absent", `[{"name":"t","description":"d","arguments":null,"command":"true","workingDirectory":null,"timeoutSeconds":null}]`},
		{"name of 40 characters", `[{"name":"` + strings.Repeat("a", 40) + `","description":"d","command":"true"}]`},
		{"description of 300 characters", `[{"name":"t","description":"` + strings.Repeat("é", 300) + `","command":"true"}]`},
		{"name like a built-in", `[{"name":"bash_lint","description":"d","command":"true"},{"name":"read2","description":"d","command":"true"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := Parse(json.RawMessage(tc.config), builtinNames, Options{Home: "/home/u"})
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) == 0 {
				t.Fatal("no tools")
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, raw := range []string{"", "null", " null ", "[]"} {
		tools, err := Parse(json.RawMessage(raw), builtinNames, Options{})
		if err != nil || len(tools) != 0 {
			t.Errorf("Parse(%q) = %v, %v", raw, tools, err)
		}
	}
}

// TestParseSpecExample parses the example of custom-tools.md.
func TestParseSpecExample(t *testing.T) {
	raw := `[
      {
        "name": "issue",
        "description": "Shows a GitHub issue of the current repository.",
        "arguments": { "number": { "type": "integer", "description": "The issue number" } },
        "command": "gh issue view {number}"
      },
      {
        "name": "line_head",
        "description": "Shows the first lines of a file.",
        "arguments": {
          "path": { "type": "string", "description": "The file" },
          "lines": { "type": "integer", "description": "How many lines", "default": 5 }
        },
        "command": "head -n {lines} {path}",
        "timeoutSeconds": 10
      }
    ]`
	tools, err := Parse(json.RawMessage(raw), builtinNames, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(Names(tools), ","); got != "issue,line_head" {
		t.Fatalf("Names = %s", got)
	}
	spec := tools[1].Spec()
	if spec.Name != "line_head" || spec.Description != "Shows the first lines of a file." || spec.Class != "command" {
		t.Errorf("spec = %+v", spec)
	}
	wantSchema := `{"type":"object","properties":{"path":{"type":"string","description":"The file"},"lines":{"type":"integer","description":"How many lines","default":5}},"required":["path"],"additionalProperties":false}`
	if string(spec.Schema) != wantSchema {
		t.Errorf("schema\n got: %s\nwant: %s", spec.Schema, wantSchema)
	}
	if !json.Valid(spec.Schema) {
		t.Error("schema is not valid JSON")
	}
	lim := tools[1].Limits()
	if lim.Timeout != 10*time.Second || lim.WorkingDirectory != "" || lim.Command != "head -n {lines} {path}" || len(lim.Arguments) != 2 {
		t.Errorf("limits = %+v", lim)
	}
	if a := lim.Arguments[1]; a.Name != "lines" || a.Type != "integer" || a.Description != "How many lines" || string(a.Default) != "5" || a.Required() {
		t.Errorf("argument = %+v", a)
	}
	if !lim.Arguments[0].Required() {
		t.Error("path should be required")
	}
	if l := tools[0].Limits(); l.Timeout != 0 || l.Example != "Use issue with number=42" {
		t.Errorf("issue limits = %+v", l)
	}
}

func TestSpec(t *testing.T) {
	tests := []struct {
		name, config, desc, schema string
	}{
		{
			name:   "description kept as written",
			config: `[{"name":"t","description":"  Runs <make> & more.\n","command":"make"}]`,
			desc:   "  Runs <make> & more.\n",
			schema: `{"type":"object","properties":{},"additionalProperties":false}`,
		},
		{
			name:   "enum, default, order kept",
			config: def(`{"z":{"type":"string","enum":["a<b","c"],"default":"c"},"a":{"type":"boolean"},"m":{"type":"number","default":1e3}}`, "echo {z} {a} {m}"),
			desc:   "Does a thing.",
			schema: `{"type":"object","properties":{"z":{"type":"string","enum":["a<b","c"],"default":"c"},"a":{"type":"boolean"},"m":{"type":"number","default":1e3}},"required":["a"],"additionalProperties":false}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := Parse(json.RawMessage(tc.config), builtinNames, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := tools[0].Spec()
			if s.Description != tc.desc {
				t.Errorf("description %q, want %q", s.Description, tc.desc)
			}
			if string(s.Schema) != tc.schema {
				t.Errorf("schema\n got: %s\nwant: %s", s.Schema, tc.schema)
			}
			var v any
			if err := json.Unmarshal(s.Schema, &v); err != nil {
				t.Errorf("schema is not JSON: %v", err)
			}
		})
	}
}

func TestWorkingDirectory(t *testing.T) {
	tests := []struct {
		name, dir, home, want, err string
	}{
		{name: "home", dir: "~", home: "/home/u", want: "/home/u"},
		{name: "under home", dir: "~/src/app", home: "/home/u", want: "/home/u/src/app"},
		{name: "absolute", dir: "/srv/app", home: "/home/u", want: "/srv/app"},
		{name: "relative", dir: "sub/dir", home: "/home/u", want: "sub/dir"},
		{name: "tilde inside", dir: "/a/~/b", home: "/home/u", want: "/a/~/b"},
		{name: "home unknown", dir: "~/src", err: "custom tool 't': workingDirectory starts with ~ but the home folder is not known"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := json.Marshal(tc.dir)
			tools, err := Parse(json.RawMessage(withField(`"workingDirectory":`+string(d))), builtinNames, Options{Home: tc.home})
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tools[0].Limits().WorkingDirectory; got != tc.want {
				t.Fatalf("working directory %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExample(t *testing.T) {
	tests := []struct {
		name, args, command, want string
	}{
		{"no arguments", `{}`, "true", "Use t"},
		{"integer", `{"number":{"type":"integer"}}`, "echo {number}", "Use t with number=42"},
		{"default wins", `{"path":{"type":"string"},"lines":{"type":"integer","default":5}}`, "head -n {lines} {path}", `Use t with path="example" and lines=5`},
		{"enum and the rest", `{"state":{"type":"string","enum":["open","closed"]},"ratio":{"type":"number"},"all":{"type":"boolean"}}`, "echo {state} {ratio} {all}", `Use t with state="open", ratio=2.5 and all=true`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := Parse(json.RawMessage(def(tc.args, tc.command)), builtinNames, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := tools[0].Limits().Example; got != tc.want {
				t.Fatalf("example %q, want %q", got, tc.want)
			}
		})
	}
}
