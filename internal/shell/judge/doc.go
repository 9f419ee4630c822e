// Package judge holds what the walk of a shell line and the judgements of
// single programs share: the words of a command as far as they can be
// known before it runs (Arg), options (Spec), the outcome of judging a
// part (Level, Result), the command being judged (Cmd), and Walk, the
// only way a judgement reaches the line around it. It knows no program
// and parses nothing; package shell walks, package programs judges.
package judge
