package unix

import "github.com/wisp-agent/wisp/internal/shell/judge"

// The judgements package programs' registry names, as it calls them.
// Each judges a copy of the command: only what its pointers reach (the
// result, the walk) is shared.

func adapt(r func(*cmd)) func(*judge.Cmd) { return func(c *judge.Cmd) { r(&cmd{*c}) } }

// Judgements are the rules of this package by the names commands.rules
// gives them after "judge".
func Judgements() map[string]func(*judge.Cmd) {
	return map[string]func(*judge.Cmd){
		"alias":                 adapt(ruleAlias),
		"awk":                   adapt(ruleAwk),
		"cd":                    adapt(ruleCd),
		"chmod":                 adapt(ruleChmod),
		"compress":              adapt(ruleCompress),
		"copy":                  adapt(ruleCopy),
		"copy-remote":           adapt(ruleCopyRemote),
		"create":                adapt(ruleCreate),
		"crontab":               adapt(ruleCrontab),
		"crypto":                adapt(ruleCrypto),
		"ctl-status":            adapt(ruleCtlStatus),
		"curl":                  adapt(ruleCurl),
		"date":                  adapt(ruleDate),
		"dd":                    adapt(ruleDd),
		"disk":                  adapt(ruleDisk),
		"dmesg":                 adapt(ruleDmesg),
		"enable":                adapt(ruleEnable),
		"eval":                  adapt(ruleEval),
		"fd":                    adapt(ruleFd),
		"find":                  adapt(ruleFind),
		"history":               adapt(ruleHistory),
		"hostname":              adapt(ruleHostname),
		"interpreter":           adapt(ruleInterpreter),
		"kill":                  adapt(ruleKill),
		"kill-by-name":          adapt(ruleKillByName),
		"man":                   adapt(ruleMan),
		"net-config":            adapt(ruleNetConfig),
		"output-option":         adapt(ruleOutputOption),
		"patch":                 adapt(rulePatch),
		"popd":                  adapt(rulePopd),
		"remote":                adapt(ruleRemote),
		"rg":                    adapt(ruleRg),
		"rm":                    adapt(ruleRm),
		"second-operand-writes": adapt(ruleSecondOperandWrites),
		"sed":                   adapt(ruleSed),
		"service":               adapt(ruleService),
		"set":                   adapt(ruleSet),
		"shell":                 adapt(ruleShell),
		"sort":                  adapt(ruleSort),
		"source":                adapt(ruleSource),
		"split":                 adapt(ruleSplit),
		"sysctl":                adapt(ruleSysctl),
		"systemctl":             adapt(ruleSystemctl),
		"tar":                   adapt(ruleTar),
		"tee":                   adapt(ruleTee),
		"trap":                  adapt(ruleTrap),
		"umask":                 adapt(ruleUmask),
		"unzip":                 adapt(ruleUnzip),
		"wget":                  adapt(ruleWget),
		"zip":                   adapt(ruleZip),
	}
}

// Network is the judgement "network": a program that reaches the network,
// for why.
func Network(why string) func(*judge.Cmd) { return adapt(ruleNetwork(why)) }

// Unset is the judgement of unset.
func Unset(c *judge.Cmd) { ruleUnset(&cmd{*c}) }
