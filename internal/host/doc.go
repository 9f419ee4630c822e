// Package host is the session core every frontend drives: New wires a
// session (configuration, project and trust, tools, gate and audit,
// sandbox, provider, transcript, agent), and the Session's methods run it
// (Prompt, Steer, FollowUp, Cancel, Approve, Close) and show it
// (Subscribe, Messages, Queued). Print mode, JSON mode, the line-mode
// terminal, the JSONL RPC and the Go SDK are frontends of it; none of
// them wires a run, and it renders nothing but warnings on stderr.
package host
