// Package approval holds wisp's remembered approvals: the threshold that
// decides which risk levels are asked about, the pattern an answer is
// remembered by, the store of remembered answers (in memory for the
// session scope, in ~/.wisp/approvals.json for project and always), and
// the `wisp approvals` command. The terminal question is a frontend's
// (frontend.AskApproval).
//
// It must never widen what a person said: a denial is not remembered, a
// once answer covers only the call it answered, a dangerous verdict is
// never remembered at all, an entry covers only the pattern and the risk
// level it was given for, and anything it cannot read or decide means
// "ask again", never "allow". It never imports a frontend and never runs
// anything.
package approval

import (
	"fmt"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/shell"
)

// DefaultTimeout is how long a question waits for an answer when
// approval.timeoutSeconds is not set; no answer in time is a denial.
const DefaultTimeout = 600 * time.Second

// Threshold is the approval.threshold setting: the lowest risk level that
// is asked about. Its zero value asks about everything, so a threshold that
// was never set fails closed.
type Threshold int

const (
	// ThresholdSafe asks about every command, safe ones included.
	ThresholdSafe Threshold = iota
	// ThresholdModerate asks about moderate and dangerous commands (the
	// default).
	ThresholdModerate
	// ThresholdDangerous asks only about dangerous commands.
	ThresholdDangerous
	// ThresholdNever never asks: whatever the policy does not deny runs.
	ThresholdNever
)

// DefaultThreshold is used when approval.threshold is not set.
const DefaultThreshold = ThresholdModerate

var thresholdNames = [...]string{
	ThresholdSafe:      "safe",
	ThresholdModerate:  "moderate",
	ThresholdDangerous: "dangerous",
	ThresholdNever:     "never",
}

// ParseThreshold reads an approval.threshold value: safe, moderate,
// dangerous or never. The empty string is the default, moderate.
func ParseThreshold(s string) (Threshold, error) {
	if s == "" {
		return DefaultThreshold, nil
	}
	for i, n := range thresholdNames {
		if n == s {
			return Threshold(i), nil
		}
	}
	return ThresholdSafe, fmt.Errorf("unknown approval.threshold %q (want safe, moderate, dangerous or never)", s)
}

// String returns the setting's name.
func (t Threshold) String() string {
	if t >= ThresholdSafe && t <= ThresholdNever {
		return thresholdNames[t]
	}
	return fmt.Sprintf("Threshold(%d)", int(t))
}

// MarshalText writes the threshold as its name.
func (t Threshold) MarshalText() ([]byte, error) {
	if t < ThresholdSafe || t > ThresholdNever {
		return nil, fmt.Errorf("marshal approval threshold: unknown value %d", int(t))
	}
	return []byte(thresholdNames[t]), nil
}

// UnmarshalText reads a threshold name (see ParseThreshold).
func (t *Threshold) UnmarshalText(b []byte) error {
	v, err := ParseThreshold(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Asks reports whether a command of the given risk level must be approved
// by a person. A level or threshold outside the known range asks.
func (t Threshold) Asks(level shell.Level) bool {
	if !validLevel(level) {
		return t != ThresholdNever
	}
	switch t {
	case ThresholdNever:
		return false
	case ThresholdDangerous:
		return level >= shell.Dangerous
	case ThresholdModerate:
		return level >= shell.Moderate
	default:
		return true
	}
}

func validLevel(l shell.Level) bool { return l >= shell.Safe && l <= shell.Dangerous }

// Scope is how long an approval is remembered.
type Scope string

const (
	// ScopeOnce approves the one call it answers and is never kept.
	ScopeOnce Scope = "once"
	// ScopeSession lasts as long as this wisp process.
	ScopeSession Scope = "session"
	// ScopeProject lasts Lifetime, in the project folder it was given in.
	ScopeProject Scope = "project"
	// ScopeAlways lasts Lifetime, in any folder.
	ScopeAlways Scope = "always"
)

// Lifetime is how long a project or always approval lasts.
const Lifetime = 30 * 24 * time.Hour

// Persisted reports whether approvals of this scope are written to the
// approvals file.
func (s Scope) Persisted() bool { return s == ScopeProject || s == ScopeAlways }

func (s Scope) valid() bool {
	switch s {
	case ScopeOnce, ScopeSession, ScopeProject, ScopeAlways:
		return true
	}
	return false
}

// rank orders scopes narrowest first, for lookups and listings.
func (s Scope) rank() int {
	switch s {
	case ScopeOnce:
		return 0
	case ScopeSession:
		return 1
	case ScopeProject:
		return 2
	default:
		return 3
	}
}

// verbPrograms are the programs whose subcommand changes what they do so
// much that approving one subcommand must not approve the others
// (git status is not git push). For make the verb is the first target.
var verbPrograms = map[string]bool{
	"git": true, "go": true, "npm": true, "npx": true, "pnpm": true, "yarn": true,
	"cargo": true, "docker": true, "kubectl": true, "make": true, "pip": true,
	"uv": true, "apt": true, "apt-get": true, "brew": true, "systemctl": true,
	"gh": true, "terraform": true, "helm": true,
}

// Pattern is what an answer about one simple command is remembered by: the
// program, plus the verb for programs whose verbs differ in kind (git push,
// go test, make build, uv pip install). program and verb are as the
// classifier reports them (shell.Part.Program and shell.Part.Verb). An
// empty program gives the empty pattern, which the store refuses to
// remember.
func Pattern(program, verb string) string {
	program = strings.TrimSpace(program)
	if program == "" {
		return ""
	}
	verb = strings.Join(strings.Fields(verb), " ")
	if verb == "" || !verbPrograms[program] {
		return program
	}
	return program + " " + verb
}

// ToolPattern is the pattern for a tool that is not a shell command
// (write, edit, an MCP tool): the tool's name, as "tool:write".
func ToolPattern(tool string) string {
	tool = strings.TrimSpace(tool)
	if tool == "" {
		return ""
	}
	return "tool:" + tool
}
