package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/approval"
	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/gate"
	"github.com/wisp-agent/wisp/internal/host"
	"github.com/wisp-agent/wisp/internal/wisps"
)

const runUsage = "usage: wisp run FILE [--json] [--yes] [--provider NAME] [--model NAME]"

// runHelp is `wisp help run`.
const runHelp = `Usage: wisp run FILE [--json] [--yes] [--provider NAME] [--model NAME]

Runs wisp definitions (docs/wisps.md) without the agent loop: one
definition, an array of them, or {"definitions": [...]}, as JSON or YAML
(FILE - reads stdin). Everything that can be checked is checked before
anything runs. Progress goes to stderr, the batch summary to stdout. A
batch without Llm steps needs no model or API key.

Every step's call goes through the gate as in print mode: a call below
approval.threshold runs, one the gate would ask about needs --yes (on a
terminal you are asked instead). web_browse, web_search and invoke_agent
reach the network and are always asked about.

  --json            the batch's counts, each wisp's record and output
  --yes             approve what the gate would ask about (deny rules win)
  --provider NAME   the provider of Llm steps
  --model NAME      the model of Llm steps

Exit status: 0 when every wisp succeeded, 1 otherwise, 2 for a Structural
error found before anything ran.
`

type runFlags struct {
	file, provider, model string
	json, yes             bool
}

func parseRunFlags(args []string) (runFlags, error) {
	var f runFlags
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--json":
			f.json = true
		case a == "--yes" || a == "-y" || a == "--allow-unsafe-tool-execution":
			f.yes = true
		case (a == "--provider" || a == "--model") && i+1 < len(args):
			i++
			if a == "--provider" {
				f.provider = args[i]
			} else {
				f.model = args[i]
			}
		case strings.HasPrefix(a, "-") && a != "-":
			return f, usagef("wisp run: unknown flag %s (%s)", a, runUsage)
		case f.file == "":
			f.file = a
		default:
			return f, usagef("wisp run: one definition file at a time (%s)", runUsage)
		}
	}
	if f.file == "" {
		return f, usagef("wisp run: no definition file (%s)", runUsage)
	}
	return f, nil
}

// cmdRun runs one definition or a batch from a file without the agent
// loop: progress on stderr, the summary on stdout. Approval is print
// mode's, except that on a terminal the person is asked. Exit 0 when every wisp
// succeeded, 1 otherwise, 2 for a Structural error found before anything
// ran.
func cmdRun(ctx context.Context, args []string, sys IO) error {
	f, err := parseRunFlags(args)
	if err != nil {
		return err
	}
	data, err := readDefinitions(f.file, sys)
	if err != nil {
		return err
	}
	defs, err := wisps.ParseFile(data)
	if err != nil {
		return usagef("%s: %v", f.file, err)
	}
	s, err := openWispSession(ctx, f, defs, sys)
	if err != nil {
		return err
	}
	defer s.Close()
	plans, err := s.PrepareWisps(defs)
	if err != nil {
		return usagef("%s: %v", f.file, err)
	}
	b, err := s.RunWisps(ctx, plans, progress(sys))
	if err != nil {
		return err
	}
	if f.json {
		err = writeBatchJSON(sys, b)
	} else {
		_, err = fmt.Fprint(sys.Stdout, b.Text())
	}
	if err != nil {
		return err
	}
	switch {
	case ctx.Err() != nil:
		// The summary above keeps what ran before the interrupt.
		return errInterrupted
	case b.Failed():
		return errReported
	}
	return nil
}

