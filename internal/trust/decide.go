package trust

import (
	"context"
	"errors"
	"fmt"
)

// Where a decision came from.
const (
	SourceEnv    = "env"    // WISP_TRUST, for this process only
	SourceStore  = "store"  // the trust store
	SourcePrompt = "prompt" // the user's answer just now
	SourceNone   = ""       // nothing decided
)

// Decision is whether a project is trusted, and why.
type Decision struct {
	Trusted bool
	Status  Status
	Source  string
}

// Decide reads the decision for project: WISP_TRUST (envValue, which the
// caller must take from the real process environment) first, then the
// store. With neither, the Status is Undecided and Trusted is false: a
// caller that cannot ask treats the project as untrusted. A WISP_TRUST
// other than 1 or 0, and a store that cannot be read, come back as a
// warning; the latter also makes the project untrusted.
func Decide(envValue string, s *Store, project string) (Decision, string) {
	var warn string
	switch envValue {
	case "1":
		return Decision{Trusted: true, Status: Trusted, Source: SourceEnv}, ""
	case "0":
		return Decision{Status: Untrusted, Source: SourceEnv}, ""
	case "":
	default:
		warn = fmt.Sprintf("WISP_TRUST=%q ignored: use WISP_TRUST=1 or WISP_TRUST=0", envValue)
	}
	if s == nil {
		return Decision{Status: Undecided}, warn
	}
	st, err := s.Status(project)
	if err != nil {
		return Decision{Status: Untrusted, Source: SourceStore}, joinWarn(warn, err.Error()+"; treating the project as untrusted")
	}
	return Decision{Trusted: st == Trusted, Status: st, Source: sourceOf(st)}, warn
}

func sourceOf(st Status) string {
	if st == Undecided {
		return SourceNone
	}
	return SourceStore
}

func joinWarn(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// ErrNoAnswer is returned when the input ends before an answer.
var ErrNoAnswer = errors.New("no answer to the trust question")

// Question is what wisp asks in an undecided project.
func Question(project string) string {
	return fmt.Sprintf("Do you trust the files in %s?", project)
}

// Asker puts the trust question for a project to a person: a frontend's
// job (the terminal's is frontend.AskTrust).
type Asker func(ctx context.Context, project string) (bool, error)

// Settle turns an undecided decision into a final one. Without a person
// to ask (ask is nil: print mode, JSON mode, RPC, CI) the project is
// untrusted and nothing is stored. Otherwise the user is asked and the
// answer is remembered in s. A decided d comes back unchanged. On an
// error the project is untrusted; a failed write to the store still
// returns the user's answer alongside the error.
func Settle(ctx context.Context, d Decision, s *Store, project string, ask Asker) (Decision, error) {
	if d.Status != Undecided {
		return d, nil
	}
	if ask == nil {
		return Decision{Status: Undecided}, nil
	}
	ok, err := ask(ctx, project)
	if err != nil {
		return Decision{Status: Undecided}, err
	}
	d = Decision{Trusted: ok, Status: Untrusted, Source: SourcePrompt}
	if ok {
		d.Status = Trusted
	}
	if s != nil {
		if err := s.Set(project, ok); err != nil {
			return d, fmt.Errorf("remember trust decision: %w", err)
		}
	}
	return d, nil
}
