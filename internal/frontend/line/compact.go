package line

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/host"
)

// compactCommand is interactive mode's "/compact [instructions]": the
// session's conversation is replaced by a summary and the latest turn.
// Ctrl-C cancels it; SIGTERM or SIGHUP cancels it and ends wisp. handled
// is false when line is not the command.
func compactCommand(ctx context.Context, s *host.Session, sys host.IO, line string, sigs <-chan os.Signal) (handled bool, err error) {
	rest, ok := strings.CutPrefix(line, "/compact")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return false, nil
	}
	fmt.Fprintln(sys.Stdout, "compacting the conversation…")
	done := make(chan error, 1)
	frontend.GoGuarded(done, func() error { return s.Compact(ctx, strings.TrimSpace(rest)) })
	for {
		select {
		case err := <-done:
			var pe *frontend.PanicError
			switch {
			case errors.As(err, &pe):
				return true, err
			case errors.Is(err, context.Canceled):
				fmt.Fprintln(sys.Stdout, "(compaction cancelled; the conversation is as it was)")
			case err != nil:
				fmt.Fprintf(sys.Stdout, "could not compact: %v\n", err)
			}
			// On success the session said on stderr what it kept.
			return true, nil
		case sig := <-sigs:
			s.Cancel()
			if frontend.IsEndSignal(sig) {
				<-done
				return true, frontend.EndBySignal(s, sig)
			}
		}
	}
}
