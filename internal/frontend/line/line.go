// Package line is wisp's line-mode conversation on a terminal: streamed
// answers, a line per tool call, the gate's questions, steering while
// a turn runs, and the slash commands.
package line

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/mcp"

	"github.com/wisp-agent/wisp/internal/termtext"
)

// interactive is the line-mode conversation: streamed text, one line per
// tool call, a [y/n] question before any mutating or command tool. Ctrl-C
// cancels the running turn; Ctrl-C twice in a row quits.
// Run is the line-mode conversation on the terminal t, starting with
// first when it is not empty; chdir is -C's folder, for the resume hint.
func Run(ctx context.Context, s *host.Session, t *Terminal, sys host.IO, chdir string, first string) error {
	out, errw := sys.Stdout, sys.Stderr
	lines := t.lines
	// Ctrl-C cancels a turn; SIGTERM and SIGHUP end wisp as /exit does,
	// naming the signal in the transcript's closing record (signals.go).
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, frontend.EndSignals()...)
	defer signal.Stop(sigs)

	// Model and tool text goes through the screen's filter (package frontend);
	// the question and the prompt start from the state it settles to.
	scr := t.screen
	defer s.Subscribe(frontend.LineMode(scr, errw))()

	name, model := s.Provider()
	fmt.Fprintf(out, "wisp %s · %s · %s\nCtrl-C cancels a turn, twice quits; /exit leaves.\n", host.Version, frontend.TermLine(name+"/"+model, 200), termtext.Clean(sys.Workdir))
	if id := s.ID(); id != "" {
		fmt.Fprintf(out, "session %s\n", id)
	}
	pending := first
	interrupts := 0
	for {
		if pending == "" && len(t.later) > 0 {
			// A command typed while the last turn ran: it runs now.
			pending, t.later = t.later[0], t.later[1:]
			fmt.Fprintf(out, "\n› %s\n", pending)
		}
		if pending == "" {
			fmt.Fprint(out, "\n› ")
			select {
			case <-ctx.Done():
				return nil
			case sig := <-sigs:
				if frontend.IsEndSignal(sig) {
					fmt.Fprintln(out)
					return frontend.EndBySignal(s, sig)
				}
				interrupts++
				if interrupts >= 2 {
					fmt.Fprintln(out)
					s.EndWith("interrupted")
					return frontend.ErrInterrupted
				}
				fmt.Fprint(out, "\n(press Ctrl-C again to quit)")
				continue
			case l, ok := <-lines:
				if !ok {
					fmt.Fprintln(out)
					s.EndWith("end of input")
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
			s.EndWith("exit")
			return nil
		case "/init":
			fmt.Fprintln(out, s.InitAgentsMD())
			pending = ""
			continue
		case "/help":
			fmt.Fprintln(out, helpLine)
			pending = ""
			continue
		case "/mcp":
			showMCP(s, out)
			pending = ""
			continue
		}
		if handled, err := compactCommand(ctx, s, sys, pending, sigs); handled {
			if err != nil {
				return err
			}
			pending = ""
			continue
		}
		if strings.HasPrefix(pending, "/followup") {
			fmt.Fprintln(out, "nothing is running: type it as a prompt")
			pending = ""
			continue
		}
		if err := turn(ctx, s, t, sys, pending, sigs); err != nil {
			return err
		}
		scr.Settle()
		if s.TranscriptBroken() {
			// The warning is out; the session ends with this turn.
			return nil
		}
		if why := s.Failed(); why != "" {
			// The audit log failed (an error event said why): the
			// session ends with this turn, and wisp with exit code 1.
			return fmt.Errorf("%w: %s", host.ErrReported, why)
		}
		pending = ""
	}
}

// turn runs one prompt; a Ctrl-C cancels it, and a second one within a
// second quits wisp. SIGTERM or SIGHUP cancels it and ends wisp once the
// turn has wound down (or frontend.TurnWait has passed). A panic in the turn comes
// back as its error.
func turn(ctx context.Context, s *host.Session, t *Terminal, sys host.IO, prompt string, sigs <-chan os.Signal) error {
	lines := t.lines
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	frontend.GoGuarded(done, func() error {
		_, err := s.Prompt(tctx, prompt)
		return err
	})
	var cancelledAt time.Time
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.closed()
				lines = nil
				continue
			}
			if !t.answer(l) {
				whileRunning(s, t, sys, strings.TrimSpace(l))
			}
		case err := <-done:
			var pe *frontend.PanicError
			if errors.As(err, &pe) {
				return err
			}
			if tctx.Err() != nil {
				fmt.Fprintln(sys.Stdout, "\n(turn cancelled)")
			} else if err != nil {
				// Shown already through the error event; the conversation goes on.
				_ = err
			}
			return nil
		case sig := <-sigs:
			if frontend.IsEndSignal(sig) {
				cancel()
				select {
				case <-done:
				case <-time.After(frontend.TurnWait):
				}
				return frontend.EndBySignal(s, sig)
			}
			if !cancelledAt.IsZero() && time.Since(cancelledAt) < time.Second {
				<-done
				s.EndWith("interrupted")
				return frontend.ErrInterrupted
			}
			cancelledAt = time.Now()
			cancel()
		}
	}
}

// helpLine is what /help says.
const helpLine = "/init writes a starter AGENTS.md · /mcp shows your MCP servers · /compact [instructions] replaces the conversation so far with a summary, keeping the latest turn · /exit leaves · Ctrl-C cancels a turn, twice quits\n" +
	"while wisp works: a line you type steers it (sent after the running step) · /followup TEXT runs TEXT once it is done"

// showMCP is /mcp: the session's MCP servers as they are now, one line
// each; nothing is reconnected.
func showMCP(s *host.Session, out io.Writer) {
	list := s.MCPStatus()
	if len(list) == 0 {
		fmt.Fprintln(out, "no MCP servers are configured (mcp_servers in ~/.wisp/settings.json)")
		return
	}
	_ = mcp.WriteStatus(out, list)
}

// maxLater bounds the commands typed during one turn that wait for it.
const maxLater = 100

// whileRunning takes a line typed while a turn runs: /followup TEXT
// queues TEXT to run once the turn is done; other text steers the turn.
func whileRunning(s *host.Session, t *Terminal, sys host.IO, line string) {
	if line == "" {
		return
	}
	t.screen.Settle()
	var err error
	switch text, follow := strings.CutPrefix(line, "/followup"); {
	case follow && strings.TrimSpace(text) == "":
		fmt.Fprintln(sys.Stdout, "(usage: /followup TEXT)")
		return
	case follow:
		if err = s.FollowUp(strings.TrimSpace(text)); err == nil {
			fmt.Fprintln(sys.Stdout, "(queued: runs once this turn is done)")
		}
	case strings.HasPrefix(line, "/"):
		// A command (/exit above all) is kept, not dropped: it runs once
		// the turn and its follow-ups are done.
		if len(t.later) >= maxLater {
			fmt.Fprintf(sys.Stdout, "(not queued: %d commands already wait for this turn)\n", maxLater)
			return
		}
		t.later = append(t.later, line)
		fmt.Fprintln(sys.Stdout, "(command: runs once this turn is done; Ctrl-C cancels the turn)")
		return
	default:
		if err = s.Steer(line); err == nil {
			fmt.Fprintln(sys.Stdout, "(steering: sent to the model after the running step)")
		}
	}
	if err != nil {
		fmt.Fprintf(sys.Stdout, "(not queued: %v)\n", err)
	}
}
