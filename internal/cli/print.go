package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/frontend"
)

// printMode answers one prompt. Text mode puts only the final answer on
// stdout and a line per tool call, retry or error on stderr; JSON mode
// puts every event on stdout as one JSON line.
func (rt *runtime) printMode(ctx context.Context, prompt string) error {
	// SIGINT, SIGTERM and SIGHUP cancel the run and end wisp with the
	// session kept (signals.go).
	ctx, ended := onEndSignal(ctx)
	defer ended()
	if rt.opts.Mode == "json" {
		rt.frontend = frontend.JSONLines(rt.sys.Stdout)
	} else {
		rt.frontend = frontend.Progress(rt.sys.Stderr)
	}
	final, err := rt.agent.Run(ctx, prompt)
	cancelled := ctx.Err() != nil // before ended(), which cancels ctx
	if s := ended(); s != nil {
		rt.showResume()
		return rt.endBySignal(s)
	}
	if cancelled {
		rt.showResume()
		return errInterrupted
	}
	if err != nil {
		if errors.Is(err, agent.ErrMaxIterations) && rt.opts.Mode != "json" {
			if text := strings.TrimSpace(final.TextOf()); text != "" {
				frontend.WriteAnswer(rt.sys.Stdout, rt.sys.StdoutTTY, text)
			}
		}
		// The frontend has already shown provider errors as events.
		return fmt.Errorf("%w: %v", errReported, err)
	}
	if rt.opts.Mode != "json" {
		if text := strings.TrimSpace(final.TextOf()); text != "" {
			frontend.WriteAnswer(rt.sys.Stdout, rt.sys.StdoutTTY, text)
		}
	}
	// The gate refused tools because the audit could not be written (an
	// error event said why): the run did not do what was asked.
	if why := rt.gate.Failed(); why != "" {
		return fmt.Errorf("%w: %s", errReported, why)
	}
	return nil
}
