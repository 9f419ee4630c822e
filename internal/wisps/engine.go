package wisps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// Job is one wisp handed to an Engine.
type Job struct {
	WispID  string
	BatchID string
	Plan    *Plan
	// Observe is told as each step starts and ends; it must not block.
	Observe func(StepEvent)
}

// Engine is the seam between a batch and whatever executes its wisps:
// submit a wisp, observe its steps (Job.Observe), collect its result.
// Pool runs them in this process; a durable-execution engine can take
// its place without the batch or the summary changing.
type Engine interface {
	Submit(ctx context.Context, job Job) Pending
}

// Pending is a submitted wisp.
type Pending interface {
	// Collect waits for the wisp's end and returns its result.
	Collect() Result
}

// Pool is the in-process Engine: at most Size wisps run at once.
type Pool struct {
	x   *Executor
	sem chan struct{}
}

// NewPool runs wisps on x, at most size at once (0: MaxConcurrentWisps).
func NewPool(x *Executor, size int) *Pool {
	if size <= 0 {
		size = MaxConcurrentWisps
	}
	return &Pool{x: x, sem: make(chan struct{}, size)}
}

type pending struct {
	done chan struct{}
	res  Result
}

func (p *pending) Collect() Result {
	<-p.done
	return p.res
}

// Submit starts the wisp once a slot is free. A wisp cancelled while it
// waits for a slot ends as cancelled without running a step.
func (p *Pool) Submit(ctx context.Context, job Job) Pending {
	pd := &pending{done: make(chan struct{})}
	go func() {
		defer close(pd.done)
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			pd.res = cancelledBeforeStart(job)
			return
		}
		defer func() { <-p.sem }()
		pd.res = p.x.Run(ctx, job)
	}()
	return pd
}

func cancelledBeforeStart(job Job) Result {
	first := ""
	if len(job.Plan.Def.Steps) > 0 {
		first = job.Plan.Def.Steps[0].ID
	}
	return Result{WispID: job.WispID, BatchID: job.BatchID, Description: job.Plan.Def.Description, Plan: job.Plan,
		FailedStep: first, Category: External, Error: "cancelled before the wisp started", Canceled: true}
}

// NewID makes an id of prefix and n random bytes in hex.
func NewID(prefix string, n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a %s id: %w", prefix, err)
	}
	return prefix + hex.EncodeToString(b), nil
}
