// Package unix holds the judgements in code of the standard Unix
// programs: those that change files (rm, cp, tar, chmod, dd, tee…), run
// code (shells, interpreters, find -exec, sed, awk), reach the network
// (curl, wget, ssh) or manage the system (kill, systemctl, crontab…).
// Package programs keeps the registry, the wrappers and the developer
// tools, and hands these out by the names commands.rules gives them. A
// judgement sees the line only through judge.Walk.
package unix
