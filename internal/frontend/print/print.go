// Package print is wisp's print mode and JSON mode: one prompt, answered
// without questions; it renders the session's events and nothing else.
package print

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/host"
)

// Run answers prompt with s. Text mode puts only the final answer on
// stdout and a line per tool call, retry or error on stderr; JSON mode
// (asJSON) puts every event on stdout as one JSON line. chdir is -C's
// folder, for the resume hint.
func Run(ctx context.Context, s *host.Session, sys host.IO, asJSON bool, chdir string, prompt string) error {
	// SIGINT, SIGTERM and SIGHUP cancel the run and end wisp with the
	// session kept (signals.go).
	ctx, ended := frontend.OnEndSignal(ctx)
	defer ended()
	if asJSON {
		defer s.Subscribe(frontend.JSONLines(sys.Stdout))()
	} else {
		defer s.Subscribe(frontend.Progress(sys.Stderr))()
	}
	final, err := s.Prompt(ctx, prompt)
	cancelled := ctx.Err() != nil // before ended(), which cancels ctx
	if sig := ended(); sig != nil {
		frontend.ShowResume(s, chdir, sys)
		return frontend.EndBySignal(s, sig)
	}
	if cancelled {
		frontend.ShowResume(s, chdir, sys)
		return frontend.ErrInterrupted
	}
	if err != nil {
		if errors.Is(err, agent.ErrMaxIterations) && !asJSON {
			if text := strings.TrimSpace(final.TextOf()); text != "" {
				frontend.WriteAnswer(sys.Stdout, sys.StdoutTTY, text)
			}
		}
		// The frontend has already shown provider errors as events.
		return fmt.Errorf("%w: %v", host.ErrReported, err)
	}
	if !asJSON {
		if text := strings.TrimSpace(final.TextOf()); text != "" {
			frontend.WriteAnswer(sys.Stdout, sys.StdoutTTY, text)
		}
	}
	// The gate refused tools because the audit could not be written (an
	// error event said why): the run did not do what was asked.
	if why := s.Failed(); why != "" {
		return fmt.Errorf("%w: %s", host.ErrReported, why)
	}
	return nil
}
