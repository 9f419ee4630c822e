package cli

import (
	"os"

	"golang.org/x/term"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// needsTerminal refuses an interactive run whose stdout is not a
// terminal (`wisp > out.txt` typed at a prompt): its approval questions
// would go where nobody reads them while wisp waits for an answer.
func needsTerminal(interactive bool, sys IO) error {
	if !interactive || sys.StdoutTTY {
		return nil
	}
	return usagef("interactive mode needs a terminal on stdout, where it asks before running tools, and stdout is not one; for one answer on stdout use print mode: wisp -p \"PROMPT\"")
}