func readDefinitions(file string, sys IO) ([]byte, error) {
	if file == "-" {
		if sys.Stdin == nil {
			return nil, usagef("wisp run: - reads the definitions from stdin, and there is none")
		}
		data, err := io.ReadAll(sys.Stdin)
		if err != nil {
			return nil, fmt.Errorf("read the wisp definitions from stdin: %w", err)
		}
		return data, nil
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(sys.Workdir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the wisp definitions: %w", err)
	}
	return data, nil
}

// openWispSession opens the session the wisps run in, approving as print mode
// does. A batch with no LLM step never asks a model, so when no provider
// can be opened (no API key) it runs with the offline fake provider,
// which needs none and is never asked.
func openWispSession(ctx context.Context, f runFlags, defs []wisps.Definition, sys IO) (*host.Session, error) {
	o := host.Options{Yes: f.yes, MaxToolIters: -1, NoSession: true, Provider: f.provider, Model: f.model}
	fe := host.Frontend{Mode: "print"}
	if !f.yes && sys.StdinTTY && sys.StderrTTY && f.file != "-" {
		// On a terminal the person is asked instead of being refused.
		fe.Approver = runAsker(sys)
	}
	s, err := host.New(ctx, o, sys, fe)
	if err == nil || usesModel(defs) {
		return s, err
	}
	var ue *UsageError
	var me *config.MalformedError
	if errors.As(err, &ue) || errors.As(err, &me) || f.provider != "" {
		return nil, err
	}
	o.Provider, o.Model = "fake", ""
	if s, ferr := host.New(ctx, o, sys, fe); ferr == nil {
		return s, nil
	}
	return nil, err
}

func usesModel(defs []wisps.Definition) bool {
	for _, d := range defs {
		for _, st := range d.Steps {
			if st.Mode == wisps.Llm {
				return true
			}
		}
	}
	return false
}

// progress reports each step on stderr: a live line on a terminal, a
// line per finished step otherwise.
func progress(sys IO) func(wisps.StepEvent) {
	var mu sync.Mutex
	return func(e wisps.StepEvent) {
		mu.Lock()
		defer mu.Unlock()
		head := fmt.Sprintf("wisp: %s [%d/%d] %s", e.WispID, e.Index+1, e.Total, e.Step)
		if e.Result == nil {
			if sys.StderrTTY {
				fmt.Fprintf(sys.Stderr, "\r\033[K%s …", head)
			}
			return
		}
		r := e.Result
		line := fmt.Sprintf("%s %s (%dms)", head, r.Status, r.DurationMS)
		if r.Error != "" {
			line += fmt.Sprintf(" [%s] %s", r.Category, firstLine(r.Error))
		}
		if sys.StderrTTY {
			fmt.Fprintf(sys.Stderr, "\r\033[K%s\n", line)
			return
		}
		fmt.Fprintln(sys.Stderr, line)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// writeBatchJSON prints the batch as one JSON object: its counts and
// each wisp's execution record with its output.
func writeBatchJSON(sys IO, b *wisps.Batch) error {
	type wispOut struct {
		wisps.Record
		Output string `json:"Output"`
	}
	c := b.Counts()
	out := struct {
		BatchID      string    `json:"BatchId"`
		Succeeded    int       `json:"Succeeded"`
		Failed       int       `json:"Failed"`
		Writes       int       `json:"Writes"`
		WritesFailed int       `json:"WritesFailed"`
		DurationMS   int64     `json:"DurationMs"`
		Wisps        []wispOut `json:"Wisps"`
	}{BatchID: b.ID, Succeeded: c.Succeeded, Failed: c.Failed, Writes: c.Writes, WritesFailed: c.WritesFailed, DurationMS: b.Duration.Milliseconds()}
	for _, r := range b.Results {
		rec := wisps.NewRecord(r, "")
		rec.Definition = nil
		out.Wisps = append(out.Wisps, wispOut{Record: rec, Output: r.Output})
	}
	enc := json.NewEncoder(sys.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// runAsker puts the gate's questions to the person at the terminal, one
// at a time (wisps run concurrently), and reads y or n from stdin. Any
// other answer, the end of input or a cancelled run is a no.
func runAsker(sys IO) gate.Approver {
	var mu sync.Mutex
	var start sync.Once
	lines := make(chan string)
	// stdin is read only once there is a question, and until it ends:
	// the reader lives as long as the process's input.
	read := func() {
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(sys.Stdin)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
	}
	return gate.ApproverFunc(func(ctx context.Context, r gate.Request) (gate.Answer, error) {
		mu.Lock()
		defer mu.Unlock()
		start.Do(read)
		what := r.Subject
		if r.Part != "" && r.Part != r.Subject {
			what += " (asking about: " + r.Part + ")"
		}
		fmt.Fprintf(sys.Stderr, "\nwisp: %s wants to run: %s\n", r.Tool, what)
		if len(r.Reasons) > 0 {
			fmt.Fprintf(sys.Stderr, "  because: %s\n", strings.Join(r.Reasons, "; "))
		}
		fmt.Fprint(sys.Stderr, "  allow? [y/N] ")
		select {
		case line, ok := <-lines:
			if ok && strings.EqualFold(strings.TrimSpace(line), "y") {
				return gate.Answer{Allow: true, Scope: approval.ScopeOnce}, nil
			}
			return gate.Answer{Allow: false, Reason: "not approved at the terminal"}, nil
		case <-ctx.Done():
			return gate.Answer{Allow: false, Reason: "cancelled"}, nil
		}
	})
}
