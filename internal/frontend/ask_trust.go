package frontend

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/wisp-agent/wisp/internal/trust"
)

// explanation tells the user what the answer changes.
const explanation = "Trusting a project lets wisp load its .wisp/settings.json, AGENTS.md/CLAUDE.md and skills. Untrusted, wisp still works but ignores them."

// AskTrust puts the trust question for path to the user, one line of in at a
// time: y or yes trusts, n, no or an empty line does not; anything else
// asks again. It ends with the context's error when ctx is done and with
// trust.ErrNoAnswer when in closes, and then the project is not trusted.
func AskTrust(ctx context.Context, in <-chan string, out io.Writer, path string) (bool, error) {
	if _, err := fmt.Fprintf(out, "%s\n%s [y/n] ", explanation, trust.Question(path)); err != nil {
		return false, fmt.Errorf("ask about trust: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case line, ok := <-in:
			if !ok {
				return false, trust.ErrNoAnswer
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return true, nil
			case "n", "no", "":
				return false, nil
			}
			if _, err := fmt.Fprintf(out, "Please answer y or n. %s [y/n] ", trust.Question(path)); err != nil {
				return false, fmt.Errorf("ask about trust: %w", err)
			}
		}
	}
}
