package wisps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
)

var definitionFields = []string{"description", "tools", "steps"}

var stepFields = []string{"id", "mode", "gateway", "server", "tool", "language", "params", "input", "arguments",
	"prompt", "agent", "skill", "message", "timeout_minutes", "metadata", "input_from", "output_to", "on_failure",
	"for_each", "as", "max_items", "concurrency", "on_item_failure"}

// ParseFile reads one definition or a batch from a file's text, JSON or
// YAML: a definition object, an array of them, or {"definitions": [...]}.
// Every definition is validated; the first problem found is returned as
// a Structural *Error.
func ParseFile(data []byte) ([]Definition, error) {
	doc, err := toJSON(data)
	if err != nil {
		return nil, &Error{Category: Structural, Msg: err.Error()}
	}
	return ParseBatch(doc)
}

// toJSON turns YAML (of which JSON is a subset) into JSON text.
func toJSON(data []byte) (json.RawMessage, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("the file is empty")
	}
	if json.Valid(trimmed) {
		return trimmed, nil
	}
	var v any
	if err := yaml.Unmarshal(trimmed, &v); err != nil {
		return nil, fmt.Errorf("not valid JSON or YAML: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("YAML that has no JSON form: %v", err)
	}
	return out, nil
}

// ParseBatch reads definitions as spawn_wisps takes them: a definition,
// an array of definitions, or an object with "definitions"; each
// definition may be an object or a JSON string holding one.
func ParseBatch(doc json.RawMessage) ([]Definition, error) {
	doc = bytes.TrimSpace(doc)
	var items []json.RawMessage
	switch {
	case len(doc) > 0 && doc[0] == '[':
		if err := json.Unmarshal(doc, &items); err != nil {
			return nil, &Error{Category: Structural, Msg: fmt.Sprintf("definitions: %v", err)}
		}
	default:
		var top map[string]json.RawMessage
		if err := json.Unmarshal(doc, &top); err != nil {
			return nil, &Error{Category: Structural, Msg: fmt.Sprintf("a definition must be a JSON object: %v", err)}
		}
		if raw, ok := top["definitions"]; ok {
			if len(top) != 1 {
				return nil, &Error{Category: Structural, Msg: "an object with \"definitions\" may hold nothing else"}
			}
			if err := json.Unmarshal(raw, &items); err != nil {
				return nil, &Error{Category: Structural, Field: "definitions", Msg: "must be an array of definitions"}
			}
		} else {
			items = []json.RawMessage{doc}
		}
	}
	if len(items) == 0 {
		return nil, &Error{Category: Structural, Field: "definitions", Msg: "no definitions"}
	}
	defs := make([]Definition, 0, len(items))
	for i, raw := range items {
		d, err := ParseDefinition(unquote(raw))
		if err != nil {
			if e, ok := err.(*Error); ok && len(items) > 1 {
				e.Definition = i + 1
			}
			return nil, err
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// unquote opens a definition passed as a JSON string.
func unquote(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return raw
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return raw
	}
	return json.RawMessage(s)
}

// ParseDefinition reads and validates one definition object.
func ParseDefinition(raw json.RawMessage) (Definition, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return Definition{}, &Error{Category: Structural, Msg: "a definition must be a JSON object"}
	}
	var d Definition
	if err := unknownFields(top, definitionFields, ""); err != nil {
		return d, err
	}
	if err := field(top, "description", "", &d.Description, "a string"); err != nil {
		return d, err
	}
	if err := field(top, "tools", "", &d.Tools, "an array of tool or server names"); err != nil {
		return d, err
	}
	var steps []map[string]json.RawMessage
	if err := field(top, "steps", "", &steps, "an array of step objects"); err != nil {
		return d, err
	}
	if len(steps) == 0 {
		return d, structural("", "steps", "a wisp needs at least one step")
	}
	for i, m := range steps {
		st, err := parseStep(i, m)
		if err != nil {
			return d, err
		}
		d.Steps = append(d.Steps, st)
	}
	if err := Validate(&d); err != nil {
		return d, err
	}
	return d, nil
}

func unknownFields(m map[string]json.RawMessage, known []string, step string) error {
	var keys []string
	for k := range m {
		if !slices.Contains(known, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	return structural(step, keys[0], "unknown field; known fields: %s", strings.Join(known, ", "))
}

// field decodes one member, naming the step and field when its type is wrong.
func field(m map[string]json.RawMessage, name, step string, into any, want string) error {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(into); err != nil {
		return structural(step, name, "must be %s", want)
	}
	return nil
}

func parseStep(i int, m map[string]json.RawMessage) (Step, error) {
	var st Step
	if m == nil {
		return st, structural(fmt.Sprintf("#%d", i+1), "", "a step must be an object")
	}
	if err := field(m, "id", "", &st.ID, "a string"); err != nil {
		return st, err
	}
	name := st.ID
	if name == "" {
		name = fmt.Sprintf("#%d", i+1)
	}
	if err := unknownFields(m, stepFields, name); err != nil {
		return st, err
	}
	strs := []struct {
		key string
		to  *string
	}{{"server", &st.Server}, {"tool", &st.Tool}, {"language", &st.Language}, {"prompt", &st.Prompt},
		{"agent", &st.Agent}, {"skill", &st.Skill}, {"message", &st.Message}, {"input_from", &st.InputFrom},
		{"output_to", &st.OutputTo}, {"for_each", &st.ForEach}, {"as", &st.As}, {"on_item_failure", &st.OnItemFailure}}
	for _, s := range strs {
		if err := field(m, s.key, name, s.to, "a string"); err != nil {
			return st, err
		}
	}
	var mode, gateway string
	if err := field(m, "mode", name, &mode, "a string: Direct or Llm"); err != nil {
		return st, err
	}
	if err := field(m, "gateway", name, &gateway, "a string: Mcp, A2A, Script or Web"); err != nil {
		return st, err
	}
	var err error
	if st.Mode, st.Gateway, err = modeAndGateway(name, mode, gateway, m); err != nil {
		return st, err
	}
	if err := field(m, "timeout_minutes", name, &st.TimeoutMinutes, "a number of minutes"); err != nil {
		return st, err
	}
	if err := field(m, "metadata", name, &st.Metadata, "an object"); err != nil {
		return st, err
	}
	if err := field(m, "on_failure", name, &st.OnFailure, `an object such as {"action":"abort"} or {"action":"skip_to","skip_to":"id"}`); err != nil {
		return st, err
	}
	if err := intField(m, "max_items", name, &st.MaxItems); err != nil {
		return st, err
	}
	if err := intField(m, "concurrency", name, &st.Concurrency); err != nil {
		return st, err
	}
	st.Params, err = params(m, name)
	return st, err
}

func intField(m map[string]json.RawMessage, key, step string, into *int) error {
	if _, ok := m[key]; !ok {
		return nil
	}
	if err := field(m, key, step, into, "a positive whole number"); err != nil {
		return err
	}
	if *into < 1 {
		return structural(step, key, "must be a positive whole number")
	}
	return nil
}

func modeAndGateway(step, mode, gateway string, m map[string]json.RawMessage) (Mode, Gateway, error) {
	var md Mode
	switch strings.ToLower(mode) {
	case "direct":
		md = Direct
	case "llm":
		md = Llm
	case "":
		return "", "", structural(step, "mode", "required: Direct or Llm")
	default:
		return "", "", structural(step, "mode", "%q is not a mode; use Direct or Llm", mode)
	}
	var gw Gateway
	switch strings.ToLower(gateway) {
	case "mcp":
		gw = Mcp
	case "a2a":
		gw = A2A
	case "script":
		gw = Script
	case "web":
		gw = Web
	case "":
	default:
		return "", "", structural(step, "gateway", "%q is not a gateway; use Mcp, A2A, Script or Web", gateway)
	}
	return md, gw, nil
}

// params takes params or one of its aliases, which must be an object.
func params(m map[string]json.RawMessage, step string) (json.RawMessage, error) {
	var found string
	var raw json.RawMessage
	for _, k := range []string{"params", "input", "arguments"} {
		if v, ok := m[k]; ok && string(v) != "null" {
			if found != "" {
				return nil, structural(step, k, "%s and %s are the same field; give one", found, k)
			}
			found, raw = k, v
		}
	}
	if found == "" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, structural(step, found, "must be an object")
	}
	return bytes.TrimSpace(raw), nil
}
