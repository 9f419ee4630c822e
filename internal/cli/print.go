package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/host"
)

// printMode answers one prompt. Text mode puts only the final answer on
// stdout and a line per tool call, retry or error on stderr; JSON mode
// puts every event on stdout as one JSON line.
func printMode(ctx context.Context, s *host.Session, o Options, sys IO, prompt string) error {
	// SIGINT, SIGTERM and SIGHUP cancel the run and end wisp with the
	// session kept (signals.go).
	ctx, ended := onEndSignal(ctx)
	defer ended()
	if o.Mode == "json" {
		defer s.Subscribe(frontend.JSONLines(sys.Stdout))()
	} else {
		defer s.Subscribe(frontend.Progress(sys.Stderr))()
	}
	final, err := s.Prompt(ctx, prompt)
	cancelled := ctx.Err() != nil // before ended(), which cancels ctx
	if sig := ended(); sig != nil {
		showResume(s, o, sys)
		return endBySignal(s, sig)
	}
	if cancelled {
		showResume(s, o, sys)
		return errInterrupted
	}
	if err != nil {
		if errors.Is(err, agent.ErrMaxIterations) && o.Mode != "json" {
			if text := strings.TrimSpace(final.TextOf()); text != "" {
				frontend.WriteAnswer(sys.Stdout, sys.StdoutTTY, text)
			}
		}
		// The frontend has already shown provider errors as events.
		return fmt.Errorf("%w: %v", errReported, err)
	}
	if o.Mode != "json" {
		if text := strings.TrimSpace(final.TextOf()); text != "" {
			frontend.WriteAnswer(sys.Stdout, sys.StdoutTTY, text)
		}
	}
	// The gate refused tools because the audit could not be written (an
	// error event said why): the run did not do what was asked.
	if why := s.Failed(); why != "" {
		return fmt.Errorf("%w: %s", errReported, why)
	}
	return nil
}
