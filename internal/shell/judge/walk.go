package judge

// Walk is what judging one command needs from the walk of the line it
// stands in: where its paths lead from where it runs, what its standard
// input is, and the judging of the commands and scripts it runs in turn.
// The walk owns the line's state (the directory, the parts recorded); a
// judgement only asks.
type Walk interface {
	// Where tells where a path argument lands, and how to show it.
	Where(a Arg) (Place, string)
	// Resolve is the absolute path an argument names, when it is known.
	Resolve(a Arg) (string, bool)
	// WriteTo judges writing the file an argument names; the reason is
	// empty when writing there is harmless.
	WriteTo(a Arg) (Level, string)
	// Show renders a resolved path for a reason.
	Show(p string) string
	// Wide reports whether p holds the workspace or the home folder.
	Wide(p string) bool
	// Secret reports whether p is a credential location.
	Secret(p string) bool
	// Downloaded reports whether an earlier part of the line wrote p
	// with what came off the network.
	Downloaded(p string) bool
	// Home is the user's home folder, "" when not given.
	Home() string
	// Collect reports whether the normalised forms of commands are wanted
	// (for the command policy).
	Collect() bool
	// Cwd is where the command runs, "" once that is only known at run
	// time.
	Cwd() string
	// CdPath reports whether CDPATH may be set.
	CdPath() bool
	// SetCdPath records that CDPATH is set for the rest of the line.
	SetCdPath()
	// Chdir moves the rest of the line to dir ("" for a place only
	// known at run time), as cd does.
	Chdir(dir string)
	// In is the same walk for a command that runs in dir ("" when only
	// known at run time) without moving the line (env -C).
	In(dir string) Walk
	// Sub is the same walk for a command run by this one: a cd there
	// does not move the line.
	Sub() Walk
	// Stdin is what the command's standard input is.
	Stdin() Stdin
	// Argv judges args (the program first) into r now, as a command of
	// its own run by this one, hops wrappers deep.
	Argv(args []Arg, r *Result, hops int)
	// Part judges args as a part of the line of its own, recorded after
	// the current one (find -exec, xargs).
	Part(args []Arg, hops int)
	// Script judges src as a shell script that this command runs.
	Script(src string)
}

// Stdin is a command's standard input as far as the walk knows it.
type Stdin struct {
	In    Input
	Text  string // the here-doc or here-string, when In is InText
	Known bool   // Text has no expansions
	Net   bool   // the pipe carries the output of a network command
}

// Input is what a command's standard input is.
type Input int

const (
	InInherited Input = iota // whatever the line itself was given
	InPipe                   // the previous pipeline stage
	InFile                   // a file (< file)
	InText                   // a here-doc or here-string
)
