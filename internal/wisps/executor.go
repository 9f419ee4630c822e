package wisps

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wisp-agent/wisp/internal/provider"
	"github.com/wisp-agent/wisp/internal/wisps/memory"
	"github.com/wisp-agent/wisp/internal/wisps/template"
)

// Options configure an Executor.
type Options struct {
	Tools Tools
	// Provider and Model run LLM steps; a nil Provider fails every LLM
	// step as Structural (a wisp of direct steps needs no model).
	Provider  provider.Provider
	Model     string
	MaxTokens int
	Memory    *memory.Store
	Volume    Volume
	Now       func() time.Time
}

// Executor runs one wisp at a time per call of Run; it is safe for
// concurrent use.
type Executor struct {
	o Options
}

// NewExecutor builds an executor; a nil Memory gets a store of its own.
func NewExecutor(o Options) *Executor {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Memory == nil {
		o.Memory = memory.New(o.Now)
	}
	return &Executor{o: o}
}

// Memory is the working memory the executor writes.
func (x *Executor) Memory() *memory.Store { return x.o.Memory }

// Step statuses.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
)

// CallRecord is one tool call a step made.
type CallRecord struct {
	Tool string `json:"Tool"`
	OK   bool   `json:"Ok"`
	// Write says the tool changes state (class mutating or command).
	Write bool `json:"Write,omitempty"`
}

// ItemStats is a for_each step's tally.
type ItemStats struct {
	StepID        string `json:"StepId"`
	Count         int    `json:"Count"`
	Succeeded     int    `json:"Succeeded"`
	Failed        int    `json:"Failed"`
	Skipped       int    `json:"Skipped"`
	FailedIndices []int  `json:"FailedIndices,omitempty"`
}

// StepResult is how one step ended.
type StepResult struct {
	ID       string   `json:"StepId"`
	Mode     Mode     `json:"Mode"`
	Tool     string   `json:"Tool,omitempty"`
	Status   string   `json:"Status"`
	Error    string   `json:"Error,omitempty"`
	Category Category `json:"Category,omitempty"`
	// Handled says the step failed and on_failure skip_to carried the
	// wisp past it.
	Handled    bool         `json:"Handled,omitempty"`
	SkipTo     string       `json:"SkipTo,omitempty"`
	DurationMS int64        `json:"DurationMs"`
	Items      *ItemStats   `json:"Items,omitempty"`
	Calls      []CallRecord `json:"Calls,omitempty"`
	Output     string       `json:"-"`
	MemoryKey  string       `json:"-"`
}

// Writes counts the step's state-changing calls and how many failed.
func (r *StepResult) Writes() (total, failed int) {
	for _, c := range r.Calls {
		if c.Write {
			total++
			if !c.OK {
				failed++
			}
		}
	}
	return total, failed
}

// Result is how one wisp ended.
type Result struct {
	WispID      string
	BatchID     string
	Description string
	OK          bool
	Steps       []StepResult
	FailedStep  string
	Category    Category
	Error       string
	// Output is the last successful step's output.
	Output   string
	Started  time.Time
	Duration time.Duration
	Plan     *Plan
	Canceled bool
}

// StepEvent tells an observer a step started (Result nil) or ended.
type StepEvent struct {
	WispID string
	Step   string
	Index  int
	Total  int
	Result *StepResult
}

// OutputKey is where a step's output lives in working memory.
func OutputKey(wispID, stepID string) string { return "wisp/" + wispID + "/" + stepID + "/output" }

// wispRun is one execution's state.
type wispRun struct {
	x       *Executor
	plan    *Plan
	id      string
	scope   template.Scope
	observe func(StepEvent)
	res     *Result
}

