// Package rpc is wisp's JSONL RPC frontend (wisp --mode rpc): commands
// come in on stdin as one JSON object per line, and each gets exactly
// one response on stdout, among the session's events, one JSON object
// per line as well. docs/rpc.md is the contract.
//
// It drives a host.Session and renders its events; it wires no run of
// its own, never writes anything but frames to its output, and never
// lets a malformed frame end the process.
package rpc
