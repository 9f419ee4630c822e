package host

import (
	"errors"
	"io"

	"github.com/wisp-agent/wisp/internal/config"
	"github.com/wisp-agent/wisp/internal/tool"
)

// Version is the wisp version.
var Version = "0.1.0-dev"

// IO is the process's world as the CLI sees it; tests hand in their own.
type IO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv config.Getenv
	// StdinTTY and StderrTTY say whether those streams are terminals.
	StdinTTY, StdoutTTY, StderrTTY bool
	Workdir                        string
	// Self is the path of the wisp binary (for re-executing helpers).
	Self string
	// Extensions are tools an embedding program registered (package sdk).
	Extensions []Extension
	// NoHelper, when set, says why Self cannot serve as the sandbox
	// helper (an embedding program that does not hand the helper's
	// re-execution to wisp): command tools are then refused (embed.go).
	NoHelper string
}

// Extension is a tool registered by an embedding program, with its
// optional prompt guidance.
type Extension struct {
	Tool tool.Tool
	Meta *tool.PromptMetadata
}

// Options are what a session is asked to be: its provider, the tools
// the model sees, and the transcript it continues.
type Options struct {
	Provider       string
	Model          string
	BaseURL        string
	AllowReadTools bool
	AllowTools     []string
	AllowAllTools  bool
	// Yes approves every call the gate would ask about (print mode's
	// --yes); otherwise Approver answers, and without one nothing that
	// asks runs.
	Yes          bool
	MaxToolIters int // -1: uncapped
	SessionDir   string
	Continue     bool
	Resume       string
	Fork         bool
	KeepTurns    int // with Fork: keep only the last N turns; 0 keeps all
	NoSession    bool
}

// ErrReported marks a failure that was shown already (as an error event,
// or a warning on stderr): the command line exits 1 without saying more.
var ErrReported = errors.New("failed")

// UsageError is a request that cannot be met as asked (a bad flag, a
// session that does not exist): the command line's exit code 2.
type UsageError = config.UsageError

// Usagef makes a UsageError.
func Usagef(format string, a ...any) error { return config.Usagef(format, a...) }

func usagef(format string, a ...any) error { return Usagef(format, a...) }
