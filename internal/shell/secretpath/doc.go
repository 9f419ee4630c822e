// Package secretpath matches paths and words against the shared list of
// credential locations (package secrets), under any home folder a path
// may be in, globs included: the index is split into path elements once
// so that a match costs a few string comparisons. It also knows the file
// names that hold credentials wherever they lie (.env, id_rsa, *.pem). It holds no idea of
// the workspace or of verdicts, which belong to package shell, and it
// must not import package shell.
package secretpath
