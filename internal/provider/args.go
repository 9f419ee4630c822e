package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// argsQuote is how much of malformed arguments the model is shown back.
const argsQuote = 120

// CheckArguments says what is wrong with the arguments of a tool call in
// a complete message, or "" when they are a JSON object. cutByLimit is
// true when the message stopped at its token limit, which explains why
// they are incomplete. The text is for the model and for the person
// reading the run; it quotes the start of the arguments escaped.
func CheckArguments(args string, cutByLimit bool) string {
	trimmed := bytes.TrimSpace([]byte(args))
	var v any
	err := json.Unmarshal(trimmed, &v)
	if err == nil {
		if _, ok := v.(map[string]any); ok {
			return ""
		}
		return fmt.Sprintf("must be a JSON object, not %s", jsonKind(v))
	}
	if cutByLimit {
		return "cut off by the reply's max_tokens limit before they were complete; split the work into smaller calls"
	}
	quote := []byte(clipTo(trimmed, argsQuote))
	return fmt.Sprintf("not valid JSON (%v); they began: %s", err, Escape(string(quote)))
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	}
	return "another value"
}

func clipTo(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	r := []rune(string(b[:n]))
	return string(r[:max(0, len(r)-1)]) + "…"
}
