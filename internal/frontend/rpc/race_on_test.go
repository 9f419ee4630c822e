//go:build race

package rpc

// minRate is the event rate TestThroughput wants: the race detector
// slows the encoder about tenfold, so it only checks a floor there.
const minRate = 2_000
