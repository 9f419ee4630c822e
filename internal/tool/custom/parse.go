package custom

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// snakeCase is the form of tool and argument names.
var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

const snakeWhy = "snake_case: lowercase letters and digits in words joined by single underscores, starting with a letter"

// The fields a definition and an argument may have, in the order the
// errors list them.
var (
	toolFields     = []string{"name", "description", "arguments", "command", "workingDirectory", "timeoutSeconds"}
	argumentFields = []string{"type", "description", "enum", "default"}
)

// Parse checks tools.custom (a JSON array of definitions) and builds its
// tools. builtinNames are the built-in tools' names and aliases, which a
// custom tool may not take. A missing or null list is no tools. Any bad
// definition fails the whole list: the error is a *DefinitionError
// (`custom tool 'issue': …`) for the caller to put after
// `malformed ~/.wisp/config.json: `.
func Parse(raw json.RawMessage, builtinNames []string, opts Options) ([]*Tool, error) {
	if isNull(raw) {
		return nil, nil
	}
	var defs []json.RawMessage
	if err := json.Unmarshal(raw, &defs); err != nil {
		return nil, errNotList
	}
	builtins := map[string]bool{}
	for _, n := range builtinNames {
		builtins[n] = true
	}
	seen := map[string]int{}
	tools := make([]*Tool, 0, len(defs))
	for i, d := range defs {
		index := i + 1
		t, err := parseTool(index, d, builtins, opts)
		if err != nil {
			return nil, err
		}
		if first, ok := seen[t.name]; ok {
			return nil, &DefinitionError{Index: index, Name: t.name, Why: fmt.Sprintf("the name is already taken by custom tool #%d", first)}
		}
		seen[t.name] = index
		tools = append(tools, t)
	}
	return tools, nil
}

func parseTool(index int, raw json.RawMessage, builtins map[string]bool, opts Options) (*Tool, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return nil, &DefinitionError{Index: index, Why: "a definition must be a JSON object: " + err.Error()}
	}
	get := func(k string) (json.RawMessage, bool) {
		for _, f := range fields {
			if f.key == k {
				return f.value, !isNull(f.value)
			}
		}
		return nil, false
	}

	nameRaw, ok := get("name")
	if !ok {
		return nil, &DefinitionError{Index: index, Why: "name is required"}
	}
	var name string
	if err := json.Unmarshal(nameRaw, &name); err != nil {
		return nil, &DefinitionError{Index: index, Why: "name must be a string"}
	}
	if name == "" {
		return nil, &DefinitionError{Index: index, Why: "name is required"}
	}
	fail := func(format string, args ...any) error {
		return &DefinitionError{Index: index, Name: name, Why: fmt.Sprintf(format, args...)}
	}
	for _, f := range fields {
		if !contains(toolFields, f.key) {
			return nil, fail("unknown field '%s' (a custom tool has %s)", f.key, strings.Join(toolFields, ", "))
		}
	}
	switch {
	case !snakeCase.MatchString(name):
		return nil, fail("name must be %s", snakeWhy)
	case len(name) > MaxNameLen:
		return nil, fail("name must be at most %d characters, not %d", MaxNameLen, len(name))
	case builtins[name]:
		return nil, fail("the name is taken by a built-in tool")
	}
	t := &Tool{name: name}

	descRaw, ok := get("description")
	if !ok {
		return nil, fail("description is required")
	}
	if err := json.Unmarshal(descRaw, &t.description); err != nil {
		return nil, fail("description must be a string")
	}
	if strings.TrimSpace(t.description) == "" {
		return nil, fail("description is required")
	}
	if n := utf8.RuneCountInString(t.description); n > MaxDescriptionLen {
		return nil, fail("description must be 1 to %d characters, not %d", MaxDescriptionLen, n)
	}

	if argsRaw, ok := get("arguments"); ok {
		t.args, err = parseArguments(argsRaw)
		if err != nil {
			return nil, fail("%v", err)
		}
	}

	cmdRaw, ok := get("command")
	if !ok {
		return nil, fail("command is required")
	}
	if err := json.Unmarshal(cmdRaw, &t.command); err != nil {
		return nil, fail("command must be a string")
	}
	if strings.TrimSpace(t.command) == "" {
		return nil, fail("command is required")
	}
	t.segments, err = compile(t.command, t.args)
	if err != nil {
		return nil, fail("%v", err)
	}

	if dirRaw, ok := get("workingDirectory"); ok {
		t.dir, err = workingDirectory(dirRaw, opts.Home)
		if err != nil {
			return nil, fail("%v", err)
		}
	}
	if toRaw, ok := get("timeoutSeconds"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(string(toRaw)), 10, 64)
		if err != nil || n < 1 || n > MaxTimeoutSeconds {
			return nil, fail("timeoutSeconds must be a whole number of seconds from 1 to %d, not %s", MaxTimeoutSeconds, clip(toRaw))
		}
		t.timeout = time.Duration(n) * time.Second
	}
	t.schema = t.buildSchema()
	return t, nil
}

func parseArguments(raw json.RawMessage) ([]*Argument, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return nil, fmt.Errorf("arguments must be a JSON object of arguments by name: %v", err)
	}
	args := make([]*Argument, 0, len(fields))
	for _, f := range fields {
		a, err := parseArgument(f.key, f.value)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	return args, nil
}

