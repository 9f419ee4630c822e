package agent

// Model is the model the agent's requests ask for.
func (a *Agent) Model() string { return a.opts.Model }

// SetModel changes the model later requests ask for. The caller makes
// sure no run is live: the loop reads the model without a lock.
func (a *Agent) SetModel(name string, maxTokens int, compactAt int64) {
	a.opts.Model, a.opts.MaxTokens, a.opts.CompactAt = name, maxTokens, compactAt
}
