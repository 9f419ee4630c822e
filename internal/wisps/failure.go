package wisps

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Category classifies a failure, as the harness decides it.
type Category string

const (
	Structural Category = "Structural" // the definition is wrong: a skill bug
	External   Category = "External"   // the world failed: transient
	Judgment   Category = "Judgment"   // a decision went wrong, or a person said no
	Data       Category = "Data"       // the data was not what the wisp assumed
)

// Error is a failure with its category; Step and Field name where a
// Structural error was found.
type Error struct {
	Category Category
	// Definition is the 1-based position in a batch (0: a lone wisp).
	Definition int
	Step       string
	Field      string
	Msg        string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Definition > 0 {
		fmt.Fprintf(&b, "definition %d: ", e.Definition)
	}
	if e.Step != "" {
		fmt.Fprintf(&b, "step %q: ", e.Step)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func structural(step, field, format string, args ...any) *Error {
	return &Error{Category: Structural, Step: step, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// IsStructural says err is a Structural error.
func IsStructural(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Category == Structural
}

// Classification keywords, checked in order; the first match decides.
var classes = []struct {
	cat   Category
	words []string
}{
	{Structural, []string{"unknown tool", "no such tool", "not served", "missing required", "required parameter", "invalid argument", "invalid params", "malformed arguments", "unknown parameter", "unexpected argument", "is required", "not configured"}},
	{External, []string{"timeout", "timed out", "deadline", "unavailable", "rate limit", "too many requests", "connection", "econnrefused", "network", "temporarily", "503", "502", "504", "429", "server error", "killed", "cancelled", "canceled"}},
	{Data, []string{"not found", "no such file", "enoent", "does not exist", "empty", "invalid json", "not valid json", "parse", "unexpected", "schema", "format", "not an array", "mismatch"}},
}

// Classify decides the category of a failed call from what it said.
// A refusal by the gate is a Judgment: a person or a policy said no. What
// matches nothing is External: the tool was called as written and the
// world did not cooperate.
func Classify(refused bool, text string, err error) Category {
	if refused {
		return Judgment
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return External
		}
		text += " " + err.Error()
	}
	low := strings.ToLower(text)
	for _, c := range classes {
		for _, w := range c.words {
			if strings.Contains(low, w) {
				return c.cat
			}
		}
	}
	return External
}