// Run executes a prepared wisp to its end.
func (x *Executor) Run(ctx context.Context, job Job) Result {
	r := &wispRun{x: x, plan: job.Plan, id: job.WispID, observe: job.Observe,
		scope: template.Scope{Steps: map[string]*template.Step{}}}
	r.res = &Result{WispID: job.WispID, BatchID: job.BatchID, Description: job.Plan.Def.Description, Started: x.o.Now(), Plan: job.Plan}
	steps := job.Plan.Def.Steps
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		if ctx.Err() != nil {
			r.fail(st.ID, External, fmt.Sprintf("cancelled before step %s ran", st.ID))
			r.res.Canceled = true
			break
		}
		r.emit(StepEvent{WispID: r.id, Step: st.ID, Index: i, Total: len(steps)})
		sr := r.step(ctx, st)
		r.record(st, &sr)
		r.emit(StepEvent{WispID: r.id, Step: st.ID, Index: i, Total: len(steps), Result: &r.res.Steps[len(r.res.Steps)-1]})
		if sr.Status == StatusOK {
			continue
		}
		if st.Action() != ActionSkipTo {
			r.fail(st.ID, sr.Category, sr.Error)
			break
		}
		last := &r.res.Steps[len(r.res.Steps)-1]
		last.Handled, last.SkipTo = true, st.OnFailure.SkipTo
		i = r.skip(steps, i, st.OnFailure.SkipTo) - 1
	}
	r.res.Canceled = r.res.Canceled || ctx.Err() != nil
	r.finish()
	return *r.res
}

// skip marks the steps between a failed step and its skip_to target as
// skipped and returns the target's index.
func (r *wispRun) skip(steps []Step, from int, target string) int {
	for j := from + 1; j < len(steps); j++ {
		if strings.EqualFold(steps[j].ID, target) {
			return j
		}
		r.res.Steps = append(r.res.Steps, StepResult{ID: steps[j].ID, Mode: steps[j].Mode, Status: StatusSkipped})
	}
	return len(steps)
}

func (r *wispRun) emit(e StepEvent) {
	if r.observe != nil {
		r.observe(e)
	}
}

func (r *wispRun) fail(step string, cat Category, msg string) {
	if r.res.FailedStep == "" {
		r.res.FailedStep, r.res.Category, r.res.Error = step, cat, msg
	}
}

// record keeps a step's outcome: in the result, in working memory (even
// for a failed for_each step) and for later templates.
func (r *wispRun) record(st Step, sr *StepResult) {
	key := OutputKey(r.id, st.ID)
	if sr.Status == StatusOK || sr.Output != "" {
		r.x.o.Memory.Set(key, sr.Output, memory.DefaultTTL)
		sr.MemoryKey = key
	}
	ts := &template.Step{Result: sr.Output}
	if st.OutputTo != "" && (sr.Status == StatusOK || sr.Items != nil) {
		name := template.Resolve(st.OutputTo, &r.scope)
		if _, err := r.x.o.Volume.Write(name, sr.Output); err != nil && sr.Status == StatusOK {
			sr.Status, sr.Category, sr.Error = StatusFailed, Structural, fmt.Sprintf("output_to: %v", err)
		}
		ts.OutputTo = name
	}
	if sr.Status == StatusOK {
		r.scope.Steps[strings.ToLower(st.ID)] = ts
		r.res.Output = sr.Output
	}
	r.res.Steps = append(r.res.Steps, *sr)
}

func (r *wispRun) finish() {
	r.res.OK = r.res.FailedStep == ""
	r.res.Duration = r.x.o.Now().Sub(r.res.Started)
	if r.res.OK {
		r.x.o.Memory.Retain("wisp/"+r.id, memory.SuccessTTL)
	}
}

// step runs one step with its timeout.
func (r *wispRun) step(ctx context.Context, st Step) StepResult {
	start := r.x.o.Now()
	if st.TimeoutMinutes > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(st.TimeoutMinutes*float64(time.Minute)))
		defer cancel()
	}
	var sr StepResult
	switch {
	case st.Mode == Llm:
		sr = r.llm(ctx, st)
	case st.Iterates():
		sr = r.forEach(ctx, st)
	default:
		sr = r.direct(ctx, st)
	}
	sr.ID, sr.Mode = st.ID, st.Mode
	sr.DurationMS = r.x.o.Now().Sub(start).Milliseconds()
	return sr
}
