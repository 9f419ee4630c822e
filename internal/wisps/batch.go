package wisps

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wisp-agent/wisp/internal/wisps/memory"
)

// Batch is a set of wisps run together, each independent of the others.
type Batch struct {
	ID       string
	Results  []Result
	Duration time.Duration
	// LogErr is the first failure to write the execution log.
	LogErr error
}

// BatchOptions say where a batch reports.
type BatchOptions struct {
	Engine  Engine
	Memory  *memory.Store
	Log     Recorder // nil: nothing is logged
	Session string
	Observe func(StepEvent)
	Now     func() time.Time
}

// RunBatch runs prepared wisps concurrently through the engine and waits
// for all of them: one failing wisp never stops another. Results keep
// the order of plans.
func RunBatch(ctx context.Context, plans []*Plan, o BatchOptions) (*Batch, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	id, err := NewID("batch-", 7)
	if err != nil {
		return nil, err
	}
	b := &Batch{ID: id}
	start := o.Now()
	pend := make([]Pending, len(plans))
	for i, p := range plans {
		wid, err := NewID("wisp-", 6)
		if err != nil {
			return nil, err
		}
		pend[i] = o.Engine.Submit(ctx, Job{WispID: wid, BatchID: id, Plan: p, Observe: o.Observe})
	}
	for _, p := range pend {
		b.Results = append(b.Results, p.Collect())
	}
	b.Duration = o.Now().Sub(start)
	if o.Log != nil {
		for _, r := range b.Results {
			rec := NewRecord(r, o.Session)
			if err := o.Log.Append(&rec); err != nil && b.LogErr == nil {
				b.LogErr = err
			}
		}
	}
	if o.Memory != nil {
		o.Memory.Set(b.SummaryKey(), b.SummaryJSON(), memory.DefaultTTL)
	}
	return b, nil
}

// SummaryKey is where the batch's JSON summary lives in working memory:
// wisp/batch-{id}/summary, the ID already holding its "batch-" prefix.
func (b *Batch) SummaryKey() string { return "wisp/" + b.ID + "/summary" }

// SummaryJSON is the per-wisp status and output of the batch.
func (b *Batch) SummaryJSON() string {
	type wisp struct {
		WispID      string   `json:"wispId"`
		Description string   `json:"description"`
		Status      string   `json:"status"`
		DurationMS  int64    `json:"durationMs"`
		FailedStep  string   `json:"failedStep,omitempty"`
		Category    Category `json:"category,omitempty"`
		Error       string   `json:"error,omitempty"`
		Output      string   `json:"output"`
		Memory      string   `json:"memory"`
	}
	s := struct {
		BatchID    string `json:"batchId"`
		Succeeded  int    `json:"succeeded"`
		Failed     int    `json:"failed"`
		DurationMS int64  `json:"durationMs"`
		Wisps      []wisp `json:"wisps"`
	}{BatchID: b.ID, DurationMS: b.Duration.Milliseconds()}
	for _, r := range b.Results {
		w := wisp{WispID: r.WispID, Description: r.Description, Status: StatusOK, DurationMS: r.Duration.Milliseconds(),
			FailedStep: r.FailedStep, Category: r.Category, Error: r.Error, Output: r.Output, Memory: "wisp/" + r.WispID}
		if r.OK {
			s.Succeeded++
		} else {
			w.Status = StatusFailed
			s.Failed++
		}
		s.Wisps = append(s.Wisps, w)
	}
	out, err := json.Marshal(s)
	if err != nil {
		return fmt.Sprintf(`{"batchId":%q}`, b.ID)
	}
	return string(out)
}
