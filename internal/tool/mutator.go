package tool

import "encoding/json"

// Subject is what one call of a mutating tool will change, read from the
// call's arguments before it runs: the gate judges the paths (a write
// that lands where code runs outside the sandbox is dangerous), shows the
// person asked the summary and preview, and audits each write.
type Subject struct {
	// Paths are the files the call writes, as the model gave them:
	// relative to the workspace, or absolute.
	Paths []string
	// Summary sizes the change in a few words ("12 bytes, 1 lines",
	// "2 edits"); empty when there is nothing to add.
	Summary string
	// Preview is what the call will put in its files: the new content as
	// "+ " lines, or each edit as "- old" and "+ new" lines. The gate
	// bounds it before anyone sees it.
	Preview string
}

// Mutator must be implemented by mutating-class tools: the gate asks it
// what a call changes instead of decoding the tool's arguments itself. A
// mutating tool without it is refused, since a change nobody can name
// cannot be judged. An error is a problem with the arguments, worded for
// the model; nothing is asked and nothing runs.
type Mutator interface {
	Subject(args json.RawMessage) (Subject, error)
}
