//go:build !race

package rpc

// minRate is the event rate TestThroughput wants (issue: at least
// 10,000 events a second to a reader).
const minRate = 10_000
