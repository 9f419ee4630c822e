//go:build race

package wisps

// raceDetector says the race detector slows this run down, so timing
// budgets do not apply.
const raceDetector = true
