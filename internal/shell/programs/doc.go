// Package programs holds the judgements in code that commands.rules
// names with "judge RULE": programs whose arguments a flat table cannot
// judge because they run another command (env, xargs, find -exec, sudo,
// sh -c), or because their options and verbs need parsing (git, go, tar,
// curl, interpreters), and the variables of assignments.rules whose value
// is a command line or a compiler. One file per family; the standard Unix
// programs' judgements are in the subpackage unix. A judgement sees
// the line only through judge.Walk and never touches the file system.
package programs
