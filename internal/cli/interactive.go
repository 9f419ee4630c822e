package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/trust"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/termtext"
)

// interactive is the line-mode conversation: streamed text, one line per
// tool call, a [y/n] question before any mutating or command tool. Ctrl-C
// cancels the running turn; Ctrl-C twice in a row quits.
func (rt *runtime) interactive(ctx context.Context, first string) error {
	out, errw := rt.sys.Stdout, rt.sys.Stderr
	lines := rt.lines
	// Ctrl-C cancels a turn; SIGTERM and SIGHUP end wisp as /exit does,
	// naming the signal in the transcript's closing record (signals.go).
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, endSignals()...)
	defer signal.Stop(sigs)

	// Model and tool text goes through the screen's filter (package frontend);
	// the question and the prompt start from the state it settles to.
	scr := frontend.NewScreen(out, rt.sys.StdoutTTY)
	rt.approver = terminalApprover(lines, out, scr.Settle)
	rt.frontend = frontend.LineMode(scr, errw)

	fmt.Fprintf(out, "wisp %s · %s · %s\nCtrl-C cancels a turn, twice quits; /exit leaves.\n", Version, frontend.TermLine(rt.choice.Name+"/"+rt.choice.Model, 200), termtext.Clean(rt.sys.Workdir))
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
			case s := <-sigs:
				if isEndSignal(s) {
					fmt.Fprintln(out)
					return rt.endBySignal(s)
				}
				interrupts++
				if interrupts >= 2 {
					fmt.Fprintln(out)
					rt.closeNote = "interrupted"
					return errInterrupted
				}
				fmt.Fprint(out, "\n(press Ctrl-C again to quit)")
				continue
			case l, ok := <-lines:
				if !ok {
					fmt.Fprintln(out)
					rt.closeNote = "end of input"
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
			rt.closeNote = "exit"
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
		scr.Settle()
		if rt.transcriptBroken() {
			// The warning is out; the session ends with this turn.
			return nil
		}
		if why := rt.gate.Failed(); why != "" {
			// The audit log failed (an error event said why): the
			// session ends with this turn, and wisp with exit code 1.
			return fmt.Errorf("%w: %s", errReported, why)
		}
		pending = ""
	}
}

// turn runs one prompt; a Ctrl-C cancels it, and a second one within a
// second quits wisp. SIGTERM or SIGHUP cancels it and ends wisp once the
// turn has wound down (or turnWait has passed). A panic in the turn comes
// back as its error.
func (rt *runtime) turn(ctx context.Context, prompt string, sigs <-chan os.Signal) error {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	goGuarded(done, func() error {
		_, err := rt.agent.Run(tctx, prompt)
		return err
	})
	var cancelledAt time.Time
	for {
		select {
		case err := <-done:
			var pe *panicError
			if errors.As(err, &pe) {
				return err
			}
			if tctx.Err() != nil {
				fmt.Fprintln(rt.sys.Stdout, "\n(turn cancelled)")
			} else if err != nil {
				// Shown already through the error event; the conversation goes on.
				_ = err
			}
			return nil
		case s := <-sigs:
			if isEndSignal(s) {
				cancel()
				select {
				case <-done:
				case <-time.After(turnWait):
				}
				return rt.endBySignal(s)
			}
			if !cancelledAt.IsZero() && time.Since(cancelledAt) < time.Second {
				<-done
				rt.closeNote = "interrupted"
				return errInterrupted
			}
			cancelledAt = time.Now()
			cancel()
		}
	}
}

// showResume tells, on leaving, how to come back to this session: only
// when a transcript is kept, sound, and holds a conversation.
func (rt *runtime) showResume() {
	if rt.session == nil || rt.agent == nil || len(rt.agent.Messages()) == 0 || rt.transcriptBroken() {
		return
	}
	again := "wisp -r " + rt.session.ID()
	if rt.opts.Chdir != "" {
		// Started elsewhere with -C: the shell is still where it was.
		again = "wisp -C " + shellWord(rt.sys.Workdir) + " -r " + rt.session.ID()
	}
	fmt.Fprintf(rt.sys.Stderr, "wisp: to resume this session: %s\n", again)
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