func parseArgument(name string, raw json.RawMessage) (*Argument, error) {
	switch {
	case !snakeCase.MatchString(name):
		return nil, fmt.Errorf("argument name '%s' must be %s", name, snakeWhy)
	case len(name) > MaxArgumentNameLen:
		return nil, fmt.Errorf("argument name '%s' must be at most %d characters, not %d", name, MaxArgumentNameLen, len(name))
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("argument '%s': %s", name, fmt.Sprintf(format, args...))
	}
	fields, err := objectFields(raw)
	if err != nil {
		return nil, fail("must be a JSON object with a type: %v", err)
	}
	for _, f := range fields {
		if !contains(argumentFields, f.key) {
			return nil, fail("unknown field '%s' (an argument has %s)", f.key, strings.Join(argumentFields, ", "))
		}
	}
	a := &Argument{Name: name}
	var typeRaw, descRaw, enumRaw, defRaw json.RawMessage
	for _, f := range fields {
		if isNull(f.value) {
			continue
		}
		switch f.key {
		case "type":
			typeRaw = f.value
		case "description":
			descRaw = f.value
		case "enum":
			enumRaw = f.value
		case "default":
			defRaw = f.value
		}
	}
	types := "string, integer, number or boolean"
	if typeRaw == nil {
		return nil, fail("type is required: %s", types)
	}
	if err := json.Unmarshal(typeRaw, &a.Type); err != nil {
		return nil, fail("type must be %s, not %s", types, clip(typeRaw))
	}
	switch a.Type {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean:
	default:
		return nil, fail("type must be %s, not '%s'", types, a.Type)
	}
	if descRaw != nil {
		if err := json.Unmarshal(descRaw, &a.Description); err != nil {
			return nil, fail("description must be a string")
		}
	}
	if enumRaw != nil {
		if a.Type != TypeString {
			return nil, fail("enum is only for string arguments")
		}
		if err := json.Unmarshal(enumRaw, &a.Enum); err != nil {
			return nil, fail("enum must be a list of strings")
		}
		if len(a.Enum) == 0 {
			return nil, fail("enum must list at least one value")
		}
	}
	if defRaw != nil {
		text, err := a.render(defRaw)
		if err != nil {
			return nil, fail("default %v", err)
		}
		var compact bytes.Buffer
		// render accepted it, so it is valid JSON.
		_ = json.Compact(&compact, defRaw)
		a.Default, a.defaultText = compact.Bytes(), text
	}
	return a, nil
}

// workingDirectory expands a leading ~ with the home folder.
func workingDirectory(raw json.RawMessage, home string) (string, error) {
	var dir string
	if err := json.Unmarshal(raw, &dir); err != nil {
		return "", fmt.Errorf("workingDirectory must be a string")
	}
	switch {
	case dir == "":
		return "", fmt.Errorf("workingDirectory is empty; leave it out to run where wisp runs")
	case strings.ContainsRune(dir, 0):
		return "", fmt.Errorf("workingDirectory holds a NUL byte")
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		if home == "" {
			return "", fmt.Errorf("workingDirectory starts with ~ but the home folder is not known")
		}
		return home + dir[1:], nil
	case strings.HasPrefix(dir, "~"):
		return "", fmt.Errorf("workingDirectory '%s': only ~ and ~/ are expanded, not another user's home", dir)
	}
	return dir, nil
}

// buildSchema is the JSON Schema the model fills: the arguments in the
// order the user declared them, those without a default required, no
// others allowed.
func (t *Tool) buildSchema() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, a := range t.args {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(a.Name))
		b.WriteString(`:{"type":`)
		b.WriteString(jsonString(a.Type))
		if a.Description != "" {
			b.WriteString(`,"description":`)
			b.WriteString(jsonString(a.Description))
		}
		if len(a.Enum) > 0 {
			b.WriteString(`,"enum":[`)
			for j, v := range a.Enum {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(jsonString(v))
			}
			b.WriteByte(']')
		}
		if a.Default != nil {
			b.WriteString(`,"default":`)
			b.Write(a.Default)
		} else {
			required = append(required, a.Name)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":[`)
		for j, n := range required {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(n))
		}
		b.WriteByte(']')
	}
	b.WriteString(`,"additionalProperties":false}`)
	return json.RawMessage(b.Bytes())
}

// field is one member of a JSON object, in the order written.
type field struct {
	key   string
	value json.RawMessage
}

// objectFields reads a JSON object keeping its members' order, which
// encoding/json's maps lose: the arguments' order is the order the model
// and the docs show them in. A key given twice is an error.
func objectFields(raw json.RawMessage) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("got %s", clip(raw))
	}
	var out []field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON")
		}
		key, _ := tok.(string)
		for _, f := range out {
			if f.key == key {
				return nil, fmt.Errorf("'%s' is given twice", key)
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("not valid JSON")
		}
		out = append(out, field{key: key, value: v})
	}
	return out, nil
}

func isNull(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonString writes s as a JSON string, leaving <, > and & as they are:
// the model and the docs read it.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// clip shortens a raw value for an error message.
func clip(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		s = string(r[:40]) + "…"
	}
	return s
}
