package unix

import "github.com/wisp-agent/wisp/internal/shell/judge"

// cmd is a command being judged, with the helpers the judgements share.
type cmd struct{ judge.Cmd }

// rule judges one program's arguments.
type rule func(k *cmd)

// judgeAs judges args as the command name, as the registry says (python
// -m pip is pip).
func (k *cmd) judgeAs(name string, args []judge.Arg) {
	k.Judge(&judge.Cmd{W: k.W, Name: name, Args: args, R: k.R, Hops: k.Hops, Judge: k.Judge})
}
