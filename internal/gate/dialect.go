package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/wisp-agent/wisp/internal/sandbox"
	"github.com/wisp-agent/wisp/internal/shell"
)

// dialectCheck keeps the verdict honest where commands cannot run in
// bash. The classifier reads lines as bash, and commands run in bash
// wherever it exists; on a system with only a POSIX sh, a line that sh
// would read differently (ANSI-C $'…' quoting, say, which sh does not
// know) could hide a command from the classifier. Such a line, or one sh
// cannot parse, is dangerous there.
func dialectCheck(line string, v shell.Verdict) shell.Verdict {
	if _, isBash := sandbox.ShellPath(); isBash {
		return v
	}
	reason := ""
	if _, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(line), ""); err != nil {
		reason = "the line is not POSIX shell, and this system runs commands with /bin/sh"
	} else if strings.Contains(line, "$'") || strings.Contains(line, `$"`) {
		reason = "bash quoting ($'…') that /bin/sh reads differently"
	}
	if reason == "" {
		return v
	}
	out := v
	out.Level = shell.Dangerous
	out.Reasons = append([]string{reason}, v.Reasons...)
	return out
}
