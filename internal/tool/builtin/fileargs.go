package builtin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// fileArgsError turns a JSON decoding failure into a message that names
// the argument and what was wrong with it.
func fileArgsError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			return fmt.Sprintf("invalid arguments: expected a JSON object, got %s", te.Value)
		}
		return fmt.Sprintf("invalid arguments: %s must be %s, got %s", field, jsonTypeName(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("invalid arguments: malformed JSON at byte %d: %v", se.Offset, err)
	}
	return "invalid arguments: " + err.Error()
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	}
	return kind
}

// decodeFileArgs decodes tool arguments into v. Unknown fields are allowed;
// wrong types are not. The returned string is empty on success, else the
// message for the model.
func decodeFileArgs(raw json.RawMessage, v any) string {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fileArgsError(err)
	}
	return ""
}

// statMessage words a failed open or stat of the path the model gave.
func statMessage(p string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or folder: " + p
	case errors.Is(err, fs.ErrPermission):
		return "permission denied: " + p
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", p, pe.Err)
	}
	return fmt.Sprintf("%s: %v", p, err)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
