// Package shell parses shell lines (bash, with mvdan.cc/sh/v3/syntax) and
// judges the risk of running them: every simple command wherever it hides
// (pipelines, lists, subshells, substitutions, here-docs fed to shells,
// sh -c strings, find -exec, xargs, function bodies) is classified safe,
// moderate or dangerous, and the line is as risky as its riskiest part.
// It also lists those commands in normalised form for the command policy.
//
// Safe is an allowlist: a line is safe only when every construct in it is
// on the short grammar of safe.go and every program is a known reader with
// known options in the data tables of package rules, which also say how
// bad the programs and variables they know are, or which judgement in code
// (package programs: wrappers, shells, options that need parsing) reads
// their arguments. A judgement sees the walk only through the judge.Walk
// interface; this package holds the walk and the grammar, and no knowledge
// of any program. The small languages programs take as arguments (sed
// scripts, awk programs) are read by package sublang, and paths are
// matched against the credential list by package secretpath. Anything else
// is at least moderate ("cannot be shown to be read-only: ..."); reading a
// credential location of package secrets is dangerous however the path is
// spelled. The classifier fails closed: a line it cannot parse, a command
// name it cannot know before the line runs, or a construct it does not
// understand is never safe. It never runs anything, never touches the file
// system and never reads the environment; where the line runs is given in
// Options. It is not the last line of defence: the sandbox is. The rules
// and the reasons for them are in docs/classifier.md.
package shell
