package shell

import "github.com/wisp-agent/wisp/internal/shell/judge"

// Level is how risky a command is: the gate, the policy and the audit
// speak of it.
type Level = judge.Level

// The levels, least risky first.
const (
	Safe      = judge.Safe
	Moderate  = judge.Moderate
	Dangerous = judge.Dangerous
)

// ParseLevel reads a level as settings spell it.
func ParseLevel(s string) (Level, error) { return judge.ParseLevel(s) }
