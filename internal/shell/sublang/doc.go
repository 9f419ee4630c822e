// Package sublang reads the small languages that programs take as
// arguments — sed scripts and awk programs — far enough to find the files
// they read or write and whether they run commands. They need a real
// scanner (regular expressions, strings and comments decide where a
// command ends), which a table of options cannot express, so they live
// here as Go, apart from the tables under shell/rules.
//
// The package knows nothing of shell words, paths or verdicts: package
// shell decides what a file written or a command run means. It must not
// import package shell.
package sublang
