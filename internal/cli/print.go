package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"

	"github.com/wisp-agent/wisp/internal/agent"
	"github.com/wisp-agent/wisp/internal/event"
)

// printMode answers one prompt. Text mode puts only the final answer on
// stdout and a line per tool call, retry or error on stderr; JSON mode
// puts every event on stdout as one JSON line.
func (rt *runtime) printMode(ctx context.Context, prompt string) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if rt.opts.Mode == "json" {
		enc := json.NewEncoder(rt.sys.Stdout)
		enc.SetEscapeHTML(false)
		rt.frontend = func(e event.Event) { _ = enc.Encode(e) }
	} else {
		rt.frontend = progressLines(rt.sys.Stderr)
	}
	final, err := rt.agent.Run(ctx, prompt)
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		if errors.Is(err, agent.ErrMaxIterations) && rt.opts.Mode != "json" {
			if text := strings.TrimSpace(final.TextOf()); text != "" {
				fmt.Fprintln(rt.sys.Stdout, text)
			}
		}
		// The frontend has already shown provider errors as events.
		return fmt.Errorf("%w: %v", errReported, err)
	}
	if rt.opts.Mode != "json" {
		if text := strings.TrimSpace(final.TextOf()); text != "" {
			fmt.Fprintln(rt.sys.Stdout, text)
		}
	}
	return nil
}

// progressLines renders the events a person wants to see on stderr while
// print mode works: one line per tool call, refusals, retries and errors.
func progressLines(w io.Writer) event.Sink {
	return func(e event.Event) {
		switch e.Type {
		case event.ToolCall:
			fmt.Fprintf(w, "• %s %s\n", e.Tool, oneLine(string(e.Args), 160))
		case event.ToolResult:
			if e.IsError {
				fmt.Fprintf(w, "  ✗ %s\n", oneLine(e.Result, 200))
			}
		case event.Retry:
			fmt.Fprintf(w, "wisp: %s; retry %d in %.1fs\n", oneLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
		case event.Error:
			fmt.Fprintf(w, "wisp: error: %s\n", e.Error)
		}
	}
}

// oneLine squeezes text onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
