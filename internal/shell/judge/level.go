package judge

import "fmt"

// Level is how much harm a shell line can do. Levels are ordered: a line is
// as risky as its riskiest part.
type Level int

const (
	// Safe lines only read, or change things inside the workspace in a way
	// that is undone by deleting what they made (a build output).
	Safe Level = iota
	// Moderate lines write files, install packages, run workspace code or
	// reach the network.
	Moderate
	// Dangerous lines destroy data, escalate privileges, send data away,
	// run downloaded code, reach outside the workspace, or cannot be
	// analysed.
	Dangerous
)

var levelNames = [...]string{Safe: "safe", Moderate: "moderate", Dangerous: "dangerous"}

// String returns "safe", "moderate" or "dangerous".
func (l Level) String() string {
	if l >= Safe && l <= Dangerous {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// MarshalText writes the level as its name, so JSON carries a string.
func (l Level) MarshalText() ([]byte, error) {
	if l < Safe || l > Dangerous {
		return nil, fmt.Errorf("marshal level: unknown level %d", int(l))
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText reads a level name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// ParseLevel reads "safe", "moderate" or "dangerous" (for a configured
// threshold, say).
func ParseLevel(s string) (Level, error) {
	for i, n := range levelNames {
		if n == s {
			return Level(i), nil
		}
	}
	return Safe, fmt.Errorf("unknown risk level %q (want safe, moderate or dangerous)", s)
}
