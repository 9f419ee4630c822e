package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/frontend"
	"github.com/wisp-agent/wisp/internal/frontend/tui/render"
)

// foldLines is how many lines of a call's output a folded card shows.
const foldLines = 6

// card is one tool call as the screen shows it.
type card struct {
	id, tool, class string
	args            string
	// asked is the classifier's level when the gate asked a person;
	// verdict is the gate's answer (approved, denied: WHY, auto).
	asked, reasons, verdict string
	running, done           bool
	started                 time.Time
	elapsed                 time.Duration
	result, mark            string
	isError, refused        bool
}

// callArgs are the arguments the cards know how to show; the rest are
// shown as the JSON they came in.
type callArgs struct {
	Command *string `json:"command"`
	Path    *string `json:"path"`
	Pattern *string `json:"pattern"`
	Content *string `json:"content"`
	OldText *string `json:"old_text"`
	NewText *string `json:"new_text"`
	Edits   []struct {
		OldText string `json:"old_text"`
		NewText string `json:"new_text"`
	} `json:"edits"`
}

func (c *card) parsed() callArgs {
	var a callArgs
	_ = json.Unmarshal([]byte(c.args), &a)
	return a
}

// short is the call's arguments on one line: the command, the path, or
// the JSON squeezed.
func (c *card) short() string {
	a := c.parsed()
	switch {
	case a.Command != nil:
		return "$ " + frontend.OneLine(*a.Command, 400)
	case a.Path != nil && a.Pattern != nil:
		return frontend.OneLine(*a.Pattern+" in "+*a.Path, 400)
	case a.Path != nil:
		return frontend.OneLine(*a.Path, 400)
	case a.Pattern != nil:
		return frontend.OneLine(*a.Pattern, 400)
	}
	return frontend.OneLine(c.args, 400)
}

// render draws the card in lines of at most width cells; frame is the
// spinner's current frame, now the clock for a running call's time.
func (c *card) render(width int, st *styles, expanded bool, frame string, now time.Time) []string {
	head := "● "
	switch {
	case c.running:
		head = frame + " "
	case c.refused || (c.done && c.isError):
		head = st.err.Render("✗") + " "
	case c.done:
		head = st.ok.Render("✓") + " "
	}
	out := render.Wrap(head+st.cardTitle.Render(render.Clean(c.tool))+" "+render.Clean(c.short()), width)
	out = append(out, st.faint.Render(render.Cut("  ⎿ "+c.meta(now), width)))
	body := c.body(width-4, st)
	if !expanded && len(body) > foldLines {
		more := len(body) - foldLines
		body = append(body[:foldLines:foldLines], st.faint.Render(fmt.Sprintf("… %d more lines (ctrl+o expands)", more)))
	}
	for _, l := range body {
		out = append(out, "    "+l)
	}
	return out
}

// meta is the card's second line: class, the gate's verdict, the time
// and how it ended.
func (c *card) meta(now time.Time) string {
	parts := []string{}
	if c.class != "" {
		parts = append(parts, c.class)
	}
	switch {
	case c.asked != "" && c.verdict != "":
		parts = append(parts, "asked ("+c.asked+"): "+c.verdict)
	case c.asked != "":
		parts = append(parts, "asking ("+c.asked+")")
	case c.verdict != "":
		parts = append(parts, c.verdict)
	case c.class == "read":
		parts = append(parts, "runs directly")
	}
	switch {
	case c.running:
		parts = append(parts, since(now.Sub(c.started)))
	case c.elapsed > 0:
		parts = append(parts, since(c.elapsed))
	}
	if c.done {
		parts = append(parts, render.Clean(frontend.OneLine(c.mark, 160)))
	}
	return strings.Join(parts, " · ")
}

// body is what the card shows under its head: a diff for edit and
// write, the output otherwise.
func (c *card) body(width int, st *styles) []string {
	width = max(width, 10)
	var out []string
	a := c.parsed()
	switch {
	case c.tool == "edit" && a.OldText != nil && a.NewText != nil:
		out = render.Diff(render.Clean(*a.OldText), render.Clean(*a.NewText), &st.text)
	case c.tool == "edit" && len(a.Edits) > 0:
		for i, e := range a.Edits {
			if i > 0 {
				out = append(out, st.hunk.Render("@@"))
			}
			out = append(out, render.Diff(render.Clean(e.OldText), render.Clean(e.NewText), &st.text)...)
		}
	case c.tool == "write" && a.Content != nil:
		out = render.Diff("", render.Clean(*a.Content), &st.text)
	}
	if c.done && (len(out) == 0 || c.isError || c.refused) {
		if why, ok := strings.CutPrefix(c.mark, "✗ refused: "); c.refused && ok {
			out = append(out, render.Wrap(st.refused.Render("refused: ")+render.Clean(frontend.OneLine(why, 300)), width)...)
		} else if c.refused {
			out = append(out, st.refused.Render(render.Clean(frontend.OneLine(c.mark, 300))))
		}
		res := strings.TrimRight(render.Clean(c.result), "\n")
		// A write the sandbox refused is said first, with its path,
		// where folding cannot hide it.
		for l := range strings.SplitSeq(res, "\n") {
			if why, ok := strings.CutPrefix(l, "sandbox: the sandbox refused"); ok {
				out = append(out, render.Wrap(st.refused.Render("sandbox refused")+why, width)...)
			}
		}
		if res != "" && !c.refused {
			out = append(out, render.Wrap(res, width)...)
		}
	}
	for i := range out {
		out[i] = render.Cut(out[i], width)
	}
	return out
}

// since is an elapsed time as a person reads it.
func since(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
