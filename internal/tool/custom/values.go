package custom

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	// jsonInteger is a JSON number with no fraction and no exponent.
	jsonInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	// jsonPlainNumber is a JSON number with no exponent.
	jsonPlainNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)
	// jsonNumber is any JSON number.
	jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
)

// render checks a value against the argument and returns the text it
// puts into the command. The error reads after "argument 'x' " (or
// "default "): "must be an integer, not \"10\"".
func (a *Argument) render(raw json.RawMessage) (string, error) {
	s := strings.TrimSpace(string(raw))
	switch a.Type {
	case TypeString:
		var v string
		if !strings.HasPrefix(s, `"`) || json.Unmarshal(raw, &v) != nil {
			return "", fmt.Errorf("must be a string, not %s", clip(raw))
		}
		if strings.ContainsRune(v, 0) {
			return "", fmt.Errorf("holds a NUL byte, which a command line cannot carry")
		}
		if len(a.Enum) > 0 && !contains(a.Enum, v) {
			return "", fmt.Errorf("must be one of %s, not %s", enumList(a.Enum), clip(raw))
		}
		return singleQuote(v), nil
	case TypeInteger:
		if !jsonInteger.MatchString(s) {
			return "", fmt.Errorf("must be an integer, not %s", clip(raw))
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return "", fmt.Errorf("must be an integer that fits in 64 bits, not %s", clip(raw))
		}
		return s, nil
	case TypeNumber:
		if jsonPlainNumber.MatchString(s) {
			return s, nil
		}
		if !jsonNumber.MatchString(s) {
			return "", fmt.Errorf("must be a number, not %s", clip(raw))
		}
		// Programs rarely read 1e3; written out in plain decimals it
		// means the same to all of them.
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return "", fmt.Errorf("must be a number within the range of a 64-bit float, not %s", clip(raw))
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case TypeBoolean:
		if s != "true" && s != "false" {
			return "", fmt.Errorf("must be true or false, not %s", clip(raw))
		}
		return s, nil
	}
	return "", fmt.Errorf("has an unknown type %q", a.Type)
}

// checkOption refuses a string value that a program would read as an
// option: one that begins with '-' where the template does not end the
// options first (see optionGuarded). Values of the user's own enum are
// the user's choice and pass.
func (a *Argument) checkOption(raw json.RawMessage) error {
	if a.Type != TypeString || a.optionProof {
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil || !strings.HasPrefix(v, "-") || contains(a.Enum, v) {
		return nil
	}
	return fmt.Errorf("value for %s may not start with '-'", a.Name)
}

// singleQuote makes s one shell word whose value is s exactly: inside
// single quotes nothing is special, and a quote itself is closed, escaped
// and reopened.
func singleQuote(s string) string {
	// it's becomes 'it'\''s'.
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func enumList(enum []string) string {
	q := make([]string, len(enum))
	for i, v := range enum {
		q[i] = jsonString(v)
	}
	return strings.Join(q, ", ")
}

// typeWords names a type for the model.
func typeWords(typ string) string {
	switch typ {
	case TypeInteger:
		return "an integer"
	case TypeBoolean:
		return "a boolean, true or false"
	}
	return "a " + typ
}
