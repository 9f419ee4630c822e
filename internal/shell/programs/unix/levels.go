package unix

import "github.com/wisp-agent/wisp/internal/shell/judge"

// The three levels, by the short names every judgement uses.
const (
	Safe      = judge.Safe
	Moderate  = judge.Moderate
	Dangerous = judge.Dangerous
)
