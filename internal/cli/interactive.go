package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/trust"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wisp-agent/wisp/internal/event"
)

// interactive is the line-mode conversation: streamed text, one line per
// tool call, a [y/n] question before any mutating or command tool. Ctrl-C
// cancels the running turn; Ctrl-C twice in a row quits.
func (rt *runtime) interactive(ctx context.Context, first string) error {
	out, errw := rt.sys.Stdout, rt.sys.Stderr
	lines := rt.lines
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT)
	defer signal.Stop(sigs)

	rt.approver = terminalApprover(lines, out)
	midLine := false
	rt.frontend = func(e event.Event) {
		switch e.Type {
		case event.MessageDelta:
			fmt.Fprint(out, e.Delta)
			midLine = !strings.HasSuffix(e.Delta, "\n")
		case event.ToolCall:
			if midLine {
				fmt.Fprintln(out)
				midLine = false
			}
			fmt.Fprintf(out, "• %s %s\n", e.Tool, oneLine(string(e.Args), 160))
		case event.ToolResult:
			if e.IsError {
				fmt.Fprintf(out, "  ✗ %s\n", oneLine(e.Result, 200))
			} else {
				fmt.Fprintf(out, "  ↳ %s\n", resultSummary(e.Result))
			}
		case event.Retry:
			fmt.Fprintf(errw, "wisp: %s; retry %d in %.1fs\n", oneLine(e.Error, 200), e.Attempt, float64(e.DelayMS)/1000)
		case event.Error:
			fmt.Fprintf(errw, "wisp: error: %s\n", e.Error)
		}
	}

	fmt.Fprintf(out, "wisp %s · %s/%s · %s\nCtrl-C cancels a turn, twice quits; /exit leaves.\n", Version, rt.choice.Name, rt.choice.Model, rt.sys.Workdir)
	if rt.session != nil {
		fmt.Fprintf(out, "session %s\n", rt.session.ID())
	}
	pending := first
	interrupts := 0
	for {
		if pending == "" {
			fmt.Fprint(out, "\n› ")
			select {
			case <-ctx.Done():
				return nil
			case <-sigs:
				interrupts++
				if interrupts >= 2 {
					fmt.Fprintln(out)
					return errInterrupted
				}
				fmt.Fprint(out, "\n(press Ctrl-C again to quit)")
				continue
			case l, ok := <-lines:
				if !ok {
					fmt.Fprintln(out)
					return nil
				}
				pending = strings.TrimSpace(l)
			}
			if pending == "" {
				continue
			}
		}
		interrupts = 0
		switch pending {
		case "/exit", "/quit":
			return nil
		case "/init":
			fmt.Fprintln(out, rt.initAgentsMD())
			pending = ""
			continue
		case "/help":
			fmt.Fprintln(out, "/init writes a starter AGENTS.md · /exit leaves · Ctrl-C cancels a turn, twice quits")
			pending = ""
			continue
		}
		if err := rt.turn(ctx, pending, sigs); err != nil {
			return err
		}
		if midLine {
			fmt.Fprintln(out)
			midLine = false
		}
		pending = ""
	}
}

// turn runs one prompt; a Ctrl-C cancels it, and a second one within a
// second quits wisp.
func (rt *runtime) turn(ctx context.Context, prompt string, sigs <-chan os.Signal) error {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := rt.agent.Run(tctx, prompt)
		done <- err
	}()
	var cancelledAt time.Time
	for {
		select {
		case err := <-done:
			if tctx.Err() != nil {
				fmt.Fprintln(rt.sys.Stdout, "\n(turn cancelled)")
			} else if err != nil {
				// Shown already through the error event; the conversation goes on.
				_ = err
			}
			return nil
		case <-sigs:
			if !cancelledAt.IsZero() && time.Since(cancelledAt) < time.Second {
				<-done
				return errInterrupted
			}
			cancelledAt = time.Now()
			cancel()
		}
	}
}

// initAgentsMD writes a starter AGENTS.md at the project root, never over
// an existing one.
func (rt *runtime) initAgentsMD() string {
	root := rt.project.root
	path := filepath.Join(root, "AGENTS.md")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Sprintf("%s already exists; edit it to change what wisp is told about this project", path)
	}
	if err != nil {
		return fmt.Sprintf("could not write %s: %v", path, err)
	}
	_, err = f.WriteString(trust.StarterAgentsMD(root))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Sprintf("could not write %s: %v", path, err)
	}
	note := ""
	if !rt.project.decision.Trusted {
		note = " (this project is not trusted, so wisp will not read it until you run: wisp trust allow)"
	}
	return fmt.Sprintf("wrote %s: fill it in; wisp reads it at the start of every session%s", path, note)
}

// resultSummary is one line about a tool result for the person watching:
// its first line and how long it is. The model gets the whole result.
func resultSummary(r string) string {
	r = strings.TrimRight(r, "\n")
	if r == "" {
		return "(empty)"
	}
	lines := strings.Count(r, "\n") + 1
	head, _, _ := strings.Cut(r, "\n")
	if lines == 1 {
		return oneLine(head, 100)
	}
	return fmt.Sprintf("%s … (%d lines)", oneLine(head, 80), lines)
}
