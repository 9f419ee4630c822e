package wisps

import "time"

// Record is one wisp execution as the log keeps it, one JSON line each.
type Record struct {
	WispID          string       `json:"WispId"`
	BatchID         string       `json:"BatchId,omitempty"`
	SessionID       string       `json:"SessionId,omitempty"`
	Description     string       `json:"Description"`
	DefinitionHash  string       `json:"DefinitionHash"`
	ShapeHash       string       `json:"ShapeHash"`
	Success         bool         `json:"Success"`
	StartedAt       time.Time    `json:"StartedAt"`
	DurationMS      int64        `json:"DurationMs"`
	Steps           []StepResult `json:"Steps"`
	FailedStep      string       `json:"FailedStep,omitempty"`
	FailureCategory Category     `json:"FailureCategory,omitempty"`
	ErrorMessage    string       `json:"ErrorMessage,omitempty"`
	RetryOf         string       `json:"RetryOf,omitempty"`
	IteratedSteps   []ItemStats  `json:"IteratedSteps,omitempty"`
	Definition      *Definition  `json:"Definition,omitempty"`
}

// NewRecord turns a result into its log record.
func NewRecord(r Result, session string) Record {
	rec := Record{WispID: r.WispID, BatchID: r.BatchID, SessionID: session, Description: r.Description,
		Success: r.OK, StartedAt: r.Started.UTC(), DurationMS: r.Duration.Milliseconds(), Steps: r.Steps,
		FailedStep: r.FailedStep, FailureCategory: r.Category, ErrorMessage: r.Error}
	if r.Plan != nil {
		d := r.Plan.Def
		rec.DefinitionHash, rec.ShapeHash, rec.Definition = DefinitionHash(d), ShapeHash(d), &d
	}
	for _, s := range r.Steps {
		if s.Items != nil {
			rec.IteratedSteps = append(rec.IteratedSteps, *s.Items)
		}
	}
	return rec
}

// Recorder keeps execution records; execlog.Log writes them to the
// JSONL execution log.
type Recorder interface {
	// Append adds a record, setting RetryOf where it applies.
	Append(rec *Record) error
}
