package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/wisp-agent/wisp/internal/wisps/template"
)

// ItemOutcome is one element's entry in a for_each step's output.
type ItemOutcome struct {
	Index    int             `json:"index"`
	OK       bool            `json:"ok"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
	Category Category        `json:"category,omitempty"`
	Skipped  bool            `json:"skipped,omitempty"`
	run      bool
	call     CallRecord
}

// source resolves a for_each step's array.
func (r *wispRun) source(st Step) ([]any, error) {
	text := template.Resolve(st.ForEach, &r.scope)
	if text == st.ForEach {
		return nil, fmt.Errorf("for_each source %s did not resolve (the step has no such result)", st.ForEach)
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("for_each source %s is not a JSON array: %v", st.ForEach, err)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("for_each source %s is not a JSON array", st.ForEach)
	}
	return arr, nil
}

// forEach runs a direct step once per element of an earlier result.
func (r *wispRun) forEach(ctx context.Context, st Step) StepResult {
	name := r.plan.Route[strings.ToLower(st.ID)]
	sr := StepResult{Tool: name}
	items, err := r.source(st)
	if err == nil && len(items) > st.ItemLimit() {
		err = fmt.Errorf("for_each: %d elements exceed max_items %d; nothing was run", len(items), st.ItemLimit())
	}
	if err != nil {
		sr.Status, sr.Category, sr.Error = StatusFailed, Data, err.Error()
		return sr
	}
	outs := r.iterate(ctx, st, name, items)
	r.tally(st, &sr, outs, ctx.Err() != nil)
	return sr
}

// iterate runs the elements, at most Parallel at once, in order of
// launch. Under abort the first failure stops launching; cancellation
// does too. Running elements always finish.
func (r *wispRun) iterate(ctx context.Context, st Step, name string, items []any) []ItemOutcome {
	outs := make([]ItemOutcome, len(items))
	sem := make(chan struct{}, st.Parallel())
	var wg sync.WaitGroup
	var mu sync.Mutex
	stop := false
	for i, item := range items {
		outs[i] = ItemOutcome{Index: i, Skipped: true}
		acquired := false
		select {
		case sem <- struct{}{}:
			acquired = true
		case <-ctx.Done():
		}
		mu.Lock()
		halted := stop || ctx.Err() != nil
		mu.Unlock()
		if halted {
			if acquired {
				<-sem
			}
			continue
		}
		wg.Add(1)
		go func(i int, item any) {
			defer wg.Done()
			defer func() { <-sem }()
			o := r.item(ctx, st, name, i, item)
			mu.Lock()
			outs[i] = o
			if !o.OK && st.ItemPolicy() == ItemAbort {
				stop = true
			}
			mu.Unlock()
		}(i, item)
	}
	wg.Wait()
	return outs
}

// item runs one element's call.
func (r *wispRun) item(ctx context.Context, st Step, name string, i int, item any) ItemOutcome {
	sc := r.scope
	sc.Item, sc.HasItem, sc.Index, sc.As = item, true, i, st.As
	out := ItemOutcome{Index: i, run: true}
	args, err := r.args(st, &sc)
	if err != nil {
		out.Error, out.Category = err.Error(), Structural
		return out
	}
	o := r.invoke(ctx, name, args)
	out.call = o.call
	if !o.ok {
		out.Error, out.Category = o.errText, o.category
		return out
	}
	out.OK = true
	if json.Valid([]byte(o.output)) {
		out.Result = json.RawMessage(o.output)
	} else {
		b, _ := json.Marshal(o.output)
		out.Result = b
	}
	return out
}

// tally turns the elements' outcomes into the step's output and result.
func (r *wispRun) tally(st Step, sr *StepResult, outs []ItemOutcome, canceled bool) {
	stats := &ItemStats{StepID: st.ID, Count: len(outs)}
	firstFailed := -1
	for _, o := range outs {
		if o.run {
			sr.Calls = append(sr.Calls, o.call)
		}
		switch {
		case o.Skipped:
			stats.Skipped++
		case o.OK:
			stats.Succeeded++
		default:
			stats.Failed++
			if firstFailed < 0 {
				firstFailed = o.Index
			}
			if len(stats.FailedIndices) < failedIndicesRecorded {
				stats.FailedIndices = append(stats.FailedIndices, o.Index)
			}
		}
	}
	sr.Items = stats
	sr.Output = itemsJSON(outs)
	policy := st.ItemPolicy()
	switch {
	case canceled:
		sr.Status, sr.Category = StatusFailed, External
		sr.Error = fmt.Sprintf("cancelled after %d of %d items (%d succeeded, %d failed, %d not run)", stats.Succeeded+stats.Failed, stats.Count, stats.Succeeded, stats.Failed, stats.Skipped)
	case stats.Failed == 0:
		sr.Status = StatusOK
	case policy == ItemContinue && stats.Succeeded > 0:
		sr.Status = StatusOK
	default:
		o := outs[firstFailed]
		sr.Status, sr.Category = StatusFailed, o.Category
		detail := fmt.Sprintf("%d succeeded, %d not run", stats.Succeeded, stats.Skipped)
		if policy == ItemContinue {
			detail = fmt.Sprintf("%d succeeded, %d failed", stats.Succeeded, stats.Failed)
		}
		sr.Error = fmt.Sprintf("Item %d of %d failed (on_item_failure: %s; %s): %s", o.Index, stats.Count, policy, detail, o.Error)
	}
}

func itemsJSON(outs []ItemOutcome) string {
	if len(outs) == 0 {
		return "[]"
	}
	var b strings.Builder
	b.WriteString("[\n")
	for i, o := range outs {
		line, _ := json.Marshal(o)
		b.WriteString("  ")
		b.Write(line)
		if i < len(outs)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]")
	return b.String()
}
