// Package wisps runs wisps: supervised pipelines of known steps that call
// tools with no model (Direct) or with a small, tightly scoped one (Llm).
// It holds the definitions and their validation, the executor, for_each,
// batches with their summary text, hashes and the execution log.
//
// Every tool call goes through a Caller that the host supplies, so that a
// wisp's call meets the same gate as the model's own; this package must
// never run a tool, a process or a network request itself.
package wisps
