package wisps

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Counts are a batch's tallies.
type Counts struct {
	Wisps, Succeeded, Failed int
	// Writes and WritesFailed count state-changing calls over the batch.
	Writes, WritesFailed int
}

// Counts tallies the batch.
func (b *Batch) Counts() Counts {
	c := Counts{Wisps: len(b.Results)}
	for _, r := range b.Results {
		if r.OK {
			c.Succeeded++
		} else {
			c.Failed++
		}
		for i := range r.Steps {
			t, f := r.Steps[i].Writes()
			c.Writes += t
			c.WritesFailed += f
		}
	}
	return c
}

// Failed says the batch counts as failed: a wisp failed or a write did.
func (b *Batch) Failed() bool {
	c := b.Counts()
	return c.Failed > 0 || c.WritesFailed > 0
}

// Text is the batch's answer to the model and to `wisp run`.
func (b *Batch) Text() string {
	c := b.Counts()
	var s strings.Builder
	switch {
	case c.Failed > 0 && c.Failed == c.Wisps:
		fmt.Fprintf(&s, "ALL %d WISPS FAILED. No wisp finished; read each wisp's error below before changing and re-running it.\n", c.Wisps)
	case c.Failed > 0:
		fmt.Fprintf(&s, "PARTIAL FAILURE: %d of %d wisps failed. The wisps marked [ok] are done: do not re-run them; fix and re-run only the failed ones.\n", c.Failed, c.Wisps)
	}
	if c.WritesFailed > 0 {
		fmt.Fprintf(&s, "WRITES FAILED: %d of %d state-changing calls failed. Those changes were not made, even where a wisp reads [ok]; see the failed steps below.\n", c.WritesFailed, c.Writes)
	}
	if s.Len() > 0 {
		s.WriteString("\n")
	}
	fmt.Fprintf(&s, "%d wisp(s) completed (%d succeeded, %d failed, %.1fs total):\n", c.Wisps, c.Succeeded, c.Failed, b.Duration.Seconds())
	for _, r := range b.Results {
		writeWisp(&s, r)
	}
	fmt.Fprintf(&s, "\nBatch ID: `%s`\nBatch summary: `%s`\n", b.ID, b.SummaryKey())
	return s.String()
}

func writeWisp(s *strings.Builder, r Result) {
	status := "ok"
	if !r.OK {
		status = "failed"
	}
	fmt.Fprintf(s, "- `%s`: %q [%s] (%dms)\n", r.WispID, r.Description, status, r.Duration.Milliseconds())
	var done []string
	for i := range r.Steps {
		st := &r.Steps[i]
		switch {
		case st.Status == StatusOK:
			done = append(done, st.ID)
			if it := st.Items; it != nil && it.Failed > 0 {
				fmt.Fprintf(s, "  Step %s: %d of %d items FAILED (on_item_failure: continue), indices %s\n", st.ID, it.Failed, it.Count, indices(it.FailedIndices, it.Failed))
			}
		case st.Handled:
			fmt.Fprintf(s, "  Step %s FAILED (handled by on_failure: skip_to %s) [%s]: %s\n", st.ID, st.SkipTo, st.Category, preview(st.Error, OutputPreviewLimit))
		}
	}
	if !r.OK {
		if len(done) > 0 {
			fmt.Fprintf(s, "  Completed before the failure: %s\n", strings.Join(done, ", "))
		} else {
			s.WriteString("  Completed before the failure: none\n")
		}
		fmt.Fprintf(s, "  Step %s FAILED [%s]: %s\n", r.FailedStep, r.Category, preview(r.Error, OutputPreviewLimit))
		return
	}
	writeOutput(s, r)
}

// writeOutput previews the wisp's output: 2K characters, or 4K with the
// working-memory key when it is a for_each step's array.
func writeOutput(s *strings.Builder, r Result) {
	var last *StepResult
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if r.Steps[i].Status == StatusOK {
			last = &r.Steps[i]
			break
		}
	}
	if last == nil {
		return
	}
	out := last.Output
	if last.Items != nil {
		if len(out) > ForEachOutputLimit {
			fmt.Fprintf(s, "  Output (first %d characters; the full array is at `%s`):\n%s\n", ForEachOutputLimit, last.MemoryKey, indent(preview(out, ForEachOutputLimit)))
			return
		}
		fmt.Fprintf(s, "  Output:\n%s\n", indent(out))
		return
	}
	p := preview(out, OutputPreviewLimit)
	if len(p) < len(out) {
		p += fmt.Sprintf("… (%d characters; full output at `%s`)", len(out), last.MemoryKey)
	}
	fmt.Fprintf(s, "  Output: %s\n", p)
}

func indent(t string) string { return "    " + strings.ReplaceAll(t, "\n", "\n    ") }

// preview cuts t at n bytes without splitting a character.
func preview(t string, n int) string {
	if len(t) <= n {
		return t
	}
	for n > 0 && !utf8.RuneStart(t[n]) {
		n--
	}
	return t[:n]
}

func indices(idx []int, failed int) string {
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = strconv.Itoa(v)
	}
	out := strings.Join(parts, ", ")
	if failed > len(idx) {
		out += ", …"
	}
	return out
}
