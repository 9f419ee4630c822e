package trust

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
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

// Question is what wisp asks in an undecided project.
func Question(project string) string {
	return fmt.Sprintf("Do you trust the files in %s?", project)
}

// explanation tells the user what the answer changes.
const explanation = "Trusting a project lets wisp load its .wisp/settings.json, AGENTS.md/CLAUDE.md and skills. Untrusted, wisp still works but ignores them."

// ErrNoAnswer is returned by Ask when the input ends before an answer.
var ErrNoAnswer = errors.New("no answer to the trust question")

// Ask puts the trust question for path to the user, one line of in at a
// time: y or yes trusts, n, no or an empty line does not; anything else
// asks again. It ends with the context's error when ctx is done and with
// ErrNoAnswer when in closes, and then the project is not trusted.
func Ask(ctx context.Context, in <-chan string, out io.Writer, path string) (bool, error) {
	if _, err := fmt.Fprintf(out, "%s\n%s [y/n] ", explanation, Question(path)); err != nil {
		return false, fmt.Errorf("ask about trust: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case line, ok := <-in:
			if !ok {
				return false, ErrNoAnswer
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return true, nil
			case "n", "no", "":
				return false, nil
			}
			if _, err := fmt.Fprintf(out, "Please answer y or n. %s [y/n] ", Question(path)); err != nil {
				return false, fmt.Errorf("ask about trust: %w", err)
			}
		}
	}
}

// Settle turns an undecided decision into a final one. Without a person
// to ask (in is nil: print mode, JSON mode, RPC, CI) the project is
// untrusted and nothing is stored. Otherwise the user is asked and the
// answer is remembered in s. A decided d comes back unchanged. On an
// error the project is untrusted; a failed write to the store still
// returns the user's answer alongside the error.
func Settle(ctx context.Context, d Decision, s *Store, project string, in <-chan string, out io.Writer) (Decision, error) {
	if d.Status != Undecided {
		return d, nil
	}
	if in == nil {
		return Decision{Status: Undecided}, nil
	}
	ok, err := Ask(ctx, in, out, project)
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
